-- Delivery and more than one server: notices waiting to go out, and the request limits
-- every server instance counts together.

-- A notice to a driver (approved, rejected, …), written with what it tells and delivered in the
-- background, retried with backoff. `sealed` is the message (address and words) AES-256-GCM
-- encrypted, bound to the row's id.
CREATE TABLE outgoing_notices (
  id uuid PRIMARY KEY,
  driver_id uuid NOT NULL REFERENCES drivers (id) ON DELETE CASCADE,
  notice text NOT NULL,
  channel text NOT NULL CHECK (channel IN ('email', 'sms')),
  sealed bytea NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  -- A server delivering it keeps the others off until then (a crash lets another take it over).
  claimed_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL,
  sent_at timestamptz
);
CREATE INDEX outgoing_notices_due_idx ON outgoing_notices (next_attempt_at) WHERE status = 'pending';

-- Requests per client address and route group in the current window (@fastify/rate-limit's store).
CREATE TABLE rate_limits (
  key text PRIMARY KEY,
  hits integer NOT NULL,
  resets_at timestamptz NOT NULL
);
CREATE INDEX rate_limits_resets_idx ON rate_limits (resets_at);
