-- Notices to staff members too (an owner told a webhook endpoint was disabled): each notice is to
-- one driver or one staff member, and goes with them.
ALTER TABLE outgoing_notices
  ALTER COLUMN driver_id DROP NOT NULL,
  ADD COLUMN staff_id uuid REFERENCES staff (id) ON DELETE CASCADE,
  ADD CONSTRAINT outgoing_notices_one_recipient CHECK (num_nonnulls(driver_id, staff_id) = 1);
