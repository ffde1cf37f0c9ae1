-- Documents that expire: flows/notices.json's "expiries" says which answers are the
-- expiry dates of which document, how many days before one the driver is told, and what happens
-- when it expires unreplaced. A row here is written, in the transaction that records the notice,
-- before it goes out: the primary key lets one server instance alone win each notice, so each is
-- sent exactly once however many servers run. The date is in the key: a document replaced with a
-- new date is told about again when that one comes near.
CREATE TABLE document_notices_sent (
  driver_id uuid NOT NULL REFERENCES drivers (id) ON DELETE CASCADE,
  -- The date's step and field ("addVehicle.proofInsuranceExpiryDate").
  document text NOT NULL,
  -- The expiry date as the driver's answer holds it (YYYY-MM-DD).
  expires_on text NOT NULL,
  -- "before-30" for the notice 30 days before, "expired" for the day after it.
  notice text NOT NULL,
  sent_at timestamptz NOT NULL,
  PRIMARY KEY (driver_id, document, expires_on, notice)
);

-- The driver was approved and is replacing an expiring document (or was asked to, once it
-- expired): until the next approval only that document and the fixes a reviewer asks may change.
ALTER TABLE drivers ADD COLUMN renewing boolean NOT NULL DEFAULT false;
