-- Integrations and their launch links: a partner's system (not a person) that starts a driver's
-- onboarding from its own app, as an owner set it up on the admin page (routes/integrations.ts).
-- It acts with keys of its own and the single role `integration`: it may make a launch link and
-- read the status of the drivers who came through one, nothing else.

-- A partner's system. Its signing secret (what the result a finished driver carries back is
-- signed with) is sealed with the data key: the server must sign with it, so it can't be a hash.
CREATE TABLE integrations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL,
  signing_secret bytea NOT NULL,
  -- Where a driver may be sent back to: each an origin and a path prefix ("https://app.example/done").
  return_urls text[] NOT NULL DEFAULT '{}',
  created_by text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX integrations_name_idx ON integrations (lower(name));

-- An integration's key: hashed, shown once, revocable by an owner, as a person's are (staff_keys).
CREATE TABLE integration_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  key_hash text NOT NULL UNIQUE,
  integration_id uuid NOT NULL REFERENCES integrations (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  last_used_at timestamptz,
  revoked_at timestamptz,
  revoked_by text
);
CREATE INDEX integration_keys_integration_idx ON integration_keys (integration_id);

-- A launch link: single use (`opened_at`), for 15 minutes. Only the token's SHA-256 is kept. The
-- email and phone that fill the sign-up are sealed, and dropped once the link is opened; the
-- email's keyed hash stays, to hand the external id and the return URL to the driver who signs up
-- with that email afterwards (`driver_id` once they have).
CREATE TABLE launch_links (
  token_hash text PRIMARY KEY,
  integration_id uuid NOT NULL REFERENCES integrations (id) ON DELETE CASCADE,
  email_fingerprint text NOT NULL,
  prefill bytea,
  external_id text,
  return_url text NOT NULL,
  locale text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  opened_at timestamptz,
  driver_id uuid REFERENCES drivers (id) ON DELETE CASCADE
);
CREATE INDEX launch_links_email_idx ON launch_links (email_fingerprint, opened_at) WHERE driver_id IS NULL AND opened_at IS NOT NULL;

-- The driver who came through a launch link: whose system sent them, as what, and where it wants them back.
ALTER TABLE drivers
  ADD COLUMN integration_id uuid REFERENCES integrations (id) ON DELETE SET NULL,
  ADD COLUMN external_id text,
  ADD COLUMN return_url text;
CREATE INDEX drivers_integration_idx ON drivers (integration_id, external_id) WHERE integration_id IS NOT NULL;
