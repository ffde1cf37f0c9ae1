-- The flow owns its steps' names: the database keeps none of them in its code.
--
-- The steps whose passing is a fact on the driver's row (sign-up, the codes, approval, the paid
-- subscription) are recorded in progress_steps under the fact's own name, "driver." and the name of
-- the flow's "milestones" key (a step's name has no dot, so none can be taken for one): the flow
-- says which step each fact passes (lib/insights.ts), so such a step can be renamed there freely.
-- Every other step is recorded under the name its answers are stored by, as before.
CREATE OR REPLACE FUNCTION driver_steps_passed(driver_ids uuid[]) RETURNS TABLE (driver_id uuid, step text, passed_at timestamptz) LANGUAGE sql STABLE AS $$
  SELECT d.id, milestone.step, milestone.passed_at
  FROM drivers d LEFT JOIN subscriptions s ON s.driver_id = d.id,
    LATERAL (VALUES ('driver.signedUp', d.created_at), ('driver.emailVerified', d.email_verified_at), ('driver.phoneVerified', d.phone_verified_at),
      ('driver.approved', CASE WHEN d.status = 'approved' THEN d.reviewed_at END),
      ('driver.subscribed', CASE WHEN d.is_subscription_paid THEN s.updated_at END)) AS milestone (step, passed_at)
  WHERE d.id = ANY (driver_ids) AND milestone.passed_at IS NOT NULL
  UNION ALL
  SELECT a.driver_id, a.step, a.submitted_at FROM step_answers a WHERE a.driver_id = ANY (driver_ids)
$$;

-- Today's records of those facts, under the steps migration 013 named them by.
UPDATE progress_steps p SET step = fact.name
FROM (VALUES ('signup', 'driver.signedUp'), ('verifyEmail', 'driver.emailVerified'), ('verifyPhone', 'driver.phoneVerified'),
  ('profileApproved', 'driver.approved'), ('success', 'driver.subscribed')) AS fact (step, name)
WHERE p.step = fact.step;

-- The flow's "renamed" steps whose stored rows were moved to the new name (lib/stepRenames.ts):
-- each rename is made once, by the first server to start with it, however many start at once.
CREATE TABLE step_renames (
  from_step text NOT NULL,
  to_step text NOT NULL,
  renamed_at timestamptz NOT NULL,
  PRIMARY KEY (from_step, to_step)
);
