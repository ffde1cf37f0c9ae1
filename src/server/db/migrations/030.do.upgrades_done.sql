-- One-time upgrades the server makes at start, once each is done: a start reads this row rather
-- than every driver's answers to find there is nothing left to upgrade (lib/answers.ts).
CREATE TABLE upgrades_done (
  name text PRIMARY KEY,
  done_at timestamptz NOT NULL
);
