/**
 * The review queue, GET /admin/drivers, on a few hundred drivers seeded straight into the
 * database: keyset paging by (submitted_at, id) walks each driver once in order, whatever the page
 * size; limits and cursors are checked; a search finds exactly the drivers whose email or name
 * holds the text (any case, wildcards literal) or whose phone holds its digits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { QueueDriver, QueuePage, ReviewStatus } from '../../src/shared/review.js';
import { bearer, json, startTestServer, type TestServer } from '../support/server.js';
import { expectStaffMessagesFromFiles } from '../support/staffMessages.js';

let server: TestServer;
let app: FastifyInstance;

interface Seeded {
  id: string;
  email: string;
  phone: string | null;
  firstName: string | null;
  lastName: string | null;
  status: ReviewStatus;
  /** Microseconds since the epoch, or null for a driver who has not sent everything yet. */
  submittedUs: bigint | null;
}

const FIRST = ['Ada', 'Grace', 'Alan', 'Katherine', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Radia'];
const LAST = ['Lovelace', 'Hopper', 'Turing', 'Johnson', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Thompson', 'Perlman'];

/** Names the searches look for, each given to exactly one driver. */
const SPECIAL_LAST = new Map<number, string>([
  [17, 'Zwicky-Oyelaran'],
  [41, '100%Pure'],
  [42, '100xPure'],
  [77, 'Under_Score'],
  [78, 'UnderXScore'],
  [79, 'Under\\Slash'],
]);

const BASE_US = BigInt(Date.UTC(2025, 0, 6, 8, 0, 0)) * 1000n;
const usToSql = (us: bigint) => new Date(Number(us / 1000n)).toISOString().replace('Z', `${String(us % 1000n).padStart(3, '0')}Z`);

/**
 * 320 drivers: 240 pending, 30 approved, 30 rejected who sent everything, and 20 who have not.
 * Submission times are shuffled against the insertion order, to the microsecond (as PostgreSQL
 * keeps them), with pairs of equal times so the id decides.
 */
function seedRows(): Omit<Seeded, 'id'>[] {
  const rows: Omit<Seeded, 'id'>[] = [];
  for (let i = 0; i < 320; i++) {
    const submitted = i < 300;
    const status: ReviewStatus = !submitted ? 'pending' : i % 10 === 3 ? 'approved' : i % 10 === 6 ? 'rejected' : 'pending';
    // A permutation of 300 slots about a minute apart, each off by some microseconds.
    const slot = BigInt((i * 131) % 300);
    const submittedUs = submitted ? BASE_US + slot * 61_000_123n + BigInt((i * 7919) % 1000) : null;
    const lastName = SPECIAL_LAST.get(i) ?? `${LAST[i % LAST.length]}`;
    const named = i % 50 !== 49; // a few sent no profile (as if they sent everything before the profile existed)
    rows.push({
      email:
        i === 121 ? 'fleet%owner@example.com' : i === 122 ? 'fleetXowner@example.com' : `driver.${LAST[(i * 3) % LAST.length]!.toLowerCase()}.${i}@example.com`,
      phone: i % 40 === 39 ? null : `+1${String(2025550000 + ((i * 37) % 10_000)).padStart(10, '0')}`,
      firstName: named ? FIRST[i % FIRST.length]! : null,
      lastName: named ? lastName : null,
      status,
      submittedUs,
    });
  }
  // Every fifth driver sent everything at the very microsecond of the one before: the id decides.
  for (let i = 4; i < rows.length; i += 5) if (rows[i]!.submittedUs !== null) rows[i]!.submittedUs = rows[i - 1]!.submittedUs;
  // And some approved drivers at the very time of another approved one (newest first, then the id).
  for (let i = 13; i < 300; i += 20) rows[i]!.submittedUs = rows[i - 10]!.submittedUs;
  return rows;
}

let seeded: Seeded[] = [];

beforeAll(async () => {
  server = await startTestServer();
  app = server.app;
  const rows = seedRows();
  const { rows: inserted } = await server.db.query<{ id: string; email: string }>(
    `INSERT INTO drivers (email, firebase_uid, provider, phone, status, is_session_complete, submitted_at, rejection_reason)
     SELECT x.email, 'uid-' || x.email, 'password', x.phone, x.status, x.submitted_at IS NOT NULL, x.submitted_at::timestamptz,
       CASE WHEN x.status = 'rejected' THEN 'Blurry licence' END
     FROM jsonb_to_recordset($1::jsonb) AS x(email text, phone text, status text, submitted_at text)
     RETURNING id, email`,
    [
      JSON.stringify(
        rows.map((row) => ({
          email: row.email,
          phone: row.phone,
          status: row.status,
          submitted_at: row.submittedUs === null ? null : usToSql(row.submittedUs),
        })),
      ),
    ],
  );
  const idByEmail = new Map(inserted.map((row) => [row.email, row.id]));
  seeded = rows.map((row) => ({ ...row, id: idByEmail.get(row.email)! }));
  await server.db.query(
    `INSERT INTO step_answers (driver_id, step, schema_name, schema_version, answers, submitted_at)
     SELECT x.id, 'completeProfile', 'profile', 'seeded', jsonb_build_object('firstName', x.first, 'lastName', x.last), now()
     FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, first text, last text)`,
    [JSON.stringify(seeded.filter((row) => row.firstName !== null).map((row) => ({ id: row.id, first: row.firstName, last: row.lastName })))],
  );
  // The queue's name, as saving the profile keeps it.
  await server.db.query(
    `UPDATE drivers d SET review_name = concat_ws(' ', a.answers ->> 'firstName', a.answers ->> 'lastName')
     FROM step_answers a WHERE a.driver_id = d.id AND a.step = 'completeProfile'`,
  );
  // The seeded times are in the database to the microsecond.
  const { rows: check } = await server.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM drivers WHERE submitted_at IS NOT NULL AND extract(microseconds FROM submitted_at)::bigint % 1000 <> 0',
  );
  expect(check[0]!.n).toBeGreaterThan(100);
});
afterAll(() => server.close());
expectStaffMessagesFromFiles(() => server);

const asAdmin = () => bearer(server.reviewer.key);

function queue(query: Record<string, string> | string = {}, headers: Record<string, string> = asAdmin()) {
  const search = typeof query === 'string' ? query : new URLSearchParams(query).toString();
  return app.inject({ method: 'GET', url: `/admin/drivers${search ? `?${search}` : ''}`, headers });
}

/** Every driver the queue lists for a query, following `next` until null; also the number of pages. */
async function walk(query: Record<string, string>): Promise<{ drivers: QueueDriver[]; pages: number[] }> {
  const drivers: QueueDriver[] = [];
  const pages: number[] = [];
  let after: string | null = null;
  do {
    const response = await queue({ ...query, ...(after ? { after } : {}) });
    expect(response.statusCode, response.body).toBe(200);
    const page = json<QueuePage>(response);
    drivers.push(...page.drivers);
    pages.push(page.drivers.length);
    after = page.next;
    expect(pages.length).toBeLessThan(400);
  } while (after);
  return { drivers, pages };
}

const byQueueOrder = (a: Seeded, b: Seeded) =>
  a.submittedUs! < b.submittedUs! ? -1 : a.submittedUs! > b.submittedUs! ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/** The drivers a state's queue holds, in its order: pending oldest first, decided ones newest first. */
function expected(status: ReviewStatus, matches: (driver: Seeded) => boolean = () => true): string[] {
  const listed = seeded.filter((driver) => driver.status === status && driver.submittedUs !== null && matches(driver)).sort(byQueueOrder);
  return (status === 'pending' ? listed : listed.reverse()).map((driver) => driver.id);
}

/** What a search should find, as the queue states it: the text in the email or the name (any case), or its digits in the phone. */
function searchMatches(q: string) {
  const text = q.trim().toLowerCase();
  const digits = q.replace(/\D/g, '');
  return (driver: Seeded) =>
    driver.email.toLowerCase().includes(text) ||
    (driver.firstName !== null && `${driver.firstName} ${driver.lastName}`.toLowerCase().includes(text)) ||
    (digits.length >= 3 && driver.phone !== null && driver.phone.includes(digits));
}

const ids = (drivers: QueueDriver[]) => drivers.map((driver) => driver.id);
const idOf = (index: number) => seeded[index]!.id;

describe('paging', () => {
  it('walks every pending driver exactly once, oldest first, at any page size', async () => {
    const pending = expected('pending');
    expect(pending.length).toBeGreaterThan(180);
    for (const limit of ['7', '50', '200']) {
      const { drivers, pages } = await walk({ limit });
      expect(ids(drivers)).toEqual(pending);
      expect(new Set(ids(drivers)).size).toBe(drivers.length);
      // Full pages until the last; a last page that happens to be full is followed by none.
      expect(pages.slice(0, -1).every((size) => size === Number(limit))).toBe(true);
      expect(pages.at(-1)).toBeGreaterThan(0);
    }
    // The default page is 50, and the status defaults to pending.
    const first = json<QueuePage>(await queue());
    expect(ids(first.drivers)).toEqual(pending.slice(0, 50));
    expect(first.next).not.toBeNull();
    expect(json<QueuePage>(await queue({ status: 'pending' }))).toEqual(first);
  });

  it('walks approved and rejected drivers newest first', async () => {
    for (const status of ['approved', 'rejected'] as const) {
      const want = expected(status);
      expect(want.length).toBe(30);
      const { drivers } = await walk({ status, limit: '4' });
      expect(ids(drivers)).toEqual(want);
      expect(drivers.every((driver) => driver.status === status)).toBe(true);
      const times = drivers.map((driver) => Date.parse(driver.submittedAt!));
      expect(times).toEqual([...times].sort((a, b) => b - a));
    }
  });

  it('lists what a row shows: the name from the profile, the email, the phone and the submission time', async () => {
    const { drivers } = await walk({ limit: '200' });
    const byId = new Map(drivers.map((driver) => [driver.id, driver]));
    const ada = seeded[0]!;
    expect(byId.get(ada.id)).toMatchObject({
      email: ada.email,
      phone: ada.phone,
      name: 'Ada Lovelace',
      status: 'pending',
      provider: 'password',
      rejectionReason: null,
      isSessionComplete: true,
      submittedAt: new Date(Number(ada.submittedUs! / 1000n)).toISOString(),
    });
    // No profile yet: no name; no phone: null.
    expect(byId.get(idOf(49))).toMatchObject({ name: null });
    expect(byId.get(idOf(39))).toMatchObject({ phone: null });
    const rejected = json<QueuePage>(await queue({ status: 'rejected', limit: '1' })).drivers[0];
    expect(rejected).toMatchObject({ status: 'rejected', rejectionReason: 'Blurry licence' });
  });

  it('leaves out drivers who have not sent everything for review', async () => {
    const unsent = seeded.filter((driver) => driver.submittedUs === null);
    expect(unsent.length).toBe(20);
    const listed = new Set<string>();
    for (const status of ['pending', 'approved', 'rejected']) for (const driver of (await walk({ status, limit: '200' })).drivers) listed.add(driver.id);
    expect(listed.size).toBe(seeded.length - unsent.length);
    for (const driver of unsent) expect(listed.has(driver.id)).toBe(false);
    // Not even when searched for by their own email.
    expect(json<QueuePage>(await queue({ q: unsent[0]!.email })).drivers).toEqual([]);
  });

  it('refuses a limit outside 1 to 200, and a cursor it did not make', async () => {
    for (const limit of ['0', '201', 'x', '', '-1', '1.5', '1e2x']) {
      const response = await queue({ limit });
      expect(response.statusCode, limit).toBe(400);
      expect(json(response)).toEqual({ message: 'limit must be a whole number from 1 to 200.' });
    }
    expect(json<QueuePage>(await queue({ limit: '1' })).drivers).toHaveLength(1);
    expect(json<QueuePage>(await queue({ limit: '200' })).drivers).toHaveLength(200);

    const { next } = json<QueuePage>(await queue({ limit: '3' }));
    const [at, id] = Buffer.from(next!, 'base64url').toString('utf8').split('|');
    const forge = (text: string) => Buffer.from(text).toString('base64url');
    const forged = [
      'not-a-cursor',
      forge('garbage'),
      forge(`${at}|not-a-uuid`),
      forge(`not-a-time|${id}`),
      forge(`${at}|${id}|more`),
      forge(`|${id}`),
      // Dates JavaScript reads loosely but PostgreSQL refuses: still the client's mistake, never a 500.
      forge(`1|${id}`),
      forge(`Tuesday 5|${id}`),
      forge(`12/25|${id}`),
      forge(`2025-02-31T00:00:00.000Z|${id}`),
      forge(`0000-01-01T00:00:00Z|${id}`),
    ];
    for (const after of forged) {
      const response = await queue({ after });
      expect(response.statusCode, Buffer.from(after, 'base64url').toString()).toBe(400);
      expect(json(response)).toEqual({ message: 'after must be the "next" of an earlier page.' });
    }
    // A repeated parameter is no cursor either.
    const repeated = await queue(`after=${next}&after=${next}`);
    expect(repeated.statusCode).toBe(400);
  });

  it('refuses unknown query parameters and unknown states', async () => {
    for (const query of ['sort=name', 'page=2', 'status=pending&offset=10', 'Q=ada']) {
      const response = await queue(query);
      expect(response.statusCode, query).toBe(400);
      expect(json(response)).toEqual({ message: `Unknown query parameter: ${query.split('&').at(-1)!.split('=')[0]}` });
    }
    const response = await queue({ status: 'waiting' });
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({ message: 'status must be one of: pending, approved, rejected.' });
  });

  it('answers 401 without a staff member’s credential', async () => {
    for (const headers of [{}, { authorization: server.reviewer.key }] as Record<string, string>[]) {
      const response = await queue({}, headers);
      expect(response.statusCode).toBe(401);
      expect(json(response)).toEqual({ message: 'Please sign in as a staff member.', reason: 'signInAgain' });
    }
    const unknown = await queue({}, bearer('not-a-staff-key'));
    expect(unknown.statusCode).toBe(401);
    expect(json(unknown)).toEqual({ message: 'Your staff session has ended. Please sign in again.', reason: 'signInAgain' });
  });
});

describe('search', () => {
  /** Every driver a search lists (all pages), checked against what it should find. */
  async function search(q: string, status: ReviewStatus = 'pending'): Promise<string[]> {
    const { drivers } = await walk({ q, status, limit: '20' });
    expect(ids(drivers), q).toEqual(expected(status, searchMatches(q)));
    return ids(drivers);
  }

  it('finds drivers by any part of the last name, in any case', async () => {
    expect(await search('zwicky')).toEqual([idOf(17)]);
    expect(await search('ICKY-OYEL')).toEqual([idOf(17)]);
    // A common name finds every pending driver who has it, and only them.
    const hopper = await search('hoPPer');
    expect(hopper.length).toBeGreaterThan(10);
    const lovelace = await search('Ada Lovelace');
    expect(lovelace).toContain(idOf(0));
    // The same search in the decided lists.
    expect((await search('johnson', 'approved')).length).toBe(30);
    expect(await search('no such name anywhere')).toEqual([]);
  });

  it('finds drivers by part of the email', async () => {
    const email = seeded[0]!.email;
    expect(await search(email)).toEqual([idOf(0)]);
    expect(await search(`  ${email.toUpperCase()}  `)).toEqual([idOf(0)]);
    expect(await search('.0@example')).toEqual([idOf(0)]);
    expect((await search('@EXAMPLE.com')).length).toBe(expected('pending').length);
  });

  it('finds drivers by the digits of their phone, with or without punctuation', async () => {
    const target = seeded[10]!;
    const digits = target.phone!.slice(2); // 10 digits, no +1
    const formatted = `(${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}`;
    for (const q of [digits, formatted, `+1 ${formatted}`, target.phone!, `${digits.slice(3, 6)}.${digits.slice(6)}`]) {
      expect(await search(q), q).toEqual([target.id]);
    }
    // Fewer than three digits match no phone.
    expect(await search('5-5')).toEqual([]);
  });

  it('takes % and _ literally', async () => {
    expect(await search('100%Pure')).toEqual([idOf(41)]);
    expect(await search('0%p')).toEqual([idOf(41)]);
    expect(await search('under_score')).toEqual([idOf(77)]);
    expect(await search('r_s')).toEqual([idOf(77)]);
    expect(await search('under\\slash')).toEqual([idOf(79)]);
    expect(await search('%')).toEqual(expected('pending', (driver) => driver.email.includes('%') || (driver.lastName ?? '').includes('%')));
    expect((await search('%')).length).toBe(2);
    expect(await search('_')).toEqual([idOf(77)]);
    expect(await search('fleet%owner')).toEqual([idOf(121)]);
  });

  it('refuses a search that is not plain text of at most 100 characters', async () => {
    for (const q of ['a'.repeat(101), 'ada\nlovelace', 'ada\u0000']) {
      const response = await queue({ q });
      expect(response.statusCode).toBe(400);
      expect(json(response)).toEqual({ message: 'q must be plain text of at most 100 characters.' });
    }
    // An empty or blank search lists everyone.
    expect(ids((await walk({ q: '   ', limit: '200' })).drivers)).toEqual(expected('pending'));
  });
});
