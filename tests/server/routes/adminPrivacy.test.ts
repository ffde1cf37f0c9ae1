// Data-access requests and erasure: the export holds the driver's own data in
// clear, and an erasure leaves nothing of the driver in any table but the log and the kept payment
// records, and nothing in the data folder: not in the documents, not in the database's files.
import { execFile } from 'node:child_process';
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { httpErrors } from '@fastify/sensible';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminSettings, parseAdminArgs, runAdminCommand } from '../../../src/cli/admin.js';
import { extensionOf } from '../../../src/server/routes/adminPrivacy.js';
import { signInEmulatorUser } from '../../support/identity.js';
import { runningPostgres } from '../../../tools/postgres.js';
import {
  bearer,
  completeProfile,
  decide,
  json,
  sendVehicle,
  staffKey,
  staffSession,
  startTestServer,
  verifiedDriver,
  type TestDriver,
  type TestServer,
} from '../../support/server.js';
import { expectStaffMessagesFromFiles } from '../../support/staffMessages.js';
import { scaled } from '../../support/machineSpeed.js';

const run = promisify(execFile);

let server: TestServer;
let app: FastifyInstance;
/** A privacy officer, signed in (fresh) as the admin page signs in: export and erase are theirs. */
let officer: Awaited<ReturnType<typeof staffSession>>;
let dataDir: string;

beforeAll(async () => {
  // The database in the data folder, as `npm start` keeps it (DATA_DIR/pglite), so "nothing left
  // in the data folder" covers the database's own files too.
  dataDir = await mkdtemp(join(tmpdir(), 'onramp-privacy-'));
  server = await startTestServer({ dataDir, database: { kind: 'pglite', dir: join(dataDir, 'pglite') } });
  app = server.app;
  officer = await staffSession(app, ['privacy-officer']);
});
afterAll(async () => {
  await server?.close();
  await rm(dataDir, { recursive: true, force: true });
});
expectStaffMessagesFromFiles(() => server);

const UNKNOWN_DRIVER = { message: 'There is no driver with this id.' };

function admin(method: 'GET' | 'POST', url: string, payload?: InjectOptions['payload'], headers: Record<string, string> = bearer(officer.token)) {
  return app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
}

/** Letters only (names are plain text), unlike anything else in the data folder. */
const randomWord = (prefix: string) => `${prefix}${[...randomBytes(8)].map((byte) => String.fromCharCode(97 + (byte % 26))).join('')}`;

interface Person extends TestDriver {
  firstName: string;
  lastName: string;
  ssn: string;
}

/**
 * A driver with a name and SSN of their own (the other helpers' drivers are all Ada Lovelace),
 * sent for review, approved, with a subscription started at the (sandbox) provider.
 */
async function subscribedPerson(): Promise<Person> {
  const driver = await verifiedDriver(app);
  const person = { ...driver, firstName: randomWord('Zen'), lastName: randomWord('Quill'), ssn: `7${String(randomInt(0, 100_000_000)).padStart(8, '0')}` };
  await completeProfile(app, driver, { firstName: person.firstName, lastName: person.lastName, SSN: person.ssn });
  await sendVehicle(app, driver);
  const approved = await decide(app, server.reviewer.key, driver.driverId, 'approve');
  expect(approved.statusCode, approved.body).toBe(200);
  const subscribed = await app.inject({ method: 'GET', url: '/subscription/createStripeSub', headers: bearer(driver.token) });
  expect(subscribed.statusCode, subscribed.body).toBe(200);
  return person;
}

const uploadsOf = async (driverId: string) =>
  (
    await server.db.query<{ id: string; step: string; field: string; storage_name: string; mime: string }>(
      'SELECT id, step, field, storage_name, mime FROM uploads WHERE driver_id = $1 ORDER BY step, field',
      [driverId],
    )
  ).rows;

/** Rows naming the driver: the driver's own, and in every table that has a driver_id column. */
async function rowsByTable(driverId: string): Promise<Record<string, number>> {
  const { rows: tables } = await server.db.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'driver_id' ORDER BY table_name",
  );
  const counts: Record<string, number> = {
    drivers: (await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM drivers WHERE id = $1', [driverId])).rows[0]!.n,
  };
  for (const { table_name } of tables) {
    const { rows } = await server.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${table_name}" WHERE driver_id = $1`, [driverId]);
    counts[table_name] = rows[0]!.n;
  }
  return counts;
}

/** Every file under a folder, recursively. */
async function filesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await filesUnder(path)));
    else if (entry.isFile()) found.push(path);
  }
  return found;
}

/** The files of the data folder that hold any of the texts as bytes (UTF-8, as PostgreSQL stores text). */
async function filesHolding(texts: string[]): Promise<Record<string, string[]>> {
  const holding: Record<string, string[]> = {};
  for (const file of await filesUnder(server.config.dataDir)) {
    const bytes = await readFile(file);
    const found = texts.filter((text) => bytes.includes(Buffer.from(text, 'utf8')));
    if (found.length > 0) holding[file.slice(server.config.dataDir.length)] = found;
  }
  return holding;
}

describe('GET /admin/drivers/:id/export', () => {
  it('needs the admin token', async () => {
    const driver = await verifiedDriver(app);
    expect((await app.inject({ method: 'GET', url: `/admin/drivers/${driver.driverId}/export` })).statusCode).toBe(401);
    const asDriver = await admin('GET', `/admin/drivers/${driver.driverId}/export`, undefined, bearer(driver.token));
    expect(asDriver.statusCode).toBe(403);
    expect((await admin('GET', `/admin/drivers/${driver.driverId}/export`, undefined, bearer('x'.repeat(43)))).statusCode).toBe(401);
  });

  it('answers 404 for an id that names nobody', async () => {
    for (const id of [randomUUID(), 'not-a-uuid', '1']) {
      const response = await admin('GET', `/admin/drivers/${id}/export`);
      expect(response.statusCode).toBe(404);
      expect(json(response)).toEqual(UNKNOWN_DRIVER);
    }
  });

  it('is a zip of the driver’s account, answers in clear, files, reviews and payments, and is logged', async () => {
    const person = await subscribedPerson();
    const response = await admin('GET', `/admin/drivers/${person.driverId}/export`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/zip');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="onramp-driver-${person.driverId}.zip"`);
    expect(response.headers['cache-control']).toBe('private, no-store');

    const zip = unzipSync(new Uint8Array(response.rawPayload));
    const jsonOf = (path: string) => {
      expect(zip[path], path).toBeDefined();
      return JSON.parse(strFromU8(zip[path]!)) as Record<string, unknown>;
    };

    const driver = jsonOf('driver.json');
    expect(driver).toMatchObject({
      id: person.driverId,
      email: person.email,
      phone: person.phone,
      provider: 'password',
      status: 'approved',
      signupIp: '203.0.113.7',
    });
    // No token, no hash of one.
    expect(strFromU8(zip['driver.json']!)).not.toMatch(/token|hash/i);

    // The driver's own data: the SSN in clear.
    const profile = jsonOf('answers/completeProfile.json');
    expect(profile).toMatchObject({
      step: 'completeProfile',
      schemaName: expect.any(String),
      schemaVersion: expect.any(String),
      submittedAt: expect.any(String),
    });
    expect(profile.answers).toMatchObject({ firstName: person.firstName, lastName: person.lastName, SSN: person.ssn });
    expect(jsonOf('answers/addVehicle.json').answers).toMatchObject({ vehicleMake: 'Toyota', plateNumber: 'ABC1234' });
    expect(zip['answers/uploadVehicleImages.json']).toBeDefined();

    // Every photo and document, byte for byte as stored.
    const uploads = await uploadsOf(person.driverId);
    expect(uploads.length).toBe(13);
    for (const upload of uploads) {
      const path = `files/${upload.step}/${upload.field}.${extensionOf(upload.mime)}`;
      expect(zip[path], path).toBeDefined();
      expect(Buffer.from(zip[path]!).equals((await app.uploads.read(upload.storage_name))!), path).toBe(true);
      expect(Object.values((jsonOf(`answers/${upload.step}.json`).files ?? {}) as Record<string, string>)).toContain(path);
    }
    expect(Object.keys(zip).filter((path) => path.startsWith('files/'))).toHaveLength(13);

    expect(jsonOf('reviews.json')).toMatchObject({ decisions: [{ decision: 'approved', reason: null, reviewedBy: server.reviewer.email }], fixesAsked: [] });
    const { rows: subscriptions } = await server.db.query<{ customer_id: string; subscription_id: string }>(
      'SELECT customer_id, subscription_id FROM subscriptions WHERE driver_id = $1',
      [person.driverId],
    );
    expect(jsonOf('payments.json')).toMatchObject({
      subscription: { customerId: subscriptions[0]!.customer_id, subscriptionId: subscriptions[0]!.subscription_id },
    });
    expect(jsonOf('export.json')).toMatchObject({ driverId: person.driverId, missingFiles: [] });

    const { rows: log } = await server.db.query<{ action: string; done_by: string; details: Record<string, number> }>(
      'SELECT action, done_by, details FROM privacy_requests WHERE driver_id = $1',
      [person.driverId],
    );
    expect(log).toEqual([{ action: 'export', done_by: officer.email, details: { answers: 3, files: 13, missingFiles: 0 } }]);
  });
});

describe('POST /admin/drivers/:id/erase', () => {
  it('needs the admin token, and answers 404 for an id that names nobody', async () => {
    const driver = await verifiedDriver(app);
    const payload = { confirm: driver.email };
    expect((await app.inject({ method: 'POST', url: `/admin/drivers/${driver.driverId}/erase`, payload })).statusCode).toBe(401);
    expect((await admin('POST', `/admin/drivers/${driver.driverId}/erase`, payload, bearer(driver.token))).statusCode).toBe(403);
    for (const id of [randomUUID(), 'not-a-uuid']) {
      const response = await admin('POST', `/admin/drivers/${id}/erase`, payload);
      expect(response.statusCode).toBe(404);
      expect(json(response)).toEqual(UNKNOWN_DRIVER);
    }
    expect(await rowsByTable(driver.driverId)).toMatchObject({ drivers: 1 });
  });

  it('refuses without the driver’s own email, and removes nothing', async () => {
    const person = await subscribedPerson();
    const other = await verifiedDriver(app);
    const before = await rowsByTable(person.driverId);
    const files = await uploadsOf(person.driverId);
    for (const [payload, message] of [
      [undefined, /send their email as "confirm"/],
      [{}, /send their email as "confirm"/],
      [{ confirm: '' }, /send their email as "confirm"/],
      [{ confirm: 42 }, /send their email as "confirm"/],
      [[person.email], /must be a JSON object/],
      [{ confirm: person.email, force: true }, /Unknown field: force/],
      [{ confirm: other.email }, /not the email of this driver: nothing was erased/],
    ] as const) {
      const response = await admin('POST', `/admin/drivers/${person.driverId}/erase`, payload as InjectOptions['payload']);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(json<{ message: string }>(response).message).toMatch(message);
    }
    expect(await rowsByTable(person.driverId)).toEqual(before);
    for (const file of files) expect(await app.uploads.read(file.storage_name)).not.toBeNull();
    expect((await app.inject({ method: 'GET', url: `/driver/status/${person.driverId}`, headers: bearer(person.token) })).statusCode).toBe(200);
    // The sign-in account is still there.
    await expect(signInEmulatorUser(person.email)).resolves.toEqual(expect.any(String));
    const { rows } = await server.db.query('SELECT 1 FROM privacy_requests WHERE driver_id = $1', [person.driverId]);
    expect(rows).toEqual([]);
  });

  it('erases nothing while Firebase can’t be reached (503), and erases when sent again', async () => {
    const driver = await verifiedDriver(app);
    const deleteUser = app.identity.deleteUser;
    app.identity.deleteUser = async () => {
      throw httpErrors.serviceUnavailable('Firebase Authentication could not be reached. Please try again in a moment.');
    };
    try {
      const response = await admin('POST', `/admin/drivers/${driver.driverId}/erase`, { confirm: driver.email });
      expect(response.statusCode).toBe(503);
      expect(json(response)).toEqual({ message: 'Firebase Authentication could not be reached, so nothing was erased. Please try again in a moment.' });
    } finally {
      app.identity.deleteUser = deleteUser;
    }
    expect(await rowsByTable(driver.driverId)).toMatchObject({ drivers: 1, sessions: 1 });
    expect((await server.db.query('SELECT 1 FROM privacy_requests WHERE driver_id = $1', [driver.driverId])).rows).toEqual([]);
    // The account already deleted in Firebase (by a try whose database part failed, or by hand) counts as done.
    await app.identity.deleteUser(driver.user.uid);
    const again = await admin('POST', `/admin/drivers/${driver.driverId}/erase`, { confirm: driver.email });
    expect(again.statusCode, again.body).toBe(200);
    expect(await rowsByTable(driver.driverId)).toMatchObject({ drivers: 0, sessions: 0 });
  });

  it('erases the driver: rows, files, sessions, codes and sign-in account; keeps the payment records and the log; leaves nothing in the data folder', async () => {
    const person = await subscribedPerson();
    const bystander = await subscribedPerson();
    const id = person.driverId;
    // Wrong codes leave lockout counters keyed by the driver and by the address (plugins/otpCodes.ts).
    await server.db.query('INSERT INTO code_lockouts (subject, consecutive_failures) VALUES ($1, 3), ($2, 2), ($3, 1)', [
      `driver:${id}:sms`,
      `destination:sms:${person.phone}`,
      `destination:email:${person.email}`,
    ]);
    const files = await uploadsOf(id);
    const { rows: subscriptions } = await server.db.query<{ customer_id: string; subscription_id: string; payment_intent_id: string; status: string }>(
      'SELECT customer_id, subscription_id, payment_intent_id, status FROM subscriptions WHERE driver_id = $1',
      [id],
    );
    expect(subscriptions).toHaveLength(1);
    const { rows: sessions } = await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sessions WHERE driver_id = $1', [id]);
    const traces = [person.email, person.phone.slice(2), person.ssn, person.firstName, person.lastName];
    // Everything is somewhere in the data folder before (the SSN sealed, so only its erasure is checked).
    const before = Object.values(await filesHolding(traces)).flat();
    for (const text of [person.email, person.phone.slice(2), person.firstName, person.lastName]) expect(before).toContain(text);

    const response = await admin('POST', `/admin/drivers/${id}/erase`, { confirm: `  ${person.email.toUpperCase()} ` });
    expect(response.statusCode, response.body).toBe(200);
    expect(json(response)).toEqual({ success: true, erased: { answers: 3, files: 13, sessions: sessions[0]!.n } });

    // Gone for the admin API, the driver's session and Firebase.
    const asReviewer = await admin('GET', `/admin/drivers/${id}`, undefined, bearer(server.reviewer.key));
    expect(asReviewer.statusCode).toBe(404);
    expect(json(asReviewer)).toEqual(UNKNOWN_DRIVER);
    expect((await admin('GET', `/admin/drivers/${id}/export`)).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: `/driver/status/${id}`, headers: bearer(person.token) })).statusCode).toBe(401);
    await expect(signInEmulatorUser(person.email)).rejects.toThrow(/EMAIL_NOT_FOUND|USER_NOT_FOUND|INVALID_LOGIN_CREDENTIALS/);
    // Erased once: a second request finds nobody.
    expect((await admin('POST', `/admin/drivers/${id}/erase`, { confirm: person.email })).statusCode).toBe(404);

    // No row names the driver but the logs, by id alone: the privacy requests and the audit record.
    const left = await rowsByTable(id);
    expect(Object.keys(left)).toEqual(
      expect.arrayContaining([
        'drivers',
        'sessions',
        'otp_codes',
        'uploads',
        'step_answers',
        'subscriptions',
        'outgoing_notices',
        'privacy_requests',
        'audit_events',
      ]),
    );
    // The webhook that tells other systems to forget the driver names them by id alone, as the log does.
    expect(Object.entries(left).filter(([table, n]) => n > 0 && table !== 'privacy_requests' && table !== 'audit_events')).toEqual([['webhook_events', 1]]);
    const { rows: told } = await server.db.query<{ type: string }>('SELECT type FROM webhook_events WHERE driver_id = $1', [id]);
    expect(told).toEqual([{ type: 'driver.erased' }]);
    const { rows: audit } = await server.db.query<{ action: string }>('SELECT action FROM audit_events WHERE driver_id = $1 ORDER BY id', [id]);
    expect(audit.map((row) => row.action)).toEqual(['driver.approve', 'driver.erase']);
    const { rows: lockouts } = await server.db.query<{ subject: string }>('SELECT subject FROM code_lockouts');
    expect(lockouts.filter(({ subject }) => subject.includes(id) || subject.includes(person.email) || subject.includes(person.phone))).toEqual([]);

    // The payment records, without the person; the log, with who did it and counts only.
    const { rows: kept } = await server.db.query(
      'SELECT driver_ref, customer_id, subscription_id, payment_intent_id, status FROM retained_payment_records WHERE driver_ref = $1',
      [id],
    );
    expect(kept).toEqual([{ driver_ref: id, ...subscriptions[0] }]);
    const { rows: log } = await server.db.query<{ action: string; done_by: string; details: Record<string, number> }>(
      'SELECT action, done_by, details FROM privacy_requests WHERE driver_id = $1',
      [id],
    );
    expect(log).toEqual([
      {
        action: 'erase',
        done_by: officer.email,
        details: {
          answers: 3,
          files: 13,
          sessions: sessions[0]!.n,
          codes: expect.any(Number),
          notices: expect.any(Number),
          reviews: 1,
          vehicles: 1,
          lockouts: 3,
          paymentRecordsKept: 1,
        },
      },
    ]);
    expect(JSON.stringify(log)).not.toContain(person.email);

    // The stored documents are removed, and nothing of the driver is left in any file of the data
    // folder: the documents' folder, the scratch folder, the database's tables and its log.
    for (const file of files) expect(await app.uploads.read(file.storage_name)).toBeNull();
    const stored = await readdir(join(server.config.dataDir, 'uploads'));
    for (const file of files) expect(stored).not.toContain(file.storage_name);
    expect(await filesHolding(traces)).toEqual({});
    // Every table was rewritten (the erasures before this one too).
    expect(server.logs.filter((line) => /Rewriting a table after an erasure failed|write-ahead log could not be cleared/.test(line))).toEqual([]);

    // Nobody else was touched.
    expect(await rowsByTable(bystander.driverId)).toMatchObject({ drivers: 1, step_answers: 3, uploads: 13, subscriptions: 1 });
    for (const file of await uploadsOf(bystander.driverId)) expect(await app.uploads.read(file.storage_name)).not.toBeNull();
    expect((await app.inject({ method: 'GET', url: `/driver/status/${bystander.driverId}`, headers: bearer(bystander.token) })).statusCode).toBe(200);
    expect(Object.values(await filesHolding([bystander.email, bystander.firstName])).flat()).toEqual(
      expect.arrayContaining([bystander.email, bystander.firstName]),
    );
  });
});

describe('npm run admin -- export | erase', () => {
  const ID = '3f1c2d4e-0000-4000-8000-00000000abcd';

  it.each([
    [['export', ID], { kind: 'export', driverId: ID, out: null }],
    [['export', ID, '--out', 'ada.zip'], { kind: 'export', driverId: ID, out: 'ada.zip' }],
    [['export', '--out', 'ada.zip', ID], { kind: 'export', driverId: ID, out: 'ada.zip' }],
    [['erase', ID, '--confirm', 'ada@example.com'], { kind: 'erase', driverId: ID, confirm: 'ada@example.com' }],
    [['export'], { kind: 'usage-error', message: 'export takes one driver id.' }],
    [['export', ID, ID], { kind: 'usage-error', message: 'export takes one driver id.' }],
    [['export', ID, '--out'], { kind: 'usage-error', message: 'export takes --out once, with a value.' }],
    [['export', ID, '--confirm', 'x'], { kind: 'usage-error', message: 'Unknown option "--confirm" for export.' }],
    [['erase', ID], { kind: 'usage-error', message: 'erase needs --confirm with the driver’s email, e.g.: erase <driverId> --confirm ada@example.com' }],
    [['erase', '--confirm', 'ada@example.com'], { kind: 'usage-error', message: 'erase takes one driver id.' }],
  ])('reads %j', (args, command) => {
    expect(parseAdminArgs(args)).toEqual(command);
  });

  const environment = (baseUrl: string) => ({ ...process.env, ONRAMP_URL: baseUrl, ONRAMP_STAFF_TOKEN: token, ONRAMP_STAFF_PASSWORD: officer.user.password });
  /** The command as `npm run admin` runs it, in a process of its own: its exit status and what it prints. */
  const cli = (baseUrl: string, ...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', ...args], { cwd: process.cwd(), env: environment(baseUrl) });
  /**
   * The same command through its function, in the test's process: each process loads tsx and the
   * command's modules, seconds of a busy machine's CPU, so only what the process itself adds (its
   * exit status and streams, a usage mistake's lines) is checked in one.
   */
  const inProcess = async (baseUrl: string, ...args: string[]) => {
    const command = parseAdminArgs(args);
    if (command.kind === 'usage-error') throw new Error(command.message);
    const env = environment(baseUrl);
    const settings = command.kind === 'sign-in' ? { baseUrl, token: '' } : adminSettings(env);
    let stdout = '';
    let stderr = '';
    const io = { fetch, out: (line: string) => void (stdout += `${line}\n`), err: (line: string) => void (stderr += `${line}\n`) };
    const code = await runAdminCommand(command, settings, io, env);
    return { code, stdout, stderr };
  };
  let token = '';

  it(
    'exports to a file and erases, against a running server',
    async () => {
      const person = await subscribedPerson();
      const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
      const out = join(dataDir, '..', `onramp-privacy-cli-${randomBytes(4).toString('hex')}.zip`);
      try {
        // A key acts as its person, but is never a fresh sign-in; a mistake in the command is said before any call.
        token = (await staffKey(app, ['privacy-officer'])).key;
        await Promise.all([
          expect(cli(baseUrl, 'export', person.driverId, '--out', out)).rejects.toMatchObject({
            code: 1,
            stderr: expect.stringContaining('Error: Exporting or erasing a driver needs a sign-in in the last 5 minutes. Please sign in again. (HTTP 403)'),
          }),
          expect(cli(baseUrl, 'erase', person.driverId)).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('erase needs --confirm') }),
        ]);
        const signedIn = await inProcess(baseUrl, 'sign-in', officer.email);
        expect(signedIn.stdout, signedIn.stderr).toContain(`Signed in as ${officer.email} (privacy-officer).`);
        token = /ONRAMP_STAFF_TOKEN=(\S+)/.exec(signedIn.stdout)![1]!;
        const exported = await inProcess(baseUrl, 'export', person.driverId, '--out', out);
        expect(exported.stdout).toContain(`Exported driver ${person.driverId} to ${out}`);
        expect((await stat(out)).mode & 0o777).toBe(0o600);
        const zip = unzipSync(new Uint8Array(await readFile(out)));
        expect(JSON.parse(strFromU8(zip['answers/completeProfile.json']!)).answers).toMatchObject({ SSN: person.ssn });
        // An export is never written over another.
        await expect(inProcess(baseUrl, 'export', person.driverId, '--out', out)).resolves.toMatchObject({
          code: 1,
          stderr: expect.stringContaining('exists already'),
        });

        await expect(inProcess(baseUrl, 'erase', person.driverId, '--confirm', 'someone@example.com')).resolves.toMatchObject({
          code: 1,
          stderr: expect.stringContaining('Error: This is not the email of this driver: nothing was erased. Check the driver id. (HTTP 400)'),
        });
        const erased = await cli(baseUrl, 'erase', person.driverId, '--confirm', person.email);
        expect(erased.stdout.trim()).toMatch(
          new RegExp(`^Erased driver ${person.driverId}: 3 answered steps, 13 files, \\d+ sessions, and the sign-in account\\.`),
        );
        expect(await rowsByTable(person.driverId)).toMatchObject({ drivers: 0, step_answers: 0, uploads: 0 });
      } finally {
        await rm(out, { force: true });
      }
      // Three commands, each a process of its own that loads tsx: a busy machine takes seconds each.
    },
    scaled(180_000),
  );
});

describe('on PostgreSQL (DATABASE_URL)', { tags: ['postgresql'] }, () => {
  it('erases in one transaction and rewrites the driver’s tables after it', async () => {
    const postgres = await runningPostgres();
    const pg = await startTestServer({ database: { kind: 'postgres', url: postgres.url } });
    try {
      const driver = await verifiedDriver(pg.app);
      await sendVehicle(pg.app, driver);
      const files = (await pg.db.query<{ storage_name: string }>('SELECT storage_name FROM uploads WHERE driver_id = $1', [driver.driverId])).rows;
      const pgOfficer = await staffSession(pg.app, ['privacy-officer']);
      const exported = await pg.app.inject({ method: 'GET', url: `/admin/drivers/${driver.driverId}/export`, headers: bearer(pgOfficer.token) });
      expect(exported.statusCode, exported.body).toBe(200);
      expect(JSON.parse(strFromU8(unzipSync(new Uint8Array(exported.rawPayload))['answers/completeProfile.json']!)).answers).toMatchObject({
        SSN: '123456789',
      });
      const erased = await pg.app.inject({
        method: 'POST',
        url: `/admin/drivers/${driver.driverId}/erase`,
        headers: bearer(pgOfficer.token),
        payload: { confirm: driver.email },
      });
      expect(erased.statusCode, erased.body).toBe(200);
      expect(json(erased)).toMatchObject({ success: true, erased: { answers: 3, files: 13 } });
      const { rows } = await pg.db.query<{ n: number }>(
        `SELECT (SELECT count(*) FROM drivers WHERE id = $1)::int + (SELECT count(*) FROM step_answers WHERE driver_id = $1)::int
           + (SELECT count(*) FROM uploads WHERE driver_id = $1)::int + (SELECT count(*) FROM sessions WHERE driver_id = $1)::int AS n`,
        [driver.driverId],
      );
      expect(rows[0]!.n).toBe(0);
      for (const file of files) expect(await pg.app.uploads.read(file.storage_name)).toBeNull();
      // Every table was rewritten (a failure is a warning in the log); the WAL is the server's own.
      expect(pg.logs.join('\n')).not.toMatch(/Rewriting a table after an erasure failed|write-ahead log could not be cleared/);
      // The log says who did it and counts, nothing of the person.
      const lines = pg.logs.filter((line) => /"msg":"(Driver erased|Driver data exported)"/.test(line));
      expect(lines).toHaveLength(2);
      for (const line of lines) expect(JSON.parse(line)).toMatchObject({ driverId: driver.driverId, doneBy: pgOfficer.id });
      expect(lines.join('\n')).not.toContain(driver.email);
    } finally {
      await pg.close();
      postgres.remove();
    }
  });
});
