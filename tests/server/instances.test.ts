// Two server processes behind one PostgreSQL, one S3-compatible store, one mail server and one
// Twilio: a driver signs up on one and finishes on the other, an administrator on either sees every
// document, and the /auth limit counts the requests of both (in the database, or in Redis).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeTwilio, type FakeTwilio } from '../support/fakeTwilio.js';
import { createEmulatorUser } from '../support/identity.js';
import { runningPostgres, type TestPostgres } from '../../tools/postgres.js';
import { startRedis } from '../support/redis.js';
import { startS3, type LocalS3 } from '../support/s3.js';
import { formData, profileValues, randomPhone, signUpPayload, startTestServer, vehicleImageValues, vehicleValues } from '../support/server.js';
import { startServerProcess, type ServerProcess } from '../../tools/serverProcess.js';
import type { QueuePage, ReviewDriver } from '../../src/shared/review.js';
import { startSmtpServer, type LocalSmtp } from '../support/smtp.js';
import { scaled } from '../support/machineSpeed.js';

const AUTH_LIMIT = 6;

describe('two server instances', { tags: ['postgresql'] }, () => {
  let postgres: TestPostgres;
  let s3: LocalS3;
  let smtp: LocalSmtp;
  let twilio: FakeTwilio;
  let folder: string;
  let shared: Record<string, string>;
  let a: ServerProcess;
  let b: ServerProcess;
  let reviewerKey: string;

  /** What both instances share; each has its own DATA_DIR, as two machines would. */
  const instance = (name: string, extra: Record<string, string> = {}) =>
    startServerProcess({ ...shared, DATA_DIR: join(folder, name), ...extra }, scaled(30_000));

  beforeAll(async () => {
    [postgres, s3, smtp, twilio] = await Promise.all([runningPostgres(), startS3(), startSmtpServer(), startFakeTwilio()]);
    folder = mkdtempSync(join(tmpdir(), 'onramp-instances-'));
    shared = {
      DATABASE_URL: postgres.url,
      DATA_KEY: randomBytes(32).toString('base64'),
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Onramp <no-reply@onramp.example>',
      TWILIO_ACCOUNT_SID: twilio.accountSid,
      TWILIO_AUTH_TOKEN: twilio.authToken,
      TWILIO_FROM: '+12025550100',
      TWILIO_API_BASE: twilio.url,
      ...s3.env,
      // The limit test names its client address; the journey comes from 127.0.0.1.
      TRUST_PROXY: 'true',
      AUTH_RATE_LIMIT_MAX: String(AUTH_LIMIT),
      STATIC_DIR: join(folder, 'no-web-app'),
    };
    // Started at once, as a deployment's instances are: each runs the migrations, taking turns under
    // their lock (db.ts, migrate); the one that comes second finds nothing left to run.
    // A reviewer with a key, added to the shared database as a script would be (docs/operations.md, "Staff").
    let keeper: Awaited<ReturnType<typeof startTestServer>>;
    [a, b, keeper] = await Promise.all([instance('a'), instance('b'), startTestServer({ database: { kind: 'postgres', url: postgres.url } })]);
    reviewerKey = keeper.reviewer.key;
    await keeper.close();
  }, scaled(120_000));

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await Promise.all([smtp?.close(), twilio?.close(), s3?.close()]);
    postgres?.remove();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  async function call<T = Record<string, unknown>>(
    on: ServerProcess,
    method: string,
    path: string,
    options: { token?: string; body?: unknown; ip?: string } = {},
  ) {
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.ip) headers['x-forwarded-for'] = options.ip;
    let body: BodyInit | undefined;
    if (options.body instanceof FormData) body = options.body;
    else if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await fetch(`${on.url}${path}`, { method, headers, body });
    return { status: response.status, body: (await response.json()) as T };
  }

  const codeIn = (text: string) => /\b(\d{4})\b/.exec(text)?.[1] ?? '';

  it(
    'lets a driver sign up on one and finish on the other, and shows every document on either',
    async () => {
      const user = await createEmulatorUser();
      const phone = randomPhone();
      const signUp = await call<{ token: string; driverId: string }>(a, 'POST', '/auth/driverEmailSignUp', { body: signUpPayload(user, phone) });
      expect(signUp.status).toBe(200);
      const emailCode = codeIn(smtp.received.filter((each) => JSON.stringify(each.to).includes(user.email)).at(-1)?.text ?? '');
      expect(emailCode).toMatch(/^\d{4}$/);
      const verified = await call<{ token: string }>(b, 'POST', '/auth/validateOTP', {
        token: signUp.body.token,
        body: { code: emailCode, email: user.email },
      });
      expect(verified.status).toBe(200);
      const session = verified.body.token;

      expect((await call(a, 'POST', '/auth/sendPhoneOTP', { token: session, body: { phoneNo: phone } })).status).toBe(200);
      const smsCode = codeIn(twilio.sent.filter((each) => each.to === phone).at(-1)!.body);
      expect((await call(b, 'POST', '/auth/validatePhoneOTP', { token: session, body: { code: smsCode, phoneNo: phone } })).status).toBe(200);

      expect((await call(a, 'POST', '/driver/completeProfile', { token: session, body: formData(profileValues()) })).status).toBe(200);
      const photos = await call<{ data: { vehicle: { id: string } } }>(b, 'POST', '/driver/completeVehicleDocs', {
        token: session,
        body: formData(vehicleImageValues()),
      });
      expect(photos.status).toBe(200);
      expect((await call(a, 'POST', '/driver/completeVehicle', { token: session, body: formData(vehicleValues(photos.body.data.vehicle.id)) })).status).toBe(
        200,
      );
      expect((await call(b, 'GET', `/driver/status/${signUp.body.driverId}`, { token: session })).body).toMatchObject({
        data: { status: 'pending', isSessionComplete: true },
      });

      for (const reviewer of [a, b]) {
        const listed = await call<QueuePage>(reviewer, 'GET', `/admin/drivers?q=${encodeURIComponent(user.email)}`, { token: reviewerKey });
        expect(listed.body.drivers.map((each) => each.id)).toEqual([signUp.body.driverId]);
        const shown = await call<ReviewDriver>(reviewer, 'GET', `/admin/drivers/${signUp.body.driverId}`, { token: reviewerKey });
        const documents = shown.body.steps.flatMap((step) => step.fields.flatMap((field) => (field.file ? [field.file] : [])));
        expect(documents).toHaveLength(13);
        for (const document of documents) {
          const image = await fetch(`${reviewer.url}${document.url}`, { headers: { authorization: `Bearer ${reviewerKey}` } });
          expect(image.status, document.url).toBe(200);
          expect(image.headers.get('content-type')).toMatch(/^image\//);
        }
      }
    },
    scaled(60_000),
  );

  it('counts the /auth limit of a client across both', async () => {
    const ip = '198.51.100.77';
    const statuses: number[] = [];
    for (let i = 0; i < AUTH_LIMIT + 1; i++)
      statuses.push((await call(i % 2 === 0 ? a : b, 'POST', '/auth/signIn', { ip, body: { idToken: 'not-a-token' } })).status);
    expect(statuses).toEqual([...Array<number>(AUTH_LIMIT).fill(401), 429]);
  });

  describe('with REDIS_URL', { tags: ['redis'] }, () => {
    it(
      'counts the /auth limit of a client across both in Redis',
      async () => {
        const redis = await startRedis();
        const [c, d] = await Promise.all([instance('c', { REDIS_URL: redis.url }), instance('d', { REDIS_URL: redis.url })]);
        try {
          const ip = '198.51.100.78';
          const statuses: number[] = [];
          for (let i = 0; i < AUTH_LIMIT + 1; i++)
            statuses.push((await call(i % 2 === 0 ? c : d, 'POST', '/auth/signIn', { ip, body: { idToken: 'not-a-token' } })).status);
          expect(statuses).toEqual([...Array<number>(AUTH_LIMIT).fill(401), 429]);
          // Counted in Redis, not in the database.
          const db = new pg.Client(postgres.url);
          await db.connect();
          try {
            expect((await db.query('SELECT key FROM rate_limits WHERE key = $1', [`auth:${ip}`])).rows).toEqual([]);
          } finally {
            await db.end();
          }
        } finally {
          await Promise.all([c.stop(), d.stop()]);
          await redis.stop();
        }
      },
      scaled(60_000),
    );
  });
});
