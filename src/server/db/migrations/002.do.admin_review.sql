-- Administrator review: who decided on a driver and when. The driver row keeps the
-- latest decision (what GET /driver/status and the admin list read); driver_reviews keeps every
-- one, since a rejected driver who sends the vehicle again is pending again and the reason is
-- cleared from the row.

-- Which admin token decided (a fingerprint, never the token): there are no admin accounts yet.
ALTER TABLE drivers ADD COLUMN reviewed_by text;
ALTER TABLE drivers ADD COLUMN reviewed_at timestamptz;

CREATE TABLE driver_reviews (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  driver_id uuid NOT NULL REFERENCES drivers (id) ON DELETE CASCADE,
  decision text NOT NULL CHECK (decision IN ('approved', 'rejected')),
  -- Required for a rejection (the driver is shown it), absent for an approval.
  reason text CHECK ((decision = 'rejected') = (reason IS NOT NULL)),
  reviewed_by text NOT NULL,
  reviewed_at timestamptz NOT NULL
);
CREATE INDEX driver_reviews_driver_id_idx ON driver_reviews (driver_id, reviewed_at);

-- The review queue: GET /admin/drivers?status=pending lists complete sessions by status.
CREATE INDEX drivers_review_idx ON drivers (status, is_session_complete);
