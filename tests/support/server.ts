/**
 * One server per test file: the worker's database (opened once), a temporary
 * DATA_DIR, a movable clock and the log lines it wrote; plus helpers that walk a driver through
 * the API the way the browser does (codes come from /dev/outbox).
 */
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { expect, inject } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import { ADMIN_PREFIX } from '../../src/server/lib/routeTable.js';
import { INTEGRATION_PREFIX, INTEGRATION_ROUTES } from '../../src/shared/review.js';
import { readConfig, type ServerConfig } from '../../src/server/config.js';
import { authEmulatorHost } from '../../src/cli/authEmulator.js';
import { isConnectionFailure, openDb, type Db } from '../../src/server/db/db.js';
import type { OutboxEntry } from '../../src/server/messaging/localOutbox.js';
import { loadSchema } from '../../src/node/projectFiles.js';
import { fixturePayload, formData, type FormValue } from '../../tools/stepPayloads.js';
import { addStaff } from '../../src/server/lib/staffMembers.js';
import type { StaffRole } from '../../src/shared/review.js';
import { checkAnswersAgainstTheDocument } from './documentedAnswers.js';
import { authEmulatorReady, createEmulatorUser, uniqueEmail, type EmulatorUser } from './identity.js';
import { seedPglite } from '../../tools/pgliteTemplate.js';
import { scaled } from './machineSpeed.js';

/** "Now" for the server, moved by tests instead of sleeping. */
export class TestClock {
  offsetMs = 0;
  readonly now = () => new Date(Date.now() + this.offsetMs);
  advance(ms: number) {
    this.offsetMs += ms;
  }
  reset() {
    this.offsetMs = 0;
  }
}

export interface TestServer {
  app: FastifyInstance;
  config: ServerConfig;
  db: Db;
  clock: TestClock;
  /** A staff member with the reviewer role and their key, as a script acts (staffKey). */
  reviewer: TestStaff & { key: string };
  /** Every log line the app wrote (JSON). */
  logs: string[];
  /** Each `{ message }` a route for staff or an integration's system (under /admin, /integration) answered, for staffMessages.ts to check. */
  staffAnswers: { url: string; message: string }[];
  /** Another app on the same database (e.g. a production one); closed with this server. */
  buildAnother(overrides?: Partial<ServerConfig>): Promise<FastifyInstance>;
  /**
   * The clock its instances share, moved to `ms` once none of them has a delivery pass in flight:
   * a notice one claimed before a jump of hours or days would look to another as a claim run out
   * (as after a delivery stuck for minutes, which the jump is not), and be sent twice.
   */
  moveClockTo(ms: number): Promise<void>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /**
   * The embedded database in DATA_DIR/pglite, as `npm start` keeps it, rather than in memory: for
   * a test that reads what the server leaves in its data folder (slower to open).
   */
  databaseOnDisk?: boolean;
}

/**
 * The worker's database, migrated once: the files of a worker run one after another
 * (vitest.config.ts shares modules within a worker), and each file's first server finds it
 * emptied. Servers of one file (buildAnother, a second startTestServer) share it as they are.
 */
let workerDatabase: Promise<Db> | undefined;
let serversOnWorkerDatabase = 0;

/** How long a worker waits for the run's PostgreSQL to start (tests/globalSetup.ts): about 2 s on an idle machine. */
const POSTGRES_START_TIMEOUT_MS = 60_000;

/**
 * A database of the worker's own on the run's PostgreSQL, as production runs: the embedded one
 * costs seconds of CPU to open and more per statement, which made a third of the server tests'
 * time. The embedded database is tested on its own (`databaseOnDisk`, tests/server/db/db.test.ts, `npm run dev`),
 * and is what a worker uses where PostgreSQL is not installed.
 */
async function createWorkerDatabase(): Promise<Db> {
  const url = inject('postgresUrl');
  if (!url) return openDb({ kind: 'pglite', dir: null });
  // Not by process id: a run starts thousands of processes, and ids come round again.
  const name = `onramp_worker_${randomBytes(6).toString('hex')}`;
  const deadline = Date.now() + POSTGRES_START_TIMEOUT_MS;
  for (;;) {
    const client = new pg.Client(url);
    try {
      await client.connect();
      await client.query(`CREATE DATABASE ${name}`);
      break;
    } catch (error) {
      if (!isConnectionFailure(error) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  return openDb({ kind: 'postgres', url: `${url.replace(/\/postgres$/, '')}/${name}` });
}

async function openWorkerDatabase(): Promise<Db> {
  // A failed start is tried again by the next file.
  workerDatabase ??= createWorkerDatabase().catch((error: unknown) => {
    workerDatabase = undefined;
    throw error;
  });
  const db = await workerDatabase;
  if (serversOnWorkerDatabase === 0) {
    const { rows } = await db.query<{ name: string }>(
      "SELECT format('%I', tablename) AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'",
    );
    // As a superuser with triggers off: the audit record refuses TRUNCATE otherwise (migration 010).
    await db.exec(
      `SET session_replication_role = replica; TRUNCATE ${rows.map((row) => row.name).join(', ')} RESTART IDENTITY CASCADE; SET session_replication_role = DEFAULT`,
    );
  }
  serversOnWorkerDatabase++;
  return db;
}

const inMemory = (database: ServerConfig['database']) => database.kind === 'pglite' && database.dir === null;

/** The driver's own calls under /integration (the launch page's and the way back), which answer in the driver's language. */
const DRIVER_INTEGRATION_PATHS = new Set(Object.values(INTEGRATION_ROUTES).map((route) => `${INTEGRATION_PREFIX}${route}`));

/** Whether `url` is a route staff or an integration's system call: the admin API, or the integration API but the driver's calls. */
const readByStaffOrSystems = (url: string) =>
  url.startsWith(`${ADMIN_PREFIX}/`) || (url.startsWith(`${INTEGRATION_PREFIX}/`) && !DRIVER_INTEGRATION_PATHS.has(url.split('?')[0]!));

/** The `message` of a JSON answer staff or an integration's system read. */
function staffMessageOf(url: string, type: unknown, payload: unknown): string | undefined {
  if (!readByStaffOrSystems(url) || typeof payload !== 'string' || !/^application\/json(;|$)/.test(String(type))) return undefined;
  const message = (JSON.parse(payload) as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : undefined;
}

export async function startTestServer(overrides: Partial<ServerConfig> = {}, options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'onramp-test-'));
  const configured = readConfig({
    DATA_DIR: dataDir,
    DATA_KEY: randomBytes(32).toString('base64'),
    STATIC_DIR: join(dataDir, 'dist'),
    LOG_LEVEL: 'info',
    AUTH_RATE_LIMIT_MAX: '100000',
    // The run's own (tests/globalSetup.ts).
    FIREBASE_AUTH_EMULATOR_HOST: authEmulatorHost(),
  });
  const config: ServerConfig = {
    ...configured,
    database: options.databaseOnDisk ? configured.database : { kind: 'pglite', dir: null },
    ...overrides,
  };
  const shared = inMemory(config.database);
  // A new data folder's embedded database, migrated already (tools/pgliteTemplate.ts).
  if (config.database.kind === 'pglite' && config.database.dir) await seedPglite(config.database.dir);
  const db = shared ? await openWorkerDatabase() : await openDb(config.database);
  const closeDatabase = async () => {
    if (shared) serversOnWorkerDatabase--;
    else await db.close();
  };
  const clock = new TestClock();
  const logs: string[] = [];
  const logStream = { write: (line: string) => void logs.push(line) };
  const apps: FastifyInstance[] = [];
  const staffAnswers: TestServer['staffAnswers'] = [];
  const build = async (more: Partial<ServerConfig> = {}) => {
    const app = await buildApp({ ...config, ...more }, { db, now: clock.now, logStream });
    app.addHook('onSend', async (request, reply, payload) => {
      const message = staffMessageOf(request.url, reply.getHeader('content-type'), payload);
      if (message !== undefined) staffAnswers.push({ url: request.url, message });
      return payload;
    });
    // A test may close an instance itself: it then delivers nothing more, and is not closed again.
    app.addHook('onClose', async () => {
      const at = apps.indexOf(app);
      if (at >= 0) apps.splice(at, 1);
    });
    await app.ready();
    await checkAnswersAgainstTheDocument(app);
    apps.push(app);
    return app;
  };
  const app = await build().catch(async (error: unknown) => {
    await closeDatabase();
    throw error;
  });
  // The server is built while the emulator may still be starting; the tests sign drivers up once it is.
  await authEmulatorReady();
  return {
    app,
    config,
    db,
    clock,
    reviewer: await staffKey(app, ['reviewer']),
    logs,
    staffAnswers,
    buildAnother: build,
    async moveClockTo(ms) {
      await Promise.all(apps.map((each) => each.messaging.deliverDue()));
      clock.offsetMs = ms - Date.now();
    },
    async close() {
      for (const each of [...apps]) await each.close();
      await closeDatabase();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export const json = <T = Record<string, unknown>>(response: LightMyRequestResponse) => response.json() as T;

/** GET /driver/status/:id's `data` for an email driver who verified email and phone and completed the profile, unless said otherwise. */
export const statusData = (data: Record<string, unknown>) => ({
  isSubscriptionPaid: false,
  isEmailVerified: true,
  isPhoneVerified: true,
  isProfileComplete: true,
  isSocial: false,
  ...data,
});
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A valid US number (+1, area code and exchange 2-9) no other test is likely to use. */
export const randomPhone = () => `+1${randomInt(2, 10)}${randomInt(10, 100)}${randomInt(2, 10)}${String(randomInt(0, 1_000_000)).padStart(6, '0')}`;

export async function outbox(app: FastifyInstance): Promise<OutboxEntry[]> {
  return json<OutboxEntry[]>(await app.inject({ method: 'GET', url: '/dev/outbox' }));
}

/**
 * Every notice due, delivered by the instances given, and what their local outboxes hold. Each
 * instance also delivers in the background: a notice one of them has claimed is in flight until
 * it is marked sent, so the outboxes are read once no due notice is left pending.
 */
export async function deliveredBy(db: Db, ...apps: FastifyInstance[]): Promise<OutboxEntry[]> {
  await expect
    .poll(
      async () => {
        await Promise.all(apps.map((app) => app.messaging.deliverDue()));
        const { rows } = await db.query<{ pending: number }>(
          "SELECT count(*)::int AS pending FROM outgoing_notices WHERE status = 'pending' AND next_attempt_at <= $1",
          [apps[0]!.now()],
        );
        return rows[0]?.pending;
      },
      { timeout: scaled(15_000) },
    )
    .toBe(0);
  return (await Promise.all(apps.map(outbox))).flat();
}

/** The newest code sent to an email or phone. */
export async function latestCode(app: FastifyInstance, to: string): Promise<string> {
  const entry = (await outbox(app)).find((each) => each.to === to && 'code' in each);
  if (!entry || !('code' in entry)) throw new Error(`No code was sent to ${to}`);
  return entry.code;
}

export function signUpPayload(user: EmulatorUser, phone: string, overrides: Record<string, unknown> = {}) {
  return {
    email: user.email,
    phoneNo: phone,
    password: user.password,
    confirmPassword: user.password,
    referalCode: null,
    accept: true,
    twilioCheck: true,
    ip: '203.0.113.7',
    idToken: user.idToken,
    ...overrides,
  };
}

export interface TestDriver {
  user: EmulatorUser;
  email: string;
  phone: string;
  driverId: string;
  /** The sign-up token that alone may resend and check the sign-up's email code. */
  signUpToken: string;
  /** Set once the email code was verified: the session. */
  token: string;
}

/** Signs up through POST /auth/driverEmailSignUp (no code verified yet). */
export async function signUp(app: FastifyInstance, overrides: Record<string, unknown> = {}): Promise<TestDriver> {
  const user = await createEmulatorUser();
  const phone = typeof overrides.phoneNo === 'string' ? overrides.phoneNo : randomPhone();
  const response = await app.inject({ method: 'POST', url: '/auth/driverEmailSignUp', payload: signUpPayload(user, phone, overrides) });
  if (response.statusCode !== 200) throw new Error(`sign-up failed: ${response.statusCode} ${response.body}`);
  const body = json<{ driverId: string; token: string }>(response);
  return { user, email: user.email, phone, driverId: body.driverId, signUpToken: body.token, token: '' };
}

/** POST /auth/validateOTP as the sign-up's page sends it: the code and email, with the sign-up token. */
export const validateEmailCode = (app: FastifyInstance, driver: TestDriver, code: string, email = driver.email) =>
  app.inject({ method: 'POST', url: '/auth/validateOTP', headers: bearer(driver.signUpToken), payload: { code, email } });

/** Signs up and verifies the email code: the driver holds a session token. */
export async function verifiedDriver(app: FastifyInstance): Promise<TestDriver> {
  const driver = await signUp(app);
  const response = await validateEmailCode(app, driver, await latestCode(app, driver.email));
  if (response.statusCode !== 200) throw new Error(`email code failed: ${response.statusCode} ${response.body}`);
  return { ...driver, token: String(json(response).token) };
}

export async function verifyPhone(app: FastifyInstance, driver: TestDriver): Promise<void> {
  const headers = bearer(driver.token);
  await app.inject({ method: 'POST', url: '/auth/sendPhoneOTP', headers, payload: { phoneNo: driver.phone } });
  const code = await latestCode(app, driver.phone);
  const response = await app.inject({ method: 'POST', url: '/auth/validatePhoneOTP', headers, payload: { code, phoneNo: driver.phone } });
  if (response.statusCode !== 200) throw new Error(`phone code failed: ${response.statusCode} ${response.body}`);
}

// ---- files and multipart forms ----

export { file, formData, type FormValue, JPEG_BYTES, PNG_BYTES, solidImage } from '../../tools/stepPayloads.js';
export const TEXT_BYTES = Buffer.from('this is a text file, not a photo\n');

/** The profile form, from its valid fixture. */
export const profileValues = (overrides: Record<string, FormValue> = {}): Record<string, FormValue> => ({ ...fixturePayload('completeProfile'), ...overrides });

/** The six vehicle photos, as schemas/vehicle-images.schema.json names them. */
export const VEHICLE_IMAGE_FIELDS = Object.keys(loadSchema('vehicle-images').properties as object);

/** The six vehicle photos, from their valid fixture. */
export const vehicleImageValues = (overrides: Record<string, FormValue> = {}): Record<string, FormValue> => ({
  ...fixturePayload('uploadVehicleImages'),
  ...overrides,
});

/** A valid vehicle form, from its fixture: expiry dates a year ahead. */
export const vehicleValues = (vehicleId: string, overrides: Record<string, FormValue> = {}): Record<string, FormValue> => ({
  ...fixturePayload('addVehicle', { vehicle_id: vehicleId }),
  ...overrides,
});

/** The bank form's body, from its valid fixture. */
export const bankValues = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({ ...fixturePayload('addBank'), ...overrides });

export function post(app: FastifyInstance, url: string, token: string | null, payload: InjectOptions['payload'] | FormData) {
  return app.inject({ method: 'POST', url, headers: token ? bearer(token) : {}, payload: payload as InjectOptions['payload'] });
}

/** Completes the profile; an email driver's phone is verified first, as the server asks (spec §4's order). */
export async function completeProfile(app: FastifyInstance, driver: TestDriver, overrides: Record<string, FormValue> = {}) {
  const { rows } = await app.db.query<{ waiting: boolean }>(
    "SELECT provider = 'password' AND phone_verified_at IS NULL AS waiting FROM drivers WHERE id = $1",
    [driver.driverId],
  );
  if (rows[0]?.waiting) await verifyPhone(app, driver);
  const response = await post(app, '/driver/completeProfile', driver.token, formData(profileValues(overrides)));
  if (response.statusCode !== 200) throw new Error(`profile failed: ${response.statusCode} ${response.body}`);
}

/** Uploads the six photos; completes the profile first if the driver has none (the server asks for it). */
export async function uploadVehicleImages(app: FastifyInstance, driver: TestDriver): Promise<string> {
  const { rows } = await app.db.query<{ done: boolean }>('SELECT profile_completed_at IS NOT NULL AS done FROM drivers WHERE id = $1', [driver.driverId]);
  if (!rows[0]?.done) await completeProfile(app, driver);
  const response = await post(app, '/driver/completeVehicleDocs', driver.token, formData(vehicleImageValues()));
  if (response.statusCode !== 200) throw new Error(`vehicle images failed: ${response.statusCode} ${response.body}`);
  return json<{ data: { vehicle: { id: string } } }>(response).data.vehicle.id;
}

/** Profile (if missing), photos and the vehicle form: the driver is then waiting for review. Returns the vehicle id. */
export async function sendVehicle(app: FastifyInstance, driver: TestDriver, overrides: Record<string, FormValue> = {}): Promise<string> {
  const vehicleId = await uploadVehicleImages(app, driver);
  const response = await post(app, '/driver/completeVehicle', driver.token, formData(vehicleValues(vehicleId, overrides)));
  if (response.statusCode !== 200) throw new Error(`vehicle failed: ${response.statusCode} ${response.body}`);
  return vehicleId;
}

/**
 * Pays the weekly subscription as the card page does with the payment sandbox: the subscription
 * (GET /subscription/createStripeSub), the sandbox's test card that succeeds, then
 * POST /subscription/validateStripeSub, which must answer that it is paid.
 */
export async function paySubscription(app: FastifyInstance, driver: TestDriver): Promise<void> {
  const created = await app.inject({ method: 'GET', url: '/subscription/createStripeSub', headers: bearer(driver.token) });
  if (created.statusCode !== 200) throw new Error(`subscription failed: ${created.statusCode} ${created.body}`);
  const { clientSecret, stripeSubscriptionId, paymentIntentId } = json<{ clientSecret: string; stripeSubscriptionId: string; paymentIntentId: string }>(
    created,
  );
  const card = { number: '4242 4242 4242 4242', expiry: '12 / 40', cvc: '123' };
  const confirmed = await app.inject({ method: 'POST', url: '/sandbox/confirmPayment', payload: { clientSecret, ...card } });
  if (confirmed.statusCode !== 200) throw new Error(`card payment failed: ${confirmed.statusCode} ${confirmed.body}`);
  const validated = await post(app, '/subscription/validateStripeSub', driver.token, { stripeSubscriptionId, paymentIntentId });
  if (json(validated).status !== true) throw new Error(`subscription not paid: ${validated.statusCode} ${validated.body}`);
}

/** The version of a driver's data a decision must name, as the admin list shows it. */
export async function reviewVersion(app: FastifyInstance, driverId: string): Promise<number> {
  const { rows } = await app.db.query<{ review_version: number }>('SELECT review_version FROM drivers WHERE id = $1', [driverId]);
  return rows[0]?.review_version ?? 0;
}

/** POST /admin/drivers/:id/approve or /reject as the review page sends it: with the review version it read. */
export async function decide(app: FastifyInstance, adminToken: string, driverId: string, action: 'approve' | 'reject', reason?: string) {
  const payload = { reviewVersion: await reviewVersion(app, driverId), ...(reason === undefined ? {} : { reason }) };
  return app.inject({ method: 'POST', url: `/admin/drivers/${driverId}/${action}`, headers: bearer(adminToken), payload });
}

/** A driver who sent the vehicle and was approved by an administrator (POST /admin/drivers/:id/approve). */
export async function approvedDriver(server: TestServer): Promise<TestDriver> {
  const driver = await verifiedDriver(server.app);
  await sendVehicle(server.app, driver);
  const response = await decide(server.app, server.reviewer.key, driver.driverId, 'approve');
  if (response.statusCode !== 200) throw new Error(`approval failed: ${response.statusCode} ${response.body}`);
  return driver;
}

// ---- staff ----

/** Who a test acts as on the admin side: a named staff member with roles, as the audit record names them. */
export interface TestStaff {
  id: string;
  email: string;
  roles: StaffRole[];
}

/** The terminal, as `npm run admin -- staff add` names itself in the audit record. */
const TEST_TERMINAL = { staffId: null, actor: 'terminal:tests', ip: null };

/**
 * A staff member with `roles` and a key of theirs, as a script acts (docs/operations.md, "Staff"): the key never
 * idles out, so a test may move the clock. No Firebase account: a key needs none.
 */
export async function staffKey(app: FastifyInstance, roles: StaffRole[], email = uniqueEmail(roles.join('-'))): Promise<TestStaff & { key: string }> {
  const id = await addStaff(app, { email, roles, firebaseUid: `test-${randomBytes(8).toString('hex')}` }, TEST_TERMINAL);
  const { key } = await app.staffAuth.createKey(id, 'tests');
  return { id, email, roles, key };
}

export interface TestIntegration {
  id: string;
  name: string;
  key: string;
  signingSecret: string;
}

/** An integration made by an owner over the admin API, with its first key and signing secret, and the URLs its drivers may return to. */
export async function integration(app: FastifyInstance, returnUrls: string[] = ['https://partner.example/onramp/done']): Promise<TestIntegration> {
  const owner = await staffKey(app, ['owner']);
  const name = `Partner ${randomBytes(4).toString('hex')}`;
  const response = await app.inject({ method: 'POST', url: '/admin/integrations', headers: bearer(owner.key), payload: { name, returnUrls } });
  if (response.statusCode !== 201) throw new Error(`integration not made: ${response.statusCode} ${response.body}`);
  return json<TestIntegration>(response);
}

/** A staff member with `roles` and their Firebase account (the emulator; password TEST_PASSWORD), as an owner adds one: who signs in on the page. */
export async function staffAccount(app: FastifyInstance, roles: StaffRole[]): Promise<TestStaff & { user: EmulatorUser }> {
  const user = await createEmulatorUser(uniqueEmail(roles.join('-')));
  const id = await addStaff(app, { email: user.email, roles, firebaseUid: user.uid }, TEST_TERMINAL);
  return { id, email: user.email, roles, user };
}

/**
 * A staff member with `roles` signed in as the page does: their Firebase account's ID token
 * exchanged at POST /admin/session for a staff session. The sign-in is fresh (export, erase).
 */
export async function staffSession(app: FastifyInstance, roles: StaffRole[]): Promise<TestStaff & { token: string; user: EmulatorUser }> {
  const staff = await staffAccount(app, roles);
  const response = await app.inject({ method: 'POST', url: '/admin/session', payload: { idToken: staff.user.idToken } });
  if (response.statusCode !== 200) throw new Error(`staff sign-in failed: ${response.statusCode} ${response.body}`);
  return { ...staff, token: String(json(response).token) };
}
