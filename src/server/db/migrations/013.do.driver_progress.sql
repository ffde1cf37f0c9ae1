-- Each driver's progress, kept up to date as they move on: when they passed each step,
-- one compact row per driver, so the insights read 100,000 drivers without joining their answers
-- (lib/insights.ts) and the reminder pass finds who stopped where without reading them one by one.
--
-- A step's time is what the rest of the database says (what the insights read before this table):
-- sign-up, email and phone verification and the subscription from the driver's row, approval from
-- the latest decision, and every other step from its answers (the last time they were sent). The
-- row is written by triggers, in the transaction of the change it follows, whichever code or script
-- makes it; erasing the driver deletes it with them.

-- The steps progress is kept for, numbered once: a driver's times are an array indexed by these
-- numbers, so a step added to the flow is recorded (and numbered) the first time a driver passes it.
-- Numbers can be skipped (an insert that lost a race, or rolled back): those places stay NULL.
CREATE TABLE progress_steps (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  step text NOT NULL UNIQUE
);

CREATE TABLE driver_progress (
  driver_id uuid PRIMARY KEY REFERENCES drivers (id) ON DELETE CASCADE,
  -- The driver's sign-up, method and language: what the insights select by.
  signed_up_at timestamptz NOT NULL,
  provider text NOT NULL,
  locale text NOT NULL,
  -- passed[s.id]: when the driver passed progress_steps s, in whole seconds after signed_up_at
  -- (NULL: not passed). Integers: sorted and subtracted far faster than times or JSON.
  passed integer[] NOT NULL
) WITH (fillfactor = 80);
-- Room left in each page: a row rewritten as the driver moves on stays in its page (a HOT update, no
-- new index entry, its old version pruned without a VACUUM, which PGlite never runs on its own).
CREATE INDEX driver_progress_signed_up_at_idx ON driver_progress (signed_up_at);

-- When the drivers passed each step they have passed, by the flow's step name.
CREATE FUNCTION driver_steps_passed(driver_ids uuid[]) RETURNS TABLE (driver_id uuid, step text, passed_at timestamptz) LANGUAGE sql STABLE AS $$
  SELECT d.id, milestone.step, milestone.passed_at
  FROM drivers d LEFT JOIN subscriptions s ON s.driver_id = d.id,
    LATERAL (VALUES ('signup', d.created_at), ('verifyEmail', d.email_verified_at), ('verifyPhone', d.phone_verified_at),
      ('profileApproved', CASE WHEN d.status = 'approved' THEN d.reviewed_at END),
      ('success', CASE WHEN d.is_subscription_paid THEN s.updated_at END)) AS milestone (step, passed_at)
  WHERE d.id = ANY (driver_ids) AND milestone.passed_at IS NOT NULL
  UNION ALL
  SELECT a.driver_id, a.step, a.submitted_at FROM step_answers a WHERE a.driver_id = ANY (driver_ids)
$$;

-- Writes the drivers' progress rows again from the tables above (none for a driver who is gone; an
-- unchanged row is left as it is).
-- Their rows are locked first: two transactions changing the same driver's progress at once write
-- it one after the other, the second seeing what the first committed, so neither change is lost.
CREATE FUNCTION record_driver_progress(driver_ids uuid[]) RETURNS void LANGUAGE sql AS $$
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
$$;

-- The triggers run once per statement, with the rows it changed: a bulk load records its drivers
-- together rather than one by one.
CREATE FUNCTION driver_progress_after_drivers() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM record_driver_progress(ARRAY(SELECT id FROM new_rows));
  ELSE
    PERFORM record_driver_progress(ARRAY(
      SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE (n.created_at, n.provider, n.locale, n.email_verified_at, n.phone_verified_at, n.status, n.reviewed_at, n.is_subscription_paid)
        IS DISTINCT FROM (o.created_at, o.provider, o.locale, o.email_verified_at, o.phone_verified_at, o.status, o.reviewed_at, o.is_subscription_paid)));
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION driver_progress_after_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM record_driver_progress(ARRAY(SELECT DISTINCT driver_id FROM new_rows));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM record_driver_progress(ARRAY(SELECT driver_id FROM old_rows UNION SELECT driver_id FROM new_rows));
  ELSE
    PERFORM record_driver_progress(ARRAY(SELECT DISTINCT driver_id FROM old_rows));
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER driver_progress_insert AFTER INSERT ON drivers
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION driver_progress_after_drivers();
CREATE TRIGGER driver_progress_update AFTER UPDATE ON drivers
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION driver_progress_after_drivers();
CREATE TRIGGER driver_progress_insert AFTER INSERT ON step_answers
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION driver_progress_after_rows();
CREATE TRIGGER driver_progress_update AFTER UPDATE ON step_answers
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION driver_progress_after_rows();
CREATE TRIGGER driver_progress_delete AFTER DELETE ON step_answers
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION driver_progress_after_rows();
CREATE TRIGGER driver_progress_insert AFTER INSERT ON subscriptions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION driver_progress_after_rows();
CREATE TRIGGER driver_progress_update AFTER UPDATE ON subscriptions
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION driver_progress_after_rows();

-- Today's drivers.
SELECT record_driver_progress(ARRAY(SELECT id FROM drivers));
