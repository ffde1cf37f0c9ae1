-- Retention: flows/retention.json says how long each kind of record is kept, and a daily pass
-- (plugins/retention.ts) deletes what is past its time.

-- One row per day the pass ran: the primary key lets one server instance alone run each day's
-- pass, however many run. `finished_at` stays NULL for a pass that failed half-way; `checked`
-- holds, by kind, the time up to which a kind that must look at every row (files sent ahead that
-- no step took) was looked at, so the next pass reads only the rows after it.
CREATE TABLE retention_passes (
  day date PRIMARY KEY,
  started_at timestamptz NOT NULL,
  finished_at timestamptz,
  checked jsonb NOT NULL DEFAULT '{}'
);

-- Stored files whose rows were deleted, written in the transaction that deletes the rows: a
-- document store that fails half-way leaves them here, and the next pass removes them.
CREATE TABLE file_removals (
  storage_name text PRIMARY KEY,
  queued_at timestamptz NOT NULL
);

-- Each kind is found by its time through an index of its own: a pass with nothing to delete reads
-- next to nothing.
CREATE INDEX drivers_rejected_idx ON drivers (updated_at) WHERE status = 'rejected';
CREATE INDEX drivers_unfinished_idx ON drivers (updated_at) WHERE submitted_at IS NULL;
CREATE INDEX privacy_requests_erased_idx ON privacy_requests (done_at) WHERE action = 'erase';
CREATE INDEX retained_payment_records_kept_at_idx ON retained_payment_records (kept_at);
CREATE INDEX outgoing_notices_sent_idx ON outgoing_notices (sent_at) WHERE status = 'sent';
CREATE INDEX outgoing_notices_failed_idx ON outgoing_notices (created_at) WHERE status = 'failed';
CREATE INDEX uploads_created_at_idx ON uploads (created_at);
CREATE INDEX sessions_expires_at_idx ON sessions (expires_at);
CREATE INDEX staff_sessions_expires_at_idx ON staff_sessions (expires_at);
CREATE INDEX otp_codes_expires_at_idx ON otp_codes (expires_at);
CREATE INDEX launch_links_expires_at_idx ON launch_links (expires_at);
CREATE INDEX payment_events_received_at_idx ON payment_events (received_at);

-- The audit record stays append-only but for one thing: the rows that name a driver who was
-- erased go once their time is over, removed by the retention pass alone, through the function
-- below (which says so for its own statements with the setting onramp.erased_audit_retention).
-- Nothing else is ever changed or removed, by anyone.
CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('onramp.erased_audit_retention', true) = 'on' THEN
    IF OLD.driver_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM drivers WHERE id = OLD.driver_id) THEN
      RETURN OLD;
    END IF;
  END IF;
  RAISE EXCEPTION 'audit_events is append-only: % is not allowed', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;

-- The erasures done before `cutoff`: their records (privacy_requests) and the audit rows naming
-- those drivers, and how many rows went. It runs as the migrations' owner (SECURITY DEFINER): in
-- production the server's role may not delete from the audit record at all (migration 010), and
-- this is the one deletion it may ask for.
CREATE FUNCTION delete_erased_driver_records(cutoff timestamptz) RETURNS integer
  LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
  audit_rows integer;
  request_rows integer;
BEGIN
  PERFORM set_config('onramp.erased_audit_retention', 'on', true);
  DELETE FROM audit_events WHERE driver_id IN (SELECT driver_id FROM privacy_requests WHERE action = 'erase' AND done_at < cutoff);
  GET DIAGNOSTICS audit_rows = ROW_COUNT;
  PERFORM set_config('onramp.erased_audit_retention', 'off', true);
  DELETE FROM privacy_requests WHERE driver_id IN (SELECT driver_id FROM privacy_requests WHERE action = 'erase' AND done_at < cutoff);
  GET DIAGNOSTICS request_rows = ROW_COUNT;
  RETURN audit_rows + request_rows;
END;
$$;
