-- Data-access requests and erasure: an administrator exports one driver's data for
-- them, or erases the driver (routes/adminPrivacy.ts). Both are recorded with who did it.

-- Every export and erasure. No foreign key on purpose: the record that a driver was erased must
-- outlive the driver. `details` holds counts of what was exported or removed, never anything
-- of the person (no email, no name, no phone).
CREATE TABLE privacy_requests (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  driver_id uuid NOT NULL,
  action text NOT NULL CHECK (action IN ('export', 'erase')),
  -- Which admin token did it (a fingerprint, as driver_reviews.reviewed_by), never the token.
  done_by text NOT NULL,
  done_at timestamptz NOT NULL,
  details jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX privacy_requests_driver_idx ON privacy_requests (driver_id, done_at);

-- Payment records outlive an erasure: tax and accounting rules require keeping them.
-- subscriptions rows go with their driver (ON DELETE CASCADE), so an erasure first copies the
-- provider's ids here, detached from the person: `driver_ref` is the erased driver's id, with no
-- foreign key, and nothing else of them (the provider's invoices, which these ids name, hold the
-- amounts). payment_events names no driver and stays as it is.
CREATE TABLE retained_payment_records (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  driver_ref uuid NOT NULL,
  customer_id text,
  subscription_id text,
  payment_intent_id text,
  -- The provider's subscription status as last seen (active, canceled, …).
  status text NOT NULL,
  kept_at timestamptz NOT NULL
);
CREATE INDEX retained_payment_records_driver_ref_idx ON retained_payment_records (driver_ref);
