/** What `npm run start:prod` asks for: the settings a production server starts with. */
import { randomBytes } from 'node:crypto';

/** Everything production asks for, but the database. */
export const productionEnv = (dataDir: string): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  NODE_ENV: 'production',
  DATA_DIR: dataDir,
  DATA_KEY: randomBytes(32).toString('base64'),
  FIREBASE_PROJECT_ID: 'onramp-production-test',
  FIREBASE_API_KEY: 'AIzaTestKey',
  STRIPE_SECRET_KEY: 'sk_test_production',
  STRIPE_PUBLISHABLE_KEY: 'pk_test_production',
  STRIPE_PRICE_ID: 'price_weekly',
  STRIPE_WEBHOOK_SECRET: 'whsec_production',
  SMTP_URL: 'smtps://onramp:secret@smtp.onramp.example:465',
  MAIL_FROM: 'Onramp <no-reply@onramp.example>',
  TWILIO_ACCOUNT_SID: 'AC00000000000000000000000000000000',
  TWILIO_AUTH_TOKEN: 'twilio-auth-token',
  TWILIO_FROM: '+12025550100',
  PORT: '0',
  // No balancer to wait for on SIGTERM (src/server/shutdown.ts).
  SHUTDOWN_GRACE_MS: '0',
});
