-- The reminder and expiry passes read only the drivers something may be due to, not every driver
-- (plugins/reminders.ts, plugins/expiries.ts): each driver's progress row says when each pass is to
-- look at them next (NULL: not until they change something). Any change to what a driver did or
-- to their standing (whatever makes record_driver_progress run) sets both to '-infinity', to look
-- at once; each pass, having looked, sets its own to when its next notice can fall due.
ALTER TABLE driver_progress
  ADD COLUMN remind_check_at timestamptz DEFAULT '-infinity',
  ADD COLUMN expiry_check_at timestamptz DEFAULT '-infinity';
CREATE INDEX driver_progress_remind_check_idx ON driver_progress (remind_check_at, driver_id) WHERE remind_check_at IS NOT NULL;
CREATE INDEX driver_progress_expiry_check_idx ON driver_progress (expiry_check_at, driver_id) WHERE expiry_check_at IS NOT NULL;

-- As migration 013 wrote it, and the passes told to look again.
CREATE OR REPLACE FUNCTION record_driver_progress(driver_ids uuid[]) RETURNS void LANGUAGE sql AS $$
  SELECT FROM drivers WHERE id = ANY (driver_ids) ORDER BY id FOR NO KEY UPDATE;
  INSERT INTO progress_steps (step) SELECT DISTINCT step FROM driver_steps_passed(driver_ids) ON CONFLICT (step) DO NOTHING;
  INSERT INTO driver_progress (driver_id, signed_up_at, provider, locale, passed)
  SELECT d.id, d.created_at, d.provider, d.locale, array_agg(floor(extract(epoch FROM p.passed_at - d.created_at))::integer ORDER BY i)
  FROM drivers d CROSS JOIN generate_series(1, (SELECT max(id) FROM progress_steps)) AS i
    LEFT JOIN progress_steps s ON s.id = i
    LEFT JOIN driver_steps_passed(driver_ids) p ON p.driver_id = d.id AND p.step = s.step
  WHERE d.id = ANY (driver_ids)
  GROUP BY d.id
  ON CONFLICT (driver_id) DO UPDATE
    SET signed_up_at = excluded.signed_up_at, provider = excluded.provider, locale = excluded.locale, passed = excluded.passed
    WHERE (driver_progress.signed_up_at, driver_progress.provider, driver_progress.locale, driver_progress.passed)
      IS DISTINCT FROM (excluded.signed_up_at, excluded.provider, excluded.locale, excluded.passed);
  UPDATE driver_progress SET remind_check_at = '-infinity', expiry_check_at = '-infinity'
  WHERE driver_id = ANY (driver_ids)
    AND (remind_check_at IS DISTINCT FROM '-infinity' OR expiry_check_at IS DISTINCT FROM '-infinity');
$$;
