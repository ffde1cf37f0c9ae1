-- Running totals for the insights over long ranges (lib/insights.ts): at a million drivers, reading
-- every driver's times and every decision for two years takes seconds; these tables hold, per month
-- of sign-up (the funnel) and per day of decision (the reviews), per sign-in method and language,
-- how many drivers or decisions fell into each bucket of time, so the same figures are sums over a
-- few thousand rows. Triggers record each change to them in the change's transaction, whichever
-- code or script makes it (as driver_progress is kept, migration 013), as rows of their own in the
-- *_changes tables, only ever added: the drivers of a month all count in the same rows, and a
-- sign-up that changed them would wait for every other sign-up's transaction to end. A background
-- pass (fold_running_totals, every minute) adds the changes into the totals; the insights read both.
--
-- The times are kept as a DDSketch does (Masson, Rim and Lee, VLDB 2019): a time of t seconds falls in
-- bucket ceil(log_γ t), γ = 1.0202, and a bucket's times are all within 1 % of the value it stands
-- for, 2γᵏ/(γ + 1); so a median or p90 read from the buckets is within 1 % of the one read from the
-- times themselves. A time of 0 or less is bucket -1 (it stands for 0).
CREATE FUNCTION time_bucket(seconds double precision) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN seconds <= 0 THEN -1 ELSE ceil(ln(seconds) / ln(1.0202))::integer END
$$;
-- The time a bucket stands for, in seconds.
CREATE FUNCTION time_bucket_value(bucket integer) RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN bucket < 0 THEN 0 ELSE 2 * 1.0202::double precision ^ bucket / (1.0202 + 1) END
$$;

-- The funnel's steps with the one before each (NULL for the first): a step's time is the time since that one.
CREATE VIEW funnel_order AS
  SELECT id, funnel_index, lag(id) OVER (ORDER BY funnel_index) AS previous_id FROM progress_steps WHERE funnel_index IS NOT NULL;

-- The rows a driver's progress adds to funnel_totals: one for the driver, one per funnel step passed,
-- with the bucket of the time since the step before (NULL: the step before was not passed, or there
-- is none). The insights read a range's drivers so when some of its months are not whole.
CREATE FUNCTION funnel_rows(p driver_progress) RETURNS TABLE (month date, provider text, locale text, step integer, bucket integer)
LANGUAGE sql STABLE AS $$
  SELECT date_trunc('month', p.signed_up_at AT TIME ZONE 'UTC')::date, p.provider, p.locale, s.funnel_index,
    CASE WHEN s.funnel_index IS NOT NULL AND p.passed[s.previous_id] IS NOT NULL THEN time_bucket(greatest(p.passed[s.id] - p.passed[s.previous_id], 0)) END
  FROM (SELECT NULL::integer AS id, NULL::integer AS funnel_index, NULL::integer AS previous_id UNION ALL SELECT * FROM funnel_order) s
  WHERE s.funnel_index IS NULL OR p.passed[s.id] IS NOT NULL
$$;

-- The drivers who signed up in a month with a method and a language: step NULL counts them all, a
-- step the drivers who passed it, in the bucket of the time they took since the step before.
CREATE TABLE funnel_totals (
  month date NOT NULL,
  provider text NOT NULL,
  locale text NOT NULL,
  step integer,
  bucket integer,
  drivers integer NOT NULL,
  UNIQUE NULLS NOT DISTINCT (month, provider, locale, step, bucket)
);

CREATE TABLE funnel_changes (LIKE funnel_totals);

-- Takes the progress rows `removed` out of the totals and puts `added` in.
CREATE FUNCTION record_funnel_totals(removed driver_progress[], added driver_progress[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO funnel_changes (month, provider, locale, step, bucket, drivers)
  SELECT f.month, f.provider, f.locale, f.step, f.bucket, sum(c.sign)
  FROM (SELECT r, -1 AS sign FROM unnest(removed) AS r UNION ALL SELECT r, 1 FROM unnest(added) AS r) c, LATERAL funnel_rows(c.r) f
  GROUP BY 1, 2, 3, 4, 5 HAVING sum(c.sign) <> 0
$$;

-- Every driver's totals written again: when the funnel's order changes (lib/funnelOrder.ts), and here.
CREATE FUNCTION rebuild_funnel_totals() RETURNS void LANGUAGE sql AS $$
  DELETE FROM funnel_changes;
  DELETE FROM funnel_totals;
  INSERT INTO funnel_totals (month, provider, locale, step, bucket, drivers)
  SELECT f.month, f.provider, f.locale, f.step, f.bucket, count(*) FROM driver_progress p, LATERAL funnel_rows(p) f GROUP BY 1, 2, 3, 4, 5;
$$;

-- Each decision made on a day on a driver with a method and a language, by its decision and the
-- bucket of its turnaround (NULL: when the driver sent it is not known).
-- Keyed by day and bucket first: the insights read a range's days in that order and add up each
-- bucket as they go, without sorting (and the planner, told how many there are, knows to).
CREATE TABLE review_totals (
  day date NOT NULL,
  bucket integer,
  provider text NOT NULL,
  locale text NOT NULL,
  decision text NOT NULL,
  decisions integer NOT NULL,
  UNIQUE NULLS NOT DISTINCT (day, bucket, provider, locale, decision)
);
CREATE STATISTICS review_totals_buckets (ndistinct) ON day, bucket FROM review_totals;
CREATE TABLE review_changes (LIKE review_totals);
-- And the fixes they asked for, by reason as written (without the spaces around it).
CREATE TABLE review_fix_totals (
  day date NOT NULL,
  provider text NOT NULL,
  locale text NOT NULL,
  reason text,
  fixes integer NOT NULL,
  UNIQUE NULLS NOT DISTINCT (day, provider, locale, reason)
);
CREATE TABLE review_fix_changes (LIKE review_fix_totals);

-- Takes the decisions `removed` out of the totals and puts `added` in, each under its driver's method
-- and language (`groups`: driver_progress rows, theirs now or as they were).
CREATE FUNCTION record_review_totals(removed driver_reviews[], added driver_reviews[], groups driver_progress[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO review_changes (day, bucket, provider, locale, decision, decisions)
  SELECT ((c.r).reviewed_at AT TIME ZONE 'UTC')::date, time_bucket(date_part('epoch', (c.r).reviewed_at - (c.r).sent_at)),
    g.provider, g.locale, (c.r).decision, sum(c.sign)
  FROM (SELECT r, -1 AS sign FROM unnest(removed) AS r UNION ALL SELECT r, 1 FROM unnest(added) AS r) c
    JOIN unnest(groups) AS g ON g.driver_id = (c.r).driver_id
  GROUP BY 1, 2, 3, 4, 5 HAVING sum(c.sign) <> 0;
  INSERT INTO review_fix_changes (day, provider, locale, reason, fixes)
  SELECT ((c.r).reviewed_at AT TIME ZONE 'UTC')::date, g.provider, g.locale, btrim(f ->> 'reason'), sum(c.sign)
  FROM (SELECT r, -1 AS sign FROM unnest(removed) AS r UNION ALL SELECT r, 1 FROM unnest(added) AS r) c
    JOIN unnest(groups) AS g ON g.driver_id = (c.r).driver_id, jsonb_array_elements((c.r).fixes) AS f
  GROUP BY 1, 2, 3, 4 HAVING sum(c.sign) <> 0;
$$;

CREATE FUNCTION rebuild_review_totals() RETURNS void LANGUAGE sql AS $$
  DELETE FROM review_changes;
  DELETE FROM review_fix_changes;
  DELETE FROM review_totals;
  DELETE FROM review_fix_totals;
  INSERT INTO review_totals (day, bucket, provider, locale, decision, decisions)
  SELECT (r.reviewed_at AT TIME ZONE 'UTC')::date, time_bucket(date_part('epoch', r.reviewed_at - r.sent_at)), p.provider, p.locale, r.decision, count(*)
  FROM driver_reviews r JOIN driver_progress p USING (driver_id) GROUP BY 1, 2, 3, 4, 5;
  INSERT INTO review_fix_totals (day, provider, locale, reason, fixes)
  SELECT (r.reviewed_at AT TIME ZONE 'UTC')::date, p.provider, p.locale, btrim(f ->> 'reason'), count(*)
  FROM driver_reviews r JOIN driver_progress p USING (driver_id), jsonb_array_elements(r.fixes) AS f WHERE r.fixes <> '[]' GROUP BY 1, 2, 3, 4;
$$;

-- The changes recorded so far added into the totals, and gone from the changes, in one transaction:
-- each change is taken by one pass (another server's waits for its rows, then finds them gone), and
-- a change whose transaction has not ended is left for the next. The totals' rows are changed in key
-- order, so two passes wait for each other rather than deadlock.
CREATE FUNCTION fold_running_totals() RETURNS void LANGUAGE sql AS $$
  WITH taken AS (DELETE FROM funnel_changes RETURNING *)
  INSERT INTO funnel_totals AS t (month, provider, locale, step, bucket, drivers)
  SELECT month, provider, locale, step, bucket, sum(drivers) FROM taken GROUP BY 1, 2, 3, 4, 5 HAVING sum(drivers) <> 0 ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (month, provider, locale, step, bucket) DO UPDATE SET drivers = t.drivers + excluded.drivers;
  WITH taken AS (DELETE FROM review_changes RETURNING *)
  INSERT INTO review_totals AS t (day, bucket, provider, locale, decision, decisions)
  SELECT day, bucket, provider, locale, decision, sum(decisions) FROM taken GROUP BY 1, 2, 3, 4, 5 HAVING sum(decisions) <> 0 ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (day, bucket, provider, locale, decision) DO UPDATE SET decisions = t.decisions + excluded.decisions;
  WITH taken AS (DELETE FROM review_fix_changes RETURNING *)
  INSERT INTO review_fix_totals AS t (day, provider, locale, reason, fixes)
  SELECT day, provider, locale, reason, sum(fixes) FROM taken GROUP BY 1, 2, 3, 4 HAVING sum(fixes) <> 0 ORDER BY 1, 2, 3, 4
  ON CONFLICT (day, provider, locale, reason) DO UPDATE SET fixes = t.fixes + excluded.fixes;
$$;

-- A driver's progress changing: their funnel rows move, and when their method or language changes, so
-- do their decisions.
CREATE FUNCTION running_totals_after_progress() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM record_funnel_totals('{}', ARRAY(SELECT n::driver_progress FROM new_rows n));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM record_funnel_totals(ARRAY(SELECT o::driver_progress FROM old_rows o JOIN new_rows n USING (driver_id) WHERE (o.signed_up_at, o.provider, o.locale, o.passed) IS DISTINCT FROM (n.signed_up_at, n.provider, n.locale, n.passed)),
      ARRAY(SELECT n::driver_progress FROM old_rows o JOIN new_rows n USING (driver_id) WHERE (o.signed_up_at, o.provider, o.locale, o.passed) IS DISTINCT FROM (n.signed_up_at, n.provider, n.locale, n.passed)));
    PERFORM record_review_totals(
      ARRAY(SELECT r FROM driver_reviews r JOIN old_rows o USING (driver_id) JOIN new_rows n USING (driver_id) WHERE (o.provider, o.locale) IS DISTINCT FROM (n.provider, n.locale)), '{}',
      ARRAY(SELECT o::driver_progress FROM old_rows o JOIN new_rows n USING (driver_id) WHERE (o.provider, o.locale) IS DISTINCT FROM (n.provider, n.locale)));
    PERFORM record_review_totals('{}',
      ARRAY(SELECT r FROM driver_reviews r JOIN old_rows o USING (driver_id) JOIN new_rows n USING (driver_id) WHERE (o.provider, o.locale) IS DISTINCT FROM (n.provider, n.locale)),
      ARRAY(SELECT n::driver_progress FROM old_rows o JOIN new_rows n USING (driver_id) WHERE (o.provider, o.locale) IS DISTINCT FROM (n.provider, n.locale)));
  ELSE
    PERFORM record_funnel_totals(ARRAY(SELECT o::driver_progress FROM old_rows o), '{}');
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION running_totals_after_reviews() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM record_review_totals('{}', ARRAY(SELECT n::driver_reviews FROM new_rows n), ARRAY(SELECT p FROM driver_progress p WHERE driver_id IN (SELECT driver_id FROM new_rows)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM record_review_totals(ARRAY(SELECT o::driver_reviews FROM old_rows o), ARRAY(SELECT n::driver_reviews FROM new_rows n),
      ARRAY(SELECT p FROM driver_progress p WHERE driver_id IN (SELECT driver_id FROM old_rows UNION SELECT driver_id FROM new_rows)));
  ELSE
    PERFORM record_review_totals(ARRAY(SELECT o::driver_reviews FROM old_rows o), '{}', ARRAY(SELECT p FROM driver_progress p WHERE driver_id IN (SELECT driver_id FROM old_rows)));
  END IF;
  RETURN NULL;
END $$;

-- A driver erased: their progress goes first, and its funnel rows with it, then their decisions
-- leave the totals under the method and language it said. (Left to the cascade, their decisions and
-- progress would both go before either table's statement trigger ran: the decisions' trigger finds
-- no progress and leaves them.)
CREATE FUNCTION running_totals_before_driver_goes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  progress driver_progress[] := ARRAY(SELECT p FROM driver_progress p WHERE p.driver_id = OLD.id);
BEGIN
  DELETE FROM driver_progress WHERE driver_id = OLD.id;
  PERFORM record_review_totals(ARRAY(SELECT r FROM driver_reviews r WHERE r.driver_id = OLD.id), '{}', progress);
  RETURN OLD;
END $$;
CREATE TRIGGER running_totals_delete BEFORE DELETE ON drivers FOR EACH ROW EXECUTE FUNCTION running_totals_before_driver_goes();

CREATE TRIGGER running_totals_insert AFTER INSERT ON driver_progress
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION running_totals_after_progress();
CREATE TRIGGER running_totals_update AFTER UPDATE ON driver_progress
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION running_totals_after_progress();
CREATE TRIGGER running_totals_delete AFTER DELETE ON driver_progress
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION running_totals_after_progress();
CREATE TRIGGER running_totals_insert AFTER INSERT ON driver_reviews
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION running_totals_after_reviews();
CREATE TRIGGER running_totals_update AFTER UPDATE ON driver_reviews
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION running_totals_after_reviews();
CREATE TRIGGER running_totals_delete AFTER DELETE ON driver_reviews
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION running_totals_after_reviews();

-- The stalled drivers of a range are counted from the index alone, with its method and language.
DROP INDEX driver_progress_stopped_after_idx;
CREATE INDEX driver_progress_stopped_after_idx ON driver_progress (stopped_after, signed_up_at, driver_id) INCLUDE (stopped_since, provider, locale);

-- Today's drivers and decisions.
SELECT rebuild_funnel_totals();
SELECT rebuild_review_totals();
