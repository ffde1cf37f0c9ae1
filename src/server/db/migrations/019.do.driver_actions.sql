-- Staff act on a driver from the Drivers list (routes/people.ts).

-- A staff member paused the driver's reminders: the reminders pass sends none until one resumes
-- them. Apart from reminders_stopped_at, which is the driver's own wish and staff can't undo.
ALTER TABLE drivers ADD COLUMN reminders_paused_at timestamptz;

-- The flow's step a reminder was about, so a driver's timeline can name it.
ALTER TABLE outgoing_notices ADD COLUMN step text;

-- Notes staff leave for each other about a driver, shown on the driver's timeline. The audit
-- record says a note was added, never what it says (it may name the person).
CREATE TABLE driver_notes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  driver_id uuid NOT NULL REFERENCES drivers (id) ON DELETE CASCADE,
  staff_id uuid REFERENCES staff (id) ON DELETE SET NULL,
  -- Who wrote it, as the audit record names staff: kept when the staff member is removed.
  author text NOT NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX driver_notes_driver_idx ON driver_notes (driver_id, created_at);
