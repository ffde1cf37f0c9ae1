-- Signed webhooks (Standard Webhooks 1.0) to the operator's other systems (plugins/webhooks.ts).

-- Where they go. The signing secret is sealed with the data key (lib/dataCipher.ts, context
-- "webhook-secret:<id>"); after a rotation the previous one signs too, until it expires.
CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  url text NOT NULL,
  -- Empty: every event.
  event_types text[] NOT NULL DEFAULT '{}',
  description text NOT NULL DEFAULT '',
  -- Deliveries to a loopback, link-local or private address are refused in production unless this is set.
  allow_private boolean NOT NULL DEFAULT false,
  secret bytea NOT NULL,
  previous_secret bytea,
  previous_secret_expires_at timestamptz,
  disabled_at timestamptz,
  -- 'owner', or 'failing' (the server disabled it).
  disabled_reason text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

-- Each driver's last event number. No foreign key, as on webhook_events: the erasure's own event
-- outlives the driver's row, and names the driver by id alone.
CREATE TABLE webhook_sequences (
  driver_id uuid PRIMARY KEY,
  last_sequence bigint NOT NULL
);

-- The outbox: written in the transaction of the change it tells; never holds a person's data.
CREATE TABLE webhook_events (
  id text PRIMARY KEY,
  driver_id uuid,
  type text NOT NULL,
  sequence bigint,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX webhook_events_created ON webhook_events (created_at);
CREATE INDEX webhook_events_driver ON webhook_events (driver_id, sequence);

CREATE TABLE webhook_deliveries (
  id bigserial PRIMARY KEY,
  event_id text NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts int NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  last_attempt_at timestamptz,
  last_status_code int,
  -- The first 200 bytes of the endpoint's last answer, or why there was none.
  last_answer text,
  claimed_until timestamptz,
  claimed_by text,
  -- When it was queued, or queued again (a resend, a replay, its endpoint turned back on): its
  -- retries stop three days after.
  queued_at timestamptz NOT NULL,
  delivered_at timestamptz,
  UNIQUE (event_id, endpoint_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id DESC);
