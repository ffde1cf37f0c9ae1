-- What staff read stays fast at a million drivers.

-- The review queue's search matches any part of an email, a name or a phone's digits (ILIKE
-- '%…%'), which no B-tree can answer; trigram indexes can, for a search of three characters or
-- more. (PGlite loads the extension with the database: db.ts.)
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX drivers_email_trgm_idx ON drivers USING gin (email gin_trgm_ops);
CREATE INDEX drivers_review_name_trgm_idx ON drivers USING gin (review_name gin_trgm_ops);
CREATE INDEX drivers_phone_trgm_idx ON drivers USING gin (phone gin_trgm_ops);

-- The Drivers list's search matches an operator's external id exactly, whoever sent the driver.
CREATE INDEX drivers_external_id_idx ON drivers (external_id) WHERE external_id IS NOT NULL;

-- A driver's timeline reads the notices sent to them (and erasing a driver deletes them).
CREATE INDEX outgoing_notices_driver_idx ON outgoing_notices (driver_id) WHERE driver_id IS NOT NULL;
