// Retention with a moved clock: each kind of flows/retention.json goes once its days are over and
// not before, rows and stored files alike, drivers through the privacy officer's erasure (the
// driver.erased webhook event too); what each daily pass deleted is in the audit record; a document
// store that fails half-way leaves its files written down and the next pass removes them; one
// instance runs each day's pass; a pass with nothing to do reads through indexes only.
import { randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRetention } from '../../src/node/projectFiles.js';
import { DELETIONS, DRIVERS, type RetentionKind, type RetentionPass } from '../../src/server/plugins/retention.js';
import { UNTAKEN_UPLOADS } from '../../src/server/plugins/uploads.js';
import { PNG_BYTES, startTestServer, type TestServer } from '../support/server.js';

const DAY_MS = 24 * 3600 * 1000;
const HOUR_MS = 3600 * 1000;
const { keepForDays } = loadRetention();

let server: TestServer;
/** When the records were made: "old" ones at T0, "young" ones two hours later. */
let T0: number;
beforeAll(async () => {
  // A database of its own: the test counts everything a pass deletes.
  server = await startTestServer({}, { databaseOnDisk: true });
  T0 = Date.now();
});
afterAll(async () => {
  server?.clock.reset();
  await server?.close();
});

/** The server's clock `days` days and an hour after T0, and that day's pass. */
async function passOn(days: number): Promise<RetentionPass | null> {
  server.clock.offsetMs = T0 + days * DAY_MS + HOUR_MS - Date.now();
  return server.app.retention.runDue();
}

const query = async (sql: string, params: unknown[] = []) => (await server.db.query(sql, params)).rows;
const exists = async (sql: string, params: unknown[]) => (await query(sql, params)).length > 0;

async function driver(status: 'pending' | 'approved' | 'rejected', submitted: boolean, at: Date): Promise<string> {
  const [row] = await query(
    `INSERT INTO drivers (email, firebase_uid, provider, status, is_session_complete, submitted_at, created_at, updated_at)
     VALUES ($1, $2, 'password', $3, $4, $5, $6, $6) RETURNING id`,
    [`retention-${randomUUID()}@example.com`, `uid-${randomUUID()}`, status, submitted, submitted ? at : null, at],
  );
  return String(row!.id);
}

/** A stored photo of the driver, sent ahead of its step at `at`; answers its storage name. */
async function upload(driverId: string, at: Date, step = 'completeProfile', field = 'profilePicture'): Promise<{ id: string; storageName: string }> {
  const received = await server.app.uploads.receive(Readable.from([PNG_BYTES]));
  const { storageName, mime, size } = await server.app.uploads.store(received, field);
  await server.app.uploads.discard(received);
  const [row] = await query(
    'INSERT INTO uploads (driver_id, step, field, storage_name, mime, size, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id',
    [driverId, step, field, storageName, mime, size, at],
  );
  return { id: String(row!.id), storageName };
}

/** A stored photo the driver's answers took (their profile's): it goes with the driver alone. */
async function takenUpload(driverId: string, at: Date): Promise<{ id: string; storageName: string }> {
  const taken = await upload(driverId, at);
  await query(
    "INSERT INTO step_answers (driver_id, step, schema_name, schema_version, answers, files, submitted_at) VALUES ($1, 'completeProfile', 'profile', 'test', '{}', $2, $3)",
    [driverId, JSON.stringify({ profilePicture: taken.id }), at],
  );
  return taken;
}

const stored = async (storageName: string) => (await server.app.uploads.read(storageName)) !== null;

interface Seeded {
  kind: RetentionKind;
  /** Whether it is still there: its row, and its stored file if it has one (both or neither). */
  there(): Promise<boolean>;
}

/** One record of `kind` made at `at`, and how to tell it is still there. */
async function seed(kind: RetentionKind, at: Date, kept: { driverId: string; staffId: string; integrationId: string }): Promise<Seeded> {
  const row = (sql: string, params: unknown[]) => ({ kind, there: () => exists(sql, params) });
  const id = randomUUID();
  const token = randomBytes(16).toString('hex');
  switch (kind) {
    case 'rejectedDrivers':
    case 'unfinishedDrivers': {
      const driverId = await driver(kind === 'rejectedDrivers' ? 'rejected' : 'pending', kind === 'rejectedDrivers', at);
      const { storageName } = await takenUpload(driverId, at);
      return {
        kind,
        async there() {
          const [row, file] = [await exists('SELECT 1 FROM drivers WHERE id = $1', [driverId]), await stored(storageName)];
          expect(file).toBe(row);
          return row;
        },
      };
    }
    case 'erasedDriverRecords': {
      // An erasure done at `at`: its record and the audit rows that name the driver.
      await query("INSERT INTO privacy_requests (driver_id, action, done_by, done_at) VALUES ($1, 'erase', 'officer@example.com', $2)", [id, at]);
      await query(
        "INSERT INTO audit_events (at, actor, action, driver_id) VALUES ($2, 'officer@example.com', 'driver.open', $1), ($2, 'officer@example.com', 'driver.erase', $1)",
        [id, at],
      );
      return row('SELECT 1 FROM audit_events WHERE driver_id = $1 UNION ALL SELECT 1 FROM privacy_requests WHERE driver_id = $1', [id]);
    }
    case 'retainedPaymentRecords':
      await query("INSERT INTO retained_payment_records (driver_ref, customer_id, status, kept_at) VALUES ($1, 'cus_1', 'canceled', $2)", [id, at]);
      return row('SELECT 1 FROM retained_payment_records WHERE driver_ref = $1', [id]);
    case 'sentNotices':
    case 'failedNotices':
      await query(
        `INSERT INTO outgoing_notices (id, driver_id, notice, channel, sealed, status, next_attempt_at, created_at, sent_at)
         VALUES ($1, $2, 'approved', 'email', '\\x00', $3, $4, $4, $5)`,
        [id, kept.driverId, kind === 'sentNotices' ? 'sent' : 'failed', at, kind === 'sentNotices' ? at : null],
      );
      return row('SELECT 1 FROM outgoing_notices WHERE id = $1', [id]);
    case 'untakenUploads': {
      const { id: uploadId, storageName } = await upload(kept.driverId, at, 'uploadVehicleImages', 'vehicleImageFront');
      return {
        kind,
        async there() {
          const [row, file] = [await exists('SELECT 1 FROM uploads WHERE id = $1', [uploadId]), await stored(storageName)];
          expect(file).toBe(row);
          return row;
        },
      };
    }
    case 'driverSessions':
      await query("INSERT INTO sessions (token_hash, driver_id, kind, created_at, last_seen_at, expires_at) VALUES ($1, $2, 'session', $3, $3, $3)", [
        token,
        kept.driverId,
        at,
      ]);
      return row('SELECT 1 FROM sessions WHERE token_hash = $1', [token]);
    case 'staffSessions':
      await query('INSERT INTO staff_sessions (token_hash, staff_id, created_at, last_seen_at, expires_at, authenticated_at) VALUES ($1, $2, $3, $3, $3, $3)', [
        token,
        kept.staffId,
        at,
      ]);
      return row('SELECT 1 FROM staff_sessions WHERE token_hash = $1', [token]);
    case 'expiredCodes': {
      const [code] = await query(
        `INSERT INTO otp_codes (driver_id, channel, destination, code_hash, expires_at, created_at)
         VALUES ($1, 'email', 'kept@example.com', 'hash', $2, $2) RETURNING id`,
        [kept.driverId, at],
      );
      return row('SELECT 1 FROM otp_codes WHERE id = $1', [code!.id]);
    }
    case 'launchLinks':
      await query(
        `INSERT INTO launch_links (token_hash, integration_id, email_fingerprint, return_url, created_at, expires_at)
         VALUES ($1, $2, 'fingerprint', 'https://partner.example/done', $3, $3)`,
        [token, kept.integrationId, at],
      );
      return row('SELECT 1 FROM launch_links WHERE token_hash = $1', [token]);
    case 'webhookEvents':
      await query("INSERT INTO webhook_events (id, type, payload, created_at) VALUES ($1, 'webhook.test', '{}', $2)", [id, at]);
      return row('SELECT 1 FROM webhook_events WHERE id = $1', [id]);
    case 'paymentEvents':
      await query("INSERT INTO payment_events (id, type, received_at) VALUES ($1, 'invoice.paid', $2)", [id, at]);
      return row('SELECT 1 FROM payment_events WHERE id = $1', [id]);
  }
}

const KINDS = Object.keys(keepForDays) as RetentionKind[];
const none = Object.fromEntries(KINDS.map((kind) => [kind, 0])) as Record<RetentionKind, number>;

describe('the daily retention pass', () => {
  it('deletes each kind once its days are over and nothing else, and says so in the audit record', async () => {
    const keptDriver = await driver('approved', true, new Date(T0));
    const taken = await takenUpload(keptDriver, new Date(T0));
    const [integration] = await query(
      "INSERT INTO integrations (name, signing_secret, created_by, created_at) VALUES ('Partner', '\\x00', 'owner@example.com', $1) RETURNING id",
      [new Date(T0)],
    );
    const kept = { driverId: keptDriver, staffId: server.reviewer.id, integrationId: String(integration!.id) };
    const records: (Seeded & { days: number; young: boolean })[] = [];
    for (const kind of KINDS) {
      records.push({ ...(await seed(kind, new Date(T0), kept)), days: keepForDays[kind], young: false });
      records.push({ ...(await seed(kind, new Date(T0 + 2 * HOUR_MS), kept)), days: keepForDays[kind], young: true });
    }

    // Every record a pass may delete, with when it was made and how many rows it is: the seeded
    // ones, and those the passes make as they erase drivers (each erasure's driver.erased event,
    // and its record and audit row), which later passes delete in their turn.
    const made: { kind: RetentionKind; at: number; rows: number }[] = records.map((record) => ({
      kind: record.kind,
      at: T0 + (record.young ? 2 * HOUR_MS : 0),
      rows: record.kind === 'erasedDriverRecords' ? 3 : 1,
    }));
    let before = Number.NEGATIVE_INFINITY;
    const total = { ...none };
    for (const days of [...new Set(Object.values(keepForDays))].sort((a, b) => a - b)) {
      const done = await passOn(days);
      const now = T0 + days * DAY_MS + HOUR_MS;
      for (const record of records) {
        // An old record (T0) goes on its kind's day, a young one (T0 + 2 h) only after it.
        const gone = record.young ? days > record.days : days >= record.days;
        expect({ kind: record.kind, young: record.young, there: await record.there() }).toEqual({ kind: record.kind, young: record.young, there: !gone });
      }
      const expected = { ...none };
      for (const { kind, at, rows } of made) {
        const cutoff = (time: number) => time - keepForDays[kind] * DAY_MS;
        if (at < cutoff(now) && !(at < cutoff(before))) expected[kind] += rows;
      }
      expect(done).toEqual({ deleted: expected, driversLeft: 0, filesLeft: 0 });
      const [audit] = await query("SELECT actor, details FROM audit_events WHERE action = 'retention.pass' ORDER BY id DESC LIMIT 1");
      expect(audit).toEqual({ actor: 'retention', details: done });
      // The metrics count the same, by kind.
      const metrics = await server.app.metrics.exposition();
      for (const kind of KINDS) {
        total[kind] += expected[kind];
        expect(metrics).toContain(`onramp_retention_deleted_total{kind="${kind}"} ${total[kind]}\n`);
      }
      const erased = done!.deleted.rejectedDrivers + done!.deleted.unfinishedDrivers;
      if (erased > 0) made.push({ kind: 'webhookEvents', at: now, rows: erased }, { kind: 'erasedDriverRecords', at: now, rows: 2 * erased });
      before = now;
    }
    expect(await stored(taken.storageName)).toBe(true);
    expect(await exists('SELECT 1 FROM drivers WHERE id = $1', [keptDriver])).toBe(true);
  });
});

describe('a document store that fails half-way', () => {
  it('keeps the files written down, and the next pass removes them', async () => {
    // After the pass above: the clock years on, a driver who never finished, unchanged for longer than their time.
    const last = Math.max(...Object.values(keepForDays));
    const at = new Date(T0 + (last + 1) * DAY_MS);
    const driverId = await driver('pending', false, at);
    const first = await takenUpload(driverId, at);
    const second = await upload(driverId, at, 'uploadVehicleImages', 'vehicleImageFront');
    await query("UPDATE step_answers SET files = files || jsonb_build_object('vehicleImageFront', $2::text) WHERE driver_id = $1", [driverId, second.id]);
    const remove = server.app.uploads.remove;
    let calls = 0;
    server.app.uploads.remove = async (name) => {
      calls += 1;
      if (calls > 1) throw new Error('The store went away');
      return remove(name);
    };
    try {
      const done = await passOn(last + 1 + keepForDays.unfinishedDrivers);
      expect(done).toMatchObject({ deleted: { unfinishedDrivers: 1 }, driversLeft: 0, filesLeft: 1 });
    } finally {
      server.app.uploads.remove = remove;
    }
    expect(await exists('SELECT 1 FROM drivers WHERE id = $1', [driverId])).toBe(false);
    const left = (await query('SELECT storage_name FROM file_removals')).map((row) => row.storage_name);
    expect(left).toHaveLength(1);
    expect([await stored(first.storageName), await stored(second.storageName)].filter(Boolean)).toHaveLength(1);

    const next = await passOn(last + 2 + keepForDays.unfinishedDrivers);
    expect(next).toMatchObject({ driversLeft: 0, filesLeft: 0 });
    expect(await query('SELECT storage_name FROM file_removals')).toEqual([]);
    expect([await stored(first.storageName), await stored(second.storageName)]).toEqual([false, false]);
  });
});

describe('one instance a day', () => {
  it('runs the day’s pass once however many instances look', async () => {
    const other = await server.buildAnother();
    server.clock.offsetMs += 3 * DAY_MS;
    const passes = await Promise.all([server.app.retention.runDue(), other.retention.runDue(), server.app.retention.runDue()]);
    expect(passes.filter((pass) => pass !== null)).toHaveLength(1);
    expect(await server.app.retention.runDue()).toBeNull();
  });
});

describe('a pass with nothing to do', () => {
  it('finds each kind through an index, reading no table whole', async () => {
    // What delete_erased_driver_records (migration 023) reads, which EXPLAIN can't see inside a function.
    const ERASED_DRIVER_RECORDS_READ = `SELECT 1 FROM audit_events WHERE driver_id IN (SELECT driver_id FROM privacy_requests WHERE action = 'erase' AND done_at < $1)
      UNION ALL SELECT 1 FROM privacy_requests WHERE driver_id IN (SELECT driver_id FROM privacy_requests WHERE action = 'erase' AND done_at < $1)`;
    const now = new Date();
    const statements: [string, string, unknown[]][] = [
      ...Object.entries({ ...DELETIONS, ...DRIVERS, erasedDriverRecords: ERASED_DRIVER_RECORDS_READ }).map(([kind, sql]): [string, string, unknown[]] => [
        kind,
        sql,
        [now],
      ]),
      ['untakenUploads', UNTAKEN_UPLOADS, [now, now, now]],
    ];
    const scans = await server.db.transaction(async (tx) => {
      // With the tables this small a whole read is cheapest: forbidden, the plan shows whether an index serves.
      await tx.query('SET LOCAL enable_seqscan = off');
      const found: Record<string, string[]> = {};
      for (const [kind, sql, params] of statements) {
        const { rows } = await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
        found[kind] = rows.map((row) => row['QUERY PLAN']).filter((line) => line.includes('Seq Scan'));
      }
      return found;
    });
    expect(scans).toEqual(Object.fromEntries(statements.map(([kind]) => [kind, []])));
  });
});
