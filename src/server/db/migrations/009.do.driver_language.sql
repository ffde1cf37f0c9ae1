-- The language a driver reads Onramp in: the notices sent to them (approved, rejected,
-- payment failed…) go out in it. Set at sign-up, and kept up to date by every change the driver
-- sends from the app (sessions.ts), so it is the language they last used.
ALTER TABLE drivers ADD COLUMN locale text NOT NULL DEFAULT 'en';
