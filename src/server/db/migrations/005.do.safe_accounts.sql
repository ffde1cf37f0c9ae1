-- Safe accounts: codes that only verify, sign-in sessions that can be ended and go idle,
-- lockouts after repeated wrong codes, one verified phone per account, and review that can't be
-- bypassed.

-- Sessions come in three kinds now: a normal session; a resume link's single-use token; and a
-- sign-up token, handed out by the email sign-up and good only for sending and checking that
-- sign-up's email code (a code proves an address; it never signs anyone in).
ALTER TABLE sessions DROP CONSTRAINT sessions_kind_check;
ALTER TABLE sessions ADD CONSTRAINT sessions_kind_check CHECK (kind IN ('session', 'resume', 'signup'));
-- When the driver last proved who they are to Firebase (a sign-in minutes old); NULL when the
-- session came from a code or a link. Replacing the payout account needs a recent one.
ALTER TABLE sessions ADD COLUMN authenticated_at timestamptz;
-- The last request made with the session: an idle session expires.
ALTER TABLE sessions ADD COLUMN last_seen_at timestamptz;
UPDATE sessions SET last_seen_at = created_at;
ALTER TABLE sessions ALTER COLUMN last_seen_at SET NOT NULL;

-- A code is bound to (driver, channel, destination, purpose), and the keyed hash covers all four.
-- Codes were never sent to an unknown email before without a driver; those rows can go.
DELETE FROM otp_codes WHERE driver_id IS NULL;
ALTER TABLE otp_codes ALTER COLUMN driver_id SET NOT NULL;
ALTER TABLE otp_codes ADD COLUMN purpose text NOT NULL DEFAULT 'verify' CHECK (purpose IN ('verify'));
-- Codes issued before this migration were hashed without the driver and purpose: none can match
-- now, so they are retired rather than left to fail as "wrong".
UPDATE otp_codes SET consumed_at = created_at WHERE consumed_at IS NULL;
CREATE INDEX otp_codes_driver_idx ON otp_codes (driver_id, channel, created_at);

-- Consecutive wrong codes per account (subject 'driver:<id>:<channel>') and per destination
-- ('destination:<channel>:<address>'); at the limit the subject is locked for a while. Kept in the
-- database, so every server instance counts the same.
CREATE TABLE code_lockouts (
  subject text PRIMARY KEY,
  consecutive_failures integer NOT NULL DEFAULT 0,
  locked_until timestamptz
);

-- A verified phone number belongs to one account. Earlier versions let two accounts verify the
-- same number; the first verification keeps it and the later ones must verify a number again.
UPDATE drivers SET phone_verified_at = NULL
WHERE phone_verified_at IS NOT NULL AND EXISTS (
  SELECT 1 FROM drivers earlier
  WHERE earlier.phone = drivers.phone AND earlier.phone_verified_at IS NOT NULL AND earlier.id <> drivers.id
    AND (earlier.phone_verified_at, earlier.id) < (drivers.phone_verified_at, drivers.id)
);
CREATE UNIQUE INDEX drivers_verified_phone_idx ON drivers (phone) WHERE phone_verified_at IS NOT NULL;

-- Counts every change to what a reviewer judges (profile, vehicle photos, vehicle): a decision
-- names the version it was made on, so data changed while a reviewer looked can't be approved unseen.
ALTER TABLE drivers ADD COLUMN review_version integer NOT NULL DEFAULT 0;
