// The production database path: the same migrations and queries on a real PostgreSQL server
// (DATABASE_URL), started here in a temporary folder, and what happens when that server goes away,
// comes back, or stops answering under the running app. `npm test` installs Debian's postgresql
// where it can; where it is missing the test is skipped, and the run says so (its `postgresql` tag).
import { readdirSync } from 'node:fs';
import pg from 'pg';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, POOL_SIZE } from '../../src/server/db/db.js';
import { HOLDER_STATEMENT } from '../../src/server/plugins/sessions.js';
import { PROJECT_ROOT } from '../../src/node/projectFiles.js';
import { runningPostgres, type TestPostgres } from '../../tools/postgres.js';
import type { Insights } from '../../src/shared/review.js';
import { expectedFigures, seedDrivers, writeSeed } from '../support/insightsSeed.js';
import {
  approvedDriver,
  bearer,
  completeProfile,
  deliveredBy,
  json,
  staffKey,
  verifiedDriver,
  startTestServer,
  statusData,
  verifyPhone,
  type TestServer,
} from '../support/server.js';
import { scaled } from '../support/machineSpeed.js';

const MIGRATIONS = join(PROJECT_ROOT, 'src', 'server', 'db', 'migrations');
const UNAVAILABLE = { message: 'We can’t reach our records right now. Please try again in a minute.' };

const DAY_MS = 24 * 3600 * 1000;

describe('with DATABASE_URL (PostgreSQL)', { tags: ['postgresql'] }, () => {
  let postgres: TestPostgres;
  let server: TestServer;

  beforeAll(async () => {
    postgres = await runningPostgres();
    // The client's wait for a statement shortened in the address, as an operator may (POSTGRES_TIMEOUTS are the defaults).
    server = await startTestServer({ database: { kind: 'postgres', url: `${postgres.url}?query_timeout=2000` } });
  });

  afterAll(async () => {
    await server?.close();
    postgres?.remove();
  });

  it('runs the migrations and walks a driver from sign-up to a saved profile', async () => {
    const driver = await verifiedDriver(server.app);
    await verifyPhone(server.app, driver);
    await completeProfile(server.app, driver);
    const status = await server.app.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(driver.token) });
    expect(json(status)).toEqual({ data: statusData({ status: 'pending', isSessionComplete: false }) });
    const row = await server.db.query<{ text: string; masked: string }>(
      "select row_to_json(a)::text as text, a.answers -> 'SSN' ->> '$masked' as masked from step_answers a where driver_id = $1 and step = 'completeProfile'",
      [driver.driverId],
    );
    expect(row.rows[0]?.masked).toBe('•••••6789');
    expect(row.rows[0]?.text).not.toContain('123456789');
  });

  it('looks a session up with a prepared statement, which PostgreSQL plans once per connection', async () => {
    const driver = await verifiedDriver(server.app);
    for (let poll = 0; poll < 2; poll++) {
      const status = await server.app.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(driver.token) });
      expect(json<{ data: { isEmailVerified: boolean } }>(status).data.isEmailVerified).toBe(true);
    }
    // The pool hands out the connection it took back last: the one the poll's lookup ran on.
    const { rows } = await server.db.query<{ name: string }>('SELECT name FROM pg_prepared_statements');
    expect(rows.map((row) => row.name)).toContain(HOLDER_STATEMENT);
  });

  it('exchanges a resume link once, even for concurrent requests (the DELETE waits for the other transaction)', async () => {
    const driver = await verifiedDriver(server.app);
    for (let round = 0; round < 3; round++) {
      const link = await server.app.inject({
        method: 'POST',
        url: `/admin/drivers/${driver.driverId}/resume-link`,
        headers: bearer(server.reviewer.key),
      });
      expect(link.statusCode, link.body).toBe(200);
      const token = decodeURIComponent(json<{ url: string }>(link).url.split('/').pop()!);
      const use = () => server.app.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(token) });
      const responses = await Promise.all([use(), use(), use()]);
      expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 401, 401]);
      const winner = json<{ data: unknown; token: string }>(responses.find((response) => response.statusCode === 200)!);
      expect(winner).toMatchObject({
        data: statusData({ status: 'pending', isSessionComplete: false, isPhoneVerified: false, isProfileComplete: false }),
        token: expect.any(String),
      });
      const session = await server.app.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(winner.token) });
      expect(json(session)).toEqual({ data: winner.data });
    }
  });

  it('runs each migration once when two servers start at once on a new database', async () => {
    await server.db.query('CREATE DATABASE two_servers');
    const database = { kind: 'postgres', url: postgres.url.replace(/\/postgres$/, '/two_servers') } as const;
    const [first, second] = await Promise.all([openDb(database), openDb(database)]);
    try {
      const { rows } = await first.query<{ version: string }>('SELECT version::text FROM schemaversion WHERE version > 0 ORDER BY schemaversion.version');
      expect(rows.map((row) => Number(row.version))).toEqual(readdirSync(MIGRATIONS).map((name) => Number.parseInt(name, 10)));
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('lets the server’s database role only insert into the audit record and read it, when it is not the owner', async () => {
    // As production runs (docs/operations.md, "Staff"): the migrations as the owner, the server as a role given
    // every privilege on the tables by default, which migration 010 takes back on the audit record.
    await server.db.query('CREATE DATABASE least_privilege');
    await server.db.query('CREATE ROLE onramp_server LOGIN');
    const ownerUrl = postgres.url.replace(/\/postgres$/, '/least_privilege');
    const owner = new pg.Client(ownerUrl);
    await owner.connect();
    try {
      await owner.query('GRANT USAGE ON SCHEMA public TO onramp_server');
      await owner.query('ALTER DEFAULT PRIVILEGES GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON TABLES TO onramp_server');
      await owner.query('ALTER DEFAULT PRIVILEGES GRANT USAGE, SELECT ON SEQUENCES TO onramp_server');
    } finally {
      await owner.end();
    }
    await (await openDb({ kind: 'postgres', url: ownerUrl })).close();

    const limited = await startTestServer({ database: { kind: 'postgres', url: ownerUrl.replace('postgres://onramp@', 'postgres://onramp_server@') } });
    try {
      const reviewer = await staffKey(limited.app, ['reviewer']);
      const driver = await verifiedDriver(limited.app);
      const opened = await limited.app.inject({ method: 'GET', url: `/admin/drivers/${driver.driverId}`, headers: bearer(reviewer.key) });
      expect(opened.statusCode).toBe(200);
      const { rows } = await limited.db.query<{ action: string }>('SELECT action FROM audit_events ORDER BY id');
      // The reviewer startTestServer adds, the one added here, and the opening.
      expect(rows.map((row) => row.action)).toEqual(['staff.add', 'staff.add', 'driver.open']);
      for (const sql of ['UPDATE audit_events SET actor = NULL', 'DELETE FROM audit_events', 'TRUNCATE audit_events']) {
        await expect(limited.db.query(sql), sql).rejects.toThrow(/permission denied for table audit_events/);
      }
      // Everything else stays the server's to change.
      await limited.db.query('UPDATE drivers SET locale = locale');
      // But for the retention pass's one deletion, through the owner's function: the audit rows of a
      // driver erased before the cutoff (here erased by hand: the driver's row gone, its erasure recorded).
      await limited.db.query('DELETE FROM drivers WHERE id = $1', [driver.driverId]);
      await limited.db.query("INSERT INTO privacy_requests (driver_id, action, done_by, done_at) VALUES ($1, 'erase', 'test', now() - interval '2 days')", [
        driver.driverId,
      ]);
      const deleted = await limited.db.query<{ count: number }>("SELECT delete_erased_driver_records(now() - interval '1 day') AS count");
      // The opening and the erasure's record.
      expect(deleted.rows).toEqual([{ count: 2 }]);
      const left = await limited.db.query<{ action: string }>('SELECT action FROM audit_events ORDER BY id');
      expect(left.rows.map((row) => row.action)).toEqual(['staff.add', 'staff.add']);
      await expect(
        limited.db.query("SELECT set_config('onramp.erased_audit_retention', 'on', false)").then(() => limited.db.query('DELETE FROM audit_events')),
      ).rejects.toThrow(/permission denied for table audit_events/);
    } finally {
      await limited.close();
    }
    // The owner itself is stopped by the trigger.
    await expect(server.db.query('DELETE FROM audit_events')).rejects.toThrow(/audit_events is append-only/);
  });

  const get = (url: string) => server.app.inject({ method: 'GET', url });

  it('answers the insights and sends each reminder once, as PGlite does', async () => {
    const base = new Date(Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`) - 20 * DAY_MS);
    const drivers = seedDrivers(base);
    await writeSeed(server.db, drivers, 'postgres');
    const until = new Date(base.getTime() + 12 * DAY_MS);
    const response = await server.app.inject({
      method: 'GET',
      url: `/admin/insights?from=${base.toISOString().slice(0, 10)}&to=${new Date(until.getTime() - DAY_MS).toISOString().slice(0, 10)}&stalledDays=17`,
      headers: bearer(server.reviewer.key),
    });
    expect(response.statusCode).toBe(200);
    const expected = expectedFigures(drivers, { from: base, until, method: null, language: null, stalledDays: 17, now: new Date() });
    const answer = json<Insights>(response);
    expect(answer.steps.map(({ label: _label, ...step }) => step)).toEqual(expected.steps);
    expect(answer.review).toEqual(expected.review);
    const other = await server.buildAnother();
    await Promise.all([server.app.reminders.remindDue(), other.reminders.remindDue(), server.app.reminders.remindDue()]);
    const { rows } = await server.db.query<{ repeated: number }>(
      "SELECT count(*)::int AS repeated FROM (SELECT driver_id FROM outgoing_notices WHERE notice = 'reminder' AND channel = 'email' GROUP BY driver_id HAVING count(*) > 1) twice",
    );
    expect(rows[0]!.repeated).toBe(0);
  });

  it('sends each expiry notice once and lists what expires soon, as PGlite does', async () => {
    // Noon in New York, a week before the insurance's date.
    const noon = Date.UTC(2031, 2, 10, 17, 0);
    server.clock.offsetMs = noon - Date.now();
    try {
      const { rows: seeded } = await server.db.query<{ id: string }>(
        `INSERT INTO drivers (email, firebase_uid, provider, status, is_session_complete, created_at, updated_at)
         VALUES ('expiring-on-postgres@example.com', 'expiring-on-postgres', 'password', 'approved', true, now(), now()) RETURNING id`,
      );
      const id = seeded[0]!.id;
      await server.db.query(
        `INSERT INTO step_answers (driver_id, step, schema_name, schema_version, answers, submitted_at) VALUES ($1, 'addVehicle', 'vehicle', 'test', $2, now())`,
        [id, JSON.stringify({ proofInsuranceExpiryDate: '2031-03-17' })],
      );
      const other = await server.buildAnother();
      await Promise.all([server.app.expiries.noticeDue(), other.expiries.noticeDue(), server.app.expiries.noticeDue()]);
      const { rows } = await server.db.query<{ count: number }>(
        "SELECT count(*)::int AS count FROM outgoing_notices WHERE driver_id = $1 AND notice = 'documentExpiring' AND channel = 'email'",
        [id],
      );
      expect(rows[0]!.count).toBe(1);
      const listed = json<{ drivers: { id: string; documents: { daysLeft: number }[] }[] }>(
        await server.app.inject({ method: 'GET', url: '/admin/expiring', headers: bearer(server.reviewer.key) }),
      );
      expect(listed.drivers.find((driver) => driver.id === id)?.documents.map((document) => document.daysLeft)).toEqual([7]);
    } finally {
      server.clock.reset();
    }
  });

  it(
    'answers 503 with a message while the database is down, keeps running, and recovers by itself when it is back',
    async () => {
      const driver = await verifiedDriver(server.app);
      const status = () => server.app.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(driver.token) });
      expect((await status()).statusCode).toBe(200);

      postgres.stop();
      try {
        for (const response of [await status(), await get('/readyz')]) {
          expect(response.statusCode).toBe(503);
          expect(json(response)).toEqual(UNAVAILABLE);
        }
        // The process is up: a load balancer keeps it, and sends it no traffic until ready.
        expect((await get('/healthz')).statusCode).toBe(200);
      } finally {
        postgres.start();
      }

      // The same app, not restarted: the pool opens new connections on its own.
      expect((await get('/readyz')).statusCode).toBe(200);
      expect((await status()).statusCode).toBe(200);
      const next = await verifiedDriver(server.app);
      await verifyPhone(server.app, next);
      await completeProfile(server.app, next);
      expect(server.logs.some((line) => line.includes('A database connection was lost') || line.includes('a service it needs is unavailable'))).toBe(true);
    },
    scaled(60_000),
  );

  it(
    'keeps running when the database restarts while a transaction holds a connection between two statements: that one fails as unavailable (503), the next request is answered',
    async () => {
      const driver = await verifiedDriver(server.app);
      const status = () => server.app.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(driver.token) });
      const between = server.app.db.transaction(async (tx) => {
        await tx.query('SELECT 1');
        // The restart comes while the request works on something else with its connection lent.
        postgres.stop();
        await new Promise((resolve) => setTimeout(resolve, 200));
        await tx.query('SELECT 1');
      });
      try {
        await expect(between).rejects.toThrow('The database is unavailable');
      } finally {
        postgres.start();
      }
      expect((await status()).statusCode).toBe(200);
    },
    scaled(60_000),
  );

  it(
    'tells an approved driver once when the database restarts just after their notice went out',
    async () => {
      const local = server.app.messaging.outbox!;
      const deliver = local.send.bind(local);
      let restarted: Promise<void> | undefined;
      // The mail goes out; the database restarts before the delivery is recorded.
      local.send = async (message) => {
        await deliver(message);
        if (restarted || !('notice' in message.about) || message.about.notice !== 'approved' || message.channel !== 'email') return;
        postgres.stop();
        restarted = new Promise((resolve) => setTimeout(resolve, 1_500)).then(() => postgres.start());
      };
      try {
        const driver = await approvedDriver(server);
        await expect.poll(() => restarted !== undefined, { timeout: scaled(15_000) }).toBe(true);
        await restarted;
        // Past the time a claim keeps other passes off a notice: one left unrecorded would go again.
        server.clock.advance(10 * 60_000);
        const delivered = await deliveredBy(server.db, server.app);
        const told = delivered.filter((entry) => entry.to === driver.email && 'notice' in entry && entry.notice === 'approved');
        expect(told.map((entry) => entry.subject)).toEqual(["You're approved to drive with Onramp"]);
      } finally {
        local.send = deliver;
        server.clock.reset();
      }
    },
    scaled(60_000),
  );

  it('says it is ready while every pooled connection is lent to a request: the probe waits behind none of them', async () => {
    let done!: () => void;
    const held = new Promise<void>((resolve) => {
      done = resolve;
    });
    // Requests holding every connection of the pool, as a busy server's do.
    const busy = Array.from({ length: POOL_SIZE }, () =>
      server.app.db.transaction(async (tx) => {
        await tx.query('SELECT 1');
        await held;
      }),
    );
    try {
      await expect.poll(() => server.app.db.pools().queries).toMatchObject({ total: POOL_SIZE, idle: 0 });
      const ready = await get('/readyz');
      expect(ready.statusCode).toBe(200);
      expect(json(ready)).toEqual({ status: 'ready' });
    } finally {
      done();
      await Promise.all(busy);
    }
  });

  it(
    'answers 503 within its time limits when the database stops answering, rather than hang',
    async () => {
      const driver = await verifiedDriver(server.app);
      postgres.freeze();
      try {
        const started = Date.now();
        const [status, ready] = await Promise.all([
          server.app.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(driver.token) }),
          get('/readyz'),
        ]);
        expect(status.statusCode).toBe(503);
        expect(json(status)).toEqual(UNAVAILABLE);
        expect(ready.statusCode).toBe(503);
        // The query's own limit (2 s here) and the readiness check's, whatever the network would do.
        expect(Date.now() - started).toBeLessThan(8_000);
      } finally {
        postgres.thaw();
      }
      expect((await get('/readyz')).statusCode).toBe(200);
    },
    scaled(60_000),
  );
});
