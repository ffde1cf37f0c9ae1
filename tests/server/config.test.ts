import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, prepareLocalSecrets, readConfig } from '../../src/server/config.js';

const scratch = mkdtempSync(join(tmpdir(), 'onramp-config-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
// The local secrets, written as a server's start writes them (main.ts) before it reads its configuration.
for (const dir of ['', 'defaults', 'pg', 'messaging', 'storage', 'stripe']) prepareLocalSecrets({ DATA_DIR: join(scratch, dir) });

/** What ADMIN_TOKEN was set to before staff accounts: it opens nothing now. */
const PRODUCTION_ADMIN_TOKEN = 'prod-admin-token-0123456789abcdefghij';
/** What production needs besides its secrets: the database and the Firebase project. */
const PRODUCTION_SERVICES = {
  DATABASE_URL: 'postgres://onramp:secret@db.internal:5432/onramp',
  FIREBASE_PROJECT_ID: 'onramp-prod',
  FIREBASE_API_KEY: 'AIzaExample',
  SMTP_URL: 'smtps://onramp:secret@smtp.onramp.example:465',
  MAIL_FROM: 'Onramp <no-reply@onramp.example>',
  TWILIO_ACCOUNT_SID: 'AC00000000000000000000000000000000',
  TWILIO_AUTH_TOKEN: 'twilio-auth-token',
  TWILIO_FROM: '+12025550100',
};
const PRODUCTION_STRIPE = {
  STRIPE_SECRET_KEY: 'sk_live_example',
  STRIPE_PUBLISHABLE_KEY: 'pk_live_example',
  STRIPE_PRICE_ID: 'price_weekly',
  STRIPE_WEBHOOK_SECRET: 'whsec_example',
};

describe('readConfig', () => {
  it('defaults to the local stand-ins', () => {
    const config = readConfig({ DATA_DIR: join(scratch, 'defaults') });
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 3000,
      production: false,
      database: { kind: 'pglite', dir: join(scratch, 'defaults', 'pglite') },
      firebaseProjectId: 'demo-onramp',
      firebaseAuthEmulatorHost: '127.0.0.1:9099',
      trustProxy: false,
    });
    expect(config.staticDir.endsWith('/dist')).toBe(true);
  });

  it('reads without writing: a missing local data key is refused, naming its file and how it is made', () => {
    const dataDir = join(scratch, 'unprepared');
    expect(() => readConfig({ DATA_DIR: dataDir })).toThrow(
      new ConfigError(`${join(dataDir, 'data-key')} is missing: \`npm start\` makes it on its first start, or set DATA_KEY.`),
    );
    expect(existsSync(dataDir)).toBe(false);
    // With DATA_KEY set, the local owner's password is all that is missing: no owner is made.
    expect(readConfig({ DATA_DIR: dataDir, DATA_KEY: randomBytes(32).toString('base64') }).localOwner).toBeNull();
    expect(existsSync(dataDir)).toBe(false);
  });

  it('generates the local data key once as the server starts, readable only by its owner, and reuses it', () => {
    const dataDir = join(scratch, 'key');
    prepareLocalSecrets({ DATA_DIR: dataDir });
    const first = readConfig({ DATA_DIR: dataDir });
    prepareLocalSecrets({ DATA_DIR: dataDir });
    const keyFile = join(dataDir, 'data-key');
    expect(existsSync(keyFile)).toBe(true);
    expect(statSync(keyFile).mode & 0o077).toBe(0);
    expect(Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64')).toEqual(first.dataKeys[0]?.key);
    expect(readConfig({ DATA_DIR: dataDir }).dataKeys).toEqual(first.dataKeys);
  });

  it('uses PostgreSQL when DATABASE_URL is set', () => {
    expect(readConfig({ DATA_DIR: join(scratch, 'pg'), DATABASE_URL: 'postgres://u@db/onramp' }).database).toEqual({
      kind: 'postgres',
      url: 'postgres://u@db/onramp',
    });
  });

  it('refuses to start in production without DATA_KEY, saying what to set', () => {
    expect(() => readConfig({ NODE_ENV: 'production', DATA_DIR: join(scratch, 'prod') })).toThrow(ConfigError);
    expect(() => readConfig({ NODE_ENV: 'production', DATA_DIR: join(scratch, 'prod') })).toThrow(/DATA_KEY is required in production/);
    expect(existsSync(join(scratch, 'prod', 'data-key'))).toBe(false);
  });

  // The same refusals as the built server prints them (tests/server/production.test.ts runs one as a process).
  it.each([
    ['STRIPE_SECRET_KEY', /^STRIPE_SECRET_KEY is required in production/],
    ['FIREBASE_PROJECT_ID', /^FIREBASE_PROJECT_ID is required in production/],
    ['DATABASE_URL', /^DATABASE_URL is required in production/],
    ['SMTP_URL', /^SMTP_URL and MAIL_FROM are required in production/],
    ['TWILIO_AUTH_TOKEN', /^With TWILIO_ACCOUNT_SID and TWILIO_FROM set, TWILIO_AUTH_TOKEN must be set too\./],
  ])('refuses to start in production without %s, in one line, saying what to set', (missing, message) => {
    const env: Record<string, string> = {
      NODE_ENV: 'production',
      DATA_DIR: join(scratch, `prod-without-${missing}`),
      DATA_KEY: randomBytes(32).toString('base64'),
      ...PRODUCTION_STRIPE,
      ...PRODUCTION_SERVICES,
    };
    delete env[missing];
    let refusal: unknown;
    try {
      readConfig(env);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(ConfigError);
    expect((refusal as Error).message).toMatch(message);
    expect((refusal as Error).message).not.toContain('\n');
    expect(existsSync(join(scratch, `prod-without-${missing}`))).toBe(false);
  });

  it('refuses the Auth emulator in production and has no emulator by default there', () => {
    const env = {
      NODE_ENV: 'production',
      DATA_DIR: join(scratch, 'prod'),
      DATA_KEY: randomBytes(32).toString('base64'),
      ...PRODUCTION_STRIPE,
      ...PRODUCTION_SERVICES,
    };
    expect(readConfig(env).firebaseAuthEmulatorHost).toBeNull();
    expect(() => readConfig({ ...env, FIREBASE_AUTH_EMULATOR_HOST: '127.0.0.1:9099' })).toThrow(/must not be set in production/);
  });

  it('needs no admin token in production: staff sign in as themselves, and ADMIN_TOKEN opens nothing', () => {
    const env = {
      NODE_ENV: 'production',
      DATA_DIR: join(scratch, 'prod-admin'),
      DATA_KEY: randomBytes(32).toString('base64'),
      ...PRODUCTION_STRIPE,
      ...PRODUCTION_SERVICES,
    };
    expect(readConfig(env)).not.toHaveProperty('adminToken');
    expect(readConfig({ ...env, ADMIN_TOKEN: PRODUCTION_ADMIN_TOKEN })).not.toHaveProperty('adminToken');
    // No emulator there, so no ready-made owner.
    expect(readConfig(env).localOwner).toBeNull();
  });

  it('refuses to start in production without PostgreSQL or a real Firebase project, saying what to set', () => {
    const env = {
      NODE_ENV: 'production',
      DATA_DIR: join(scratch, 'prod-services'),
      DATA_KEY: randomBytes(32).toString('base64'),
      ...PRODUCTION_STRIPE,
      ...PRODUCTION_SERVICES,
    };
    expect(readConfig(env).database).toEqual({ kind: 'postgres', url: PRODUCTION_SERVICES.DATABASE_URL });
    expect(() => readConfig({ ...env, DATABASE_URL: '' })).toThrow(/^DATABASE_URL is required in production/);
    expect(() => readConfig({ ...env, DATABASE_URL: 'mysql://db/onramp' })).toThrow('DATABASE_URL must start with postgres:// or postgresql://, not mysql://.');
    expect(() => readConfig({ ...env, FIREBASE_PROJECT_ID: '' })).toThrow(/^FIREBASE_PROJECT_ID is required in production/);
    expect(() => readConfig({ ...env, FIREBASE_PROJECT_ID: 'demo-onramp' })).toThrow(/^FIREBASE_PROJECT_ID is required in production/);
    expect(() => readConfig({ ...env, FIREBASE_API_KEY: '' })).toThrow(/^FIREBASE_API_KEY is required in production/);
  });

  it('delivers by SMTP and Twilio when they are set, by the local outbox otherwise, and checks their settings', () => {
    const dataDir = join(scratch, 'messaging');
    expect(readConfig({ DATA_DIR: dataDir }).messaging).toEqual({ email: { kind: 'local' }, sms: { kind: 'local' } });
    const env = {
      DATA_DIR: dataDir,
      SMTP_URL: 'smtp://mail.local:2525',
      MAIL_FROM: 'no-reply@onramp.example',
      TWILIO_ACCOUNT_SID: 'AC1',
      TWILIO_AUTH_TOKEN: 't',
      TWILIO_FROM: 'MG0123456789abcdef0123456789abcdef',
      TWILIO_API_BASE: 'http://127.0.0.1:4010',
    };
    expect(readConfig(env).messaging).toEqual({
      email: { kind: 'smtp', url: 'smtp://mail.local:2525', from: 'no-reply@onramp.example' },
      sms: { kind: 'twilio', accountSid: 'AC1', authToken: 't', from: 'MG0123456789abcdef0123456789abcdef', apiBase: 'http://127.0.0.1:4010' },
    });
    expect(() => readConfig({ ...env, SMTP_URL: 'http://mail.local' })).toThrow('SMTP_URL must start with smtp:// or smtps://, not http://.');
    expect(() => readConfig({ ...env, MAIL_FROM: '' })).toThrow(/^With SMTP_URL set, MAIL_FROM must be set too/);
    expect(() => readConfig({ ...env, MAIL_FROM: 'Onramp' })).toThrow(/^MAIL_FROM must be an email address/);
    expect(() => readConfig({ ...env, TWILIO_FROM: '2025550100' })).toThrow(/^TWILIO_FROM must be a phone number in E\.164 form/);
    expect(() => readConfig({ ...env, TWILIO_AUTH_TOKEN: '' })).toThrow('With TWILIO_ACCOUNT_SID and TWILIO_FROM set, TWILIO_AUTH_TOKEN must be set too.');
  });

  it('keeps documents on disk by default, in S3 with S3_BUCKET, and counts limits in the database or Redis', () => {
    const dataDir = join(scratch, 'storage');
    expect(readConfig({ DATA_DIR: dataDir })).toMatchObject({ storage: { kind: 'disk' }, sharedCounters: { kind: 'database' } });
    expect(readConfig({ DATA_DIR: dataDir, S3_BUCKET: 'docs' }).storage).toEqual({ kind: 's3', bucket: 'docs', region: 'us-east-1', forcePathStyle: false });
    expect(readConfig({ DATA_DIR: dataDir, S3_BUCKET: 'docs', S3_ENDPOINT: 'http://127.0.0.1:9000', S3_REGION: 'auto' }).storage).toEqual({
      kind: 's3',
      bucket: 'docs',
      region: 'auto',
      endpoint: 'http://127.0.0.1:9000',
      forcePathStyle: true,
    });
    expect(() => readConfig({ DATA_DIR: dataDir, S3_ENDPOINT: 'http://127.0.0.1:9000' })).toThrow(/need S3_BUCKET/);
    expect(readConfig({ DATA_DIR: dataDir, REDIS_URL: 'redis://127.0.0.1:6379' }).sharedCounters).toEqual({ kind: 'redis', url: 'redis://127.0.0.1:6379' });
    expect(() => readConfig({ DATA_DIR: dataDir, REDIS_URL: 'http://x' })).toThrow('REDIS_URL must start with redis:// or rediss://, not http://.');
  });

  it('uses the payment sandbox and the $199/week plan by default', () => {
    const config = readConfig({ DATA_DIR: join(scratch, 'defaults') });
    expect(config.payments).toEqual({ kind: 'sandbox' });
    expect(config.subscriptionPlan).toEqual({ amountCents: 19_900, currency: 'usd', interval: 'week' });
  });

  it('uses Stripe when STRIPE_SECRET_KEY is set, and requires its other settings', () => {
    const dataDir = join(scratch, 'stripe');
    expect(() => readConfig({ DATA_DIR: dataDir, STRIPE_SECRET_KEY: 'sk_test_x' })).toThrow(
      'With STRIPE_SECRET_KEY set, STRIPE_PUBLISHABLE_KEY and STRIPE_PRICE_ID must be set too.',
    );
    const config = readConfig({
      DATA_DIR: dataDir,
      STRIPE_SECRET_KEY: 'sk_test_x',
      STRIPE_PUBLISHABLE_KEY: 'pk_test_x',
      STRIPE_PRICE_ID: 'price_x',
      STRIPE_API_BASE: 'http://127.0.0.1:12111',
    });
    expect(config.payments).toEqual({
      kind: 'stripe',
      secretKey: 'sk_test_x',
      publishableKey: 'pk_test_x',
      priceId: 'price_x',
      webhookSecret: null,
      apiBase: { host: '127.0.0.1', port: 12111, protocol: 'http' },
    });
  });

  it('refuses the payment sandbox in production, and Stripe there without a webhook secret', () => {
    const env = {
      NODE_ENV: 'production',
      DATA_DIR: join(scratch, 'prod-pay'),
      DATA_KEY: randomBytes(32).toString('base64'),
      ...PRODUCTION_SERVICES,
    };
    expect(() => readConfig(env)).toThrow('STRIPE_SECRET_KEY is required in production: without it subscriptions would be paid with test cards.');
    expect(() => readConfig({ ...env, ...PRODUCTION_STRIPE, STRIPE_WEBHOOK_SECRET: '' })).toThrow(
      'With STRIPE_SECRET_KEY set, STRIPE_WEBHOOK_SECRET must be set too.',
    );
    expect(readConfig({ ...env, ...PRODUCTION_STRIPE }).payments.kind).toBe('stripe');
  });

  it('generates the local owner’s address and password once, readable only by its owner, and another owner for another data folder', () => {
    const dataDir = join(scratch, 'owner');
    prepareLocalSecrets({ DATA_DIR: dataDir });
    const first = readConfig({ DATA_DIR: dataDir });
    prepareLocalSecrets({ DATA_DIR: dataDir });
    expect(first.localOwner).toEqual({
      email: expect.stringMatching(/^owner-[0-9a-f]{8}@onramp\.local$/),
      password: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
    });
    const files = { 'local-owner-address': first.localOwner?.email, 'local-owner-password': first.localOwner?.password };
    for (const [name, value] of Object.entries(files)) {
      const file = join(dataDir, name);
      expect(statSync(file).mode & 0o077).toBe(0);
      expect(readFileSync(file, 'utf8').trim()).toBe(value);
    }
    expect(readConfig({ DATA_DIR: dataDir }).localOwner).toEqual(first.localOwner);
    const otherDir = join(scratch, 'another-owner');
    prepareLocalSecrets({ DATA_DIR: otherDir });
    expect(readConfig({ DATA_DIR: otherDir }).localOwner?.email).not.toBe(first.localOwner?.email);
  });

  it('reads PUBLIC_URL without its trailing slash, and refuses what is not an http(s) address', () => {
    expect(readConfig({ DATA_DIR: scratch }).publicUrl).toBeNull();
    expect(readConfig({ DATA_DIR: scratch, PUBLIC_URL: 'https://onramp.example.com/' }).publicUrl).toBe('https://onramp.example.com');
    expect(readConfig({ DATA_DIR: scratch, PUBLIC_URL: 'https://example.com/drivers/' }).publicUrl).toBe('https://example.com/drivers');
    expect(() => readConfig({ DATA_DIR: scratch, PUBLIC_URL: 'onramp.example.com' })).toThrow(/PUBLIC_URL must be/);
    expect(() => readConfig({ DATA_DIR: scratch, PUBLIC_URL: 'javascript:alert(1)' })).toThrow(
      'PUBLIC_URL must start with http:// or https://, not javascript://.',
    );
    // Its message never repeats an address that holds a password.
    expect(() => readConfig({ DATA_DIR: scratch, PUBLIC_URL: 'https://admin:s3cret@onramp.example.com' })).toThrow(
      /^PUBLIC_URL must be a plain http\(s\) address such as https:\/\/onramp\.example\.com\.$/,
    );
  });

  it('refuses a DATA_KEY that is not 32 bytes', () => {
    expect(() => readConfig({ DATA_DIR: scratch, DATA_KEY: 'c2hvcnQ=' })).toThrow(/32-byte key/);
  });

  it('reads DATA_KEY alone as the one key, "0", and DATA_KEYS or DATA_KEYS_FILE as a ring, the current key first', () => {
    const [a, b] = [randomBytes(32), randomBytes(32)];
    expect(readConfig({ DATA_DIR: scratch, DATA_KEY: a.toString('base64') }).dataKeys).toEqual([{ id: '0', key: a }]);
    const ring = [
      { id: '2026-12', key: b },
      { id: '0', key: a },
    ];
    expect(readConfig({ DATA_DIR: scratch, DATA_KEYS: `2026-12:${b.toString('base64')}, 0:${a.toString('base64')}` }).dataKeys).toEqual(ring);
    const file = join(scratch, 'data-keys');
    writeFileSync(file, `2026-12:${b.toString('base64')}\n0:${a.toString('base64')}\n`);
    expect(readConfig({ DATA_DIR: scratch, DATA_KEYS_FILE: file }).dataKeys).toEqual(ring);
  });

  it('refuses data keys it cannot read, saying what is wrong', () => {
    const key = randomBytes(32).toString('base64');
    expect(() => readConfig({ DATA_DIR: scratch, DATA_KEY: key, DATA_KEYS: `a:${key}` })).toThrow(
      new ConfigError('Set one of DATA_KEY, DATA_KEYS and DATA_KEYS_FILE, not DATA_KEY and DATA_KEYS.'),
    );
    expect(() => readConfig({ DATA_DIR: scratch, DATA_KEYS: key })).toThrow(
      new ConfigError('DATA_KEYS must be a list of id:base64key, each id 1 to 32 letters, digits, "-" or "_" (the current key first).'),
    );
    expect(() => readConfig({ DATA_DIR: scratch, DATA_KEYS: `a:${key},a:${key}` })).toThrow(new ConfigError('DATA_KEYS names the key "a" twice.'));
    expect(() => readConfig({ DATA_DIR: scratch, DATA_KEYS: 'a:c2hvcnQ=' })).toThrow(
      new ConfigError(`DATA_KEYS's key "a" must be a base64-encoded 32-byte key (make one with: openssl rand -base64 32).`),
    );
    expect(() => readConfig({ DATA_DIR: scratch, DATA_KEYS_FILE: join(scratch, 'no-such-file') })).toThrow(
      new ConfigError(`DATA_KEYS_FILE (${join(scratch, 'no-such-file')}) cannot be read.`),
    );
  });

  it('refuses a DATA_DIR inside STATIC_DIR, where uploads could be served', () => {
    expect(() => readConfig({ DATA_DIR: join(scratch, 'dist', '.data'), STATIC_DIR: join(scratch, 'dist') })).toThrow(/must not be inside STATIC_DIR/);
  });

  it('reads the rate limit numbers, and refuses nonsense', () => {
    expect(readConfig({ DATA_DIR: scratch, AUTH_RATE_LIMIT_MAX: '5', AUTH_RATE_LIMIT_WINDOW_MS: '1000' }).authRateLimit).toEqual({ max: 5, windowMs: 1000 });
    expect(() => readConfig({ DATA_DIR: scratch, PORT: 'eighty' })).toThrow(/PORT must be a whole number/);
  });

  it('waits 10 s for the balancer and 30 s for requests in flight on SIGTERM unless told otherwise, and refuses nonsense', () => {
    expect(readConfig({ DATA_DIR: scratch }).shutdown).toEqual({ graceMs: 10_000, drainMs: 30_000 });
    expect(readConfig({ DATA_DIR: scratch, SHUTDOWN_GRACE_MS: '0', SHUTDOWN_DRAIN_MS: '5000' }).shutdown).toEqual({ graceMs: 0, drainMs: 5000 });
    expect(() => readConfig({ DATA_DIR: scratch, SHUTDOWN_GRACE_MS: '10s' })).toThrow('SHUTDOWN_GRACE_MS must be a whole number of at least 0, got "10s".');
    expect(() => readConfig({ DATA_DIR: scratch, SHUTDOWN_DRAIN_MS: '-1' })).toThrow('SHUTDOWN_DRAIN_MS must be a whole number of at least 0, got "-1".');
  });

  it('reads METRICS_TOKEN, refusing one short enough to guess without repeating it', () => {
    expect(readConfig({ DATA_DIR: scratch }).metricsToken).toBeNull();
    const token = randomBytes(32).toString('base64');
    expect(readConfig({ DATA_DIR: scratch, METRICS_TOKEN: token }).metricsToken).toBe(token);
    for (const given of ['short-token', `${token} more`]) {
      expect(() => readConfig({ DATA_DIR: scratch, METRICS_TOKEN: given })).toThrow(
        'METRICS_TOKEN must be at least 22 characters with no spaces (make one with: openssl rand -base64 32).',
      );
    }
  });
});
