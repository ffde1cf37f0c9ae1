-- Where each driver stopped in the funnel, kept on their progress row, so the Drivers list filtered by
-- a step or by how long drivers have stalled reads an index rather than every driver's times
-- (routes/people.ts). The funnel's order is the flow's: the server writes it at start
-- (lib/funnelOrder.ts), and writes every driver's stop again when that order changes.

-- A step's place in the funnel, from 0 (NULL: not in it).
ALTER TABLE progress_steps ADD COLUMN funnel_index integer;
-- The place in the funnel of the last step the driver passed, and when they passed it (NULL: none passed).
ALTER TABLE driver_progress ADD COLUMN stopped_after integer, ADD COLUMN stopped_since timestamptz;
-- The drivers stopped at a step, newest first, and since when (a count of the stalled reads only the index).
CREATE INDEX driver_progress_stopped_after_idx ON driver_progress (stopped_after, signed_up_at, driver_id) INCLUDE (stopped_since);

-- The last step of the funnel passed in `passed` (as driver_progress keeps it), and when.
CREATE FUNCTION funnel_stop(signed_up_at timestamptz, passed integer[], OUT stopped_after integer, OUT stopped_since timestamptz)
LANGUAGE sql STABLE AS $$
  SELECT s.funnel_index, signed_up_at + passed[s.id] * interval '1 second'
  FROM progress_steps s
  WHERE s.funnel_index IS NOT NULL AND passed[s.id] IS NOT NULL
  ORDER BY s.funnel_index DESC
  LIMIT 1
$$;

-- As migration 025 wrote it, and the driver's stop written with their times.
CREATE OR REPLACE FUNCTION record_driver_progress(driver_ids uuid[]) RETURNS void LANGUAGE sql AS $$
  SELECT FROM drivers WHERE id = ANY (driver_ids) ORDER BY id FOR NO KEY UPDATE;
  INSERT INTO progress_steps (step) SELECT DISTINCT step FROM driver_steps_passed(driver_ids) ON CONFLICT (step) DO NOTHING;
  INSERT INTO driver_progress (driver_id, signed_up_at, provider, locale, passed, stopped_after, stopped_since)
  SELECT r.id, r.created_at, r.provider, r.locale, r.passed, stop.stopped_after, stop.stopped_since
  FROM (
    SELECT d.id, d.created_at, d.provider, d.locale, array_agg(floor(extract(epoch FROM p.passed_at - d.created_at))::integer ORDER BY i) AS passed
    FROM drivers d CROSS JOIN generate_series(1, (SELECT max(id) FROM progress_steps)) AS i
      LEFT JOIN progress_steps s ON s.id = i
      LEFT JOIN driver_steps_passed(driver_ids) p ON p.driver_id = d.id AND p.step = s.step
    WHERE d.id = ANY (driver_ids)
    GROUP BY d.id
  ) r LEFT JOIN LATERAL funnel_stop(r.created_at, r.passed) stop ON true
  ON CONFLICT (driver_id) DO UPDATE
    SET signed_up_at = excluded.signed_up_at, provider = excluded.provider, locale = excluded.locale, passed = excluded.passed,
      stopped_after = excluded.stopped_after, stopped_since = excluded.stopped_since
    WHERE (driver_progress.signed_up_at, driver_progress.provider, driver_progress.locale, driver_progress.passed,
        driver_progress.stopped_after, driver_progress.stopped_since)
      IS DISTINCT FROM (excluded.signed_up_at, excluded.provider, excluded.locale, excluded.passed, excluded.stopped_after, excluded.stopped_since);
  UPDATE driver_progress SET remind_check_at = '-infinity', expiry_check_at = '-infinity'
  WHERE driver_id = ANY (driver_ids)
    AND (remind_check_at IS DISTINCT FROM '-infinity' OR expiry_check_at IS DISTINCT FROM '-infinity');
$$;
