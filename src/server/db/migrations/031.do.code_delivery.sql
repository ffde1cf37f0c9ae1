-- Whether each one-time code reached the driver: only codes delivered (or still being sent) count
-- toward the hourly limits of sends, so a driver who asks again while the mail server or Twilio is
-- away is not locked out by codes that never came (plugins/otpCodes.ts). Codes from before were
-- counted whatever became of them, and still are.
ALTER TABLE otp_codes ADD COLUMN delivery text NOT NULL DEFAULT 'delivered' CHECK (delivery IN ('sending', 'delivered', 'undelivered'));
ALTER TABLE otp_codes ALTER COLUMN delivery SET DEFAULT 'sending';
