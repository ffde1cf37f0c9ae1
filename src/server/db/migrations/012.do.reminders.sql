-- Reminders: a driver who stopped part-way through gets a reminder after each delay of
-- flows/notices.json's "reminders". A row here is written, in the transaction that records the
-- notice, before the reminder goes out: the primary key lets one server instance alone win each
-- (driver, step, reminder), so each is sent exactly once however many servers run.
CREATE TABLE reminders_sent (
  driver_id uuid NOT NULL REFERENCES drivers (id) ON DELETE CASCADE,
  step text NOT NULL,
  -- Which of the delays: 0 for the first.
  reminder integer NOT NULL,
  sent_at timestamptz NOT NULL,
  PRIMARY KEY (driver_id, step, reminder)
);

-- The driver asked for no more reminders (the email's one-step unsubscribe).
ALTER TABLE drivers ADD COLUMN reminders_stopped_at timestamptz;

-- The driver's number replied STOP (Twilio answered 21610 for a text to it): no text notice is
-- written for them any more, until they verify a number again (having texted START to undo it).
ALTER TABLE drivers ADD COLUMN sms_opted_out_at timestamptz;
