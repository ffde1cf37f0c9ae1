-- Insights for the operator: where drivers stop, how long each step and each review takes.

-- When the driver had sent what a decision judged (their submitted_at then): the review turnaround
-- is reviewed_at − sent_at. Earlier decisions get the driver's submission if it came before them.
ALTER TABLE driver_reviews ADD COLUMN sent_at timestamptz;
UPDATE driver_reviews r SET sent_at = d.submitted_at FROM drivers d WHERE d.id = r.driver_id AND d.submitted_at <= r.reviewed_at;
-- The fixes a rejection asked for, [{ step, field, reason }]: review_fixes keeps them only until
-- the driver sends the step again, and the most frequent reasons are counted over every decision.
ALTER TABLE driver_reviews ADD COLUMN fixes jsonb NOT NULL DEFAULT '[]';

-- The insights read drivers by sign-up time and decisions by their time.
CREATE INDEX drivers_created_at_idx ON drivers (created_at);
CREATE INDEX driver_reviews_reviewed_at_idx ON driver_reviews (reviewed_at);
