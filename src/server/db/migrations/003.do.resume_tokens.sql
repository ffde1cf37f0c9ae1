-- Resume links (POST /admin/drivers/:id/resume-link) carry their own kind of token: single-use,
-- short-lived, and not a session. Only GET /driver/status/:id accepts one, and it deletes the row
-- in the same transaction that starts the driver's normal session (research: "Resume token
-- single-use, expires <= 15 min, exchanged at once"). Every existing row is a normal session.

ALTER TABLE sessions ADD COLUMN kind text NOT NULL DEFAULT 'session' CHECK (kind IN ('session', 'resume'));
