// The insights over a long range, read from the running totals (migration 032, lib/insights.ts):
// the same counts as the drivers give one by one and medians within 1 %, with the days around the
// whole months read one by one; and the totals kept by the triggers through every kind of change
// equal the totals written again from scratch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Insights } from '../../src/shared/review.js';
import { EXACT_UP_TO_DAYS, foldRunningTotals, percentileOfBuckets } from '../../src/server/lib/insights.js';
import type { Queryable } from '../../src/server/db/db.js';
import { expectedFigures, percentile, seedDrivers, writeSeed, type SeedDriver } from '../support/insightsSeed.js';
import { bearer, json, startTestServer, type TestServer } from '../support/server.js';

const DAY_MS = 24 * 3600 * 1000;
const day = (date: Date) => date.toISOString().slice(0, 10);
let server: TestServer;
let drivers: SeedDriver[];

/** Five batches of drivers, months apart, each over a day: the range below starts and ends in the middle of the first and last. */
const BATCHES = ['2025-03-20', '2025-04-10', '2025-05-15', '2025-06-25', '2025-07-30'];
const FROM = new Date('2025-03-21T00:00:00Z');
const UNTIL = new Date('2025-07-31T00:00:00Z');

beforeAll(async () => {
  server = await startTestServer();
  drivers = [];
  for (const [index, base] of BATCHES.entries()) {
    const batch = seedDrivers(new Date(`${base}T06:00:00Z`));
    await writeSeed(server.db, batch, `long-${index}`);
    drivers.push(...batch);
  }
});
afterAll(() => server?.close());

const insights = async (filter: { method: string | null; language: string | null; stalledDays: number }) => {
  const query = new URLSearchParams({ from: day(FROM), to: day(new Date(UNTIL.getTime() - DAY_MS)), stalledDays: String(filter.stalledDays) });
  if (filter.method) query.set('method', filter.method);
  if (filter.language) query.set('language', filter.language);
  const response = await server.app.inject({ method: 'GET', url: `/admin/insights?${query}`, headers: bearer(server.reviewer.key) });
  expect(response.statusCode).toBe(200);
  return json<Insights>(response);
};

/** Within 1 % of the exact figure (and the hundredth of an hour both are rounded to). */
const near = (actual: number | null, expected: number | null) => {
  if (expected === null) return expect(actual).toBeNull();
  expect(Math.abs(actual! - expected)).toBeLessThanOrEqual(expected * 0.01 + 0.01);
};

/** The counts exact, the hours within 1 % (and the answer says so). */
function expectFigures(answer: Insights, expected: ReturnType<typeof expectedFigures>) {
  expect(answer.timesExact).toBe(false);
  expect(answer.drivers).toBe(expected.drivers);
  for (const [index, step] of answer.steps.entries()) {
    const exact = expected.steps[index]!;
    expect({ step: step.step, completed: step.completed, conversion: step.conversion, stalled: step.stalled }).toEqual({
      step: exact.step,
      completed: exact.completed,
      conversion: exact.conversion,
      stalled: exact.stalled,
    });
    near(step.medianHours, exact.medianHours);
    near(step.p90Hours, exact.p90Hours);
  }
  const { review } = answer;
  expect({ decisions: review.decisions, approved: review.approved, approvalRate: review.approvalRate, fixReasons: review.fixReasons }).toEqual({
    decisions: expected.review.decisions,
    approved: expected.review.approved,
    approvalRate: expected.review.approvalRate,
    fixReasons: expected.review.fixReasons,
  });
  near(review.medianHours, expected.review.medianHours);
  near(review.p90Hours, expected.review.p90Hours);
  expect(review.byDay.map(({ day, decisions }) => ({ day, decisions }))).toEqual(expected.review.byDay.map(({ day, decisions }) => ({ day, decisions })));
  for (const [index, byDay] of review.byDay.entries()) near(byDay.medianHours, expected.review.byDay[index]!.medianHours);
}

describe('insights over a long range', () => {
  it('is longer than the range read driver by driver', () => {
    expect((UNTIL.getTime() - FROM.getTime()) / DAY_MS).toBeGreaterThan(EXACT_UP_TO_DAYS);
  });

  const cases = [
    { method: null, language: null, stalledDays: 7 },
    { method: 'google.com', language: null, stalledDays: 15 },
    { method: 'password', language: 'es', stalledDays: 7 },
  ];
  for (const filter of cases) {
    it(`counts as the drivers do, and reads the hours within 1 %: ${JSON.stringify(filter)}`, async () => {
      const expected = expectedFigures(drivers, { from: FROM, until: UNTIL, ...filter, now: new Date() });
      // Drivers on both sides of the range's first and last day, decisions on many days.
      for (const edge of [FROM, UNTIL]) {
        expect(drivers.some((driver) => driver.passed[0]! < edge && driver.passed[0]! > new Date(edge.getTime() - DAY_MS))).toBe(true);
        expect(drivers.some((driver) => driver.passed[0]! >= edge && driver.passed[0]! < new Date(edge.getTime() + DAY_MS))).toBe(true);
      }
      if (!filter.method && !filter.language) expect(expected.review.byDay.length).toBeGreaterThan(10);
      expectFigures(await insights(filter), expected);
    });
  }

  it('reads its whole months from the running totals, and the days around them driver by driver', async () => {
    const filter = { method: null, language: null, stalledDays: 7 };
    const expected = expectedFigures(drivers, { from: FROM, until: UNTIL, ...filter, now: new Date() });
    await server.db.exec(
      'DELETE FROM funnel_totals; DELETE FROM review_totals; DELETE FROM review_fix_totals; DELETE FROM funnel_changes; DELETE FROM review_changes; DELETE FROM review_fix_changes',
    );
    const emptied = await insights(filter);
    // Only the drivers of 21–31 March and 1–30 July are read one by one (April to June are whole months).
    const aroundTheMonths = drivers.filter(
      (driver) =>
        (driver.passed[0]! >= FROM && driver.passed[0]! < new Date('2025-04-01T00:00:00Z')) ||
        (driver.passed[0]! >= new Date('2025-07-01T00:00:00Z') && driver.passed[0]! < UNTIL),
    ).length;
    expect(aroundTheMonths).toBeGreaterThan(0);
    expect(emptied.drivers).toBe(aroundTheMonths);
    expect(emptied.review.decisions).toBe(0);
    await server.db.exec('SELECT rebuild_funnel_totals(), rebuild_review_totals()');
    expectFigures(await insights(filter), expected);
  });
});

/** The running totals with the changes not yet folded in, as they are and as written again from the drivers and decisions (in a transaction rolled back). */
async function totalsNowAndRebuilt(db: { transaction<R>(work: (tx: Queryable) => Promise<R>): Promise<R> } & Queryable) {
  const summed = (table: string, key: string, count: string) =>
    `SELECT ${key}, sum(${count})::int AS ${count} FROM (SELECT * FROM ${table}_totals UNION ALL SELECT * FROM ${table}_changes) t
     GROUP BY ${key} HAVING sum(${count}) <> 0 ORDER BY ${key}`;
  const read = async (q: Queryable) => ({
    funnel: (await q.query(summed('funnel', 'month::text, provider, locale, step, bucket', 'drivers'))).rows,
    review: (await q.query(summed('review', 'day::text, bucket, provider, locale, decision', 'decisions'))).rows,
    fixes: (await q.query(summed('review_fix', 'day::text, provider, locale, reason', 'fixes'))).rows,
  });
  const now = await read(db);
  const rolledBack = new Error('rolled back');
  let rebuilt: Awaited<ReturnType<typeof read>> | undefined;
  await db
    .transaction(async (tx) => {
      await tx.query('SELECT rebuild_funnel_totals(), rebuild_review_totals()');
      rebuilt = await read(tx);
      throw rolledBack;
    })
    .catch((error: unknown) => {
      if (error !== rolledBack) throw error;
    });
  return { now, rebuilt: rebuilt! };
}

describe('the running totals', () => {
  it('follow sign-ups, steps passed and undone, decisions, fixes renamed, a change of language and an erasure', async () => {
    const { db } = server;
    await writeSeed(db, seedDrivers(new Date('2025-09-10T06:00:00Z')), 'changes');
    const ids = (await db.query<{ id: string; status: string }>("SELECT id, status FROM drivers WHERE email LIKE 'insights-changes-%' ORDER BY created_at"))
      .rows;
    const decided = ids.filter((driver) => driver.status !== 'pending');
    const pending = ids.filter((driver) => driver.status === 'pending');
    expect(decided.length).toBeGreaterThan(2);
    expect(pending.length).toBeGreaterThan(0);
    // Drivers who decided on a language, decisions and all.
    await db.query("UPDATE drivers SET locale = CASE locale WHEN 'es' THEN 'en' ELSE 'es' END WHERE id = ANY ($1::uuid[])", [
      decided.slice(0, 2).map((driver) => driver.id),
    ]);
    // A step's answers taken back, and sent again later.
    await db.query("DELETE FROM step_answers WHERE driver_id = $1 AND step = 'addBank'", [decided[0]!.id]);
    await db.query("UPDATE step_answers SET submitted_at = submitted_at + interval '3 hours' WHERE driver_id = $1", [decided[1]!.id]);
    // A decision on a waiting driver, and the fixes of one made before renamed.
    await db.query(
      `INSERT INTO driver_reviews (driver_id, decision, reason, reviewed_by, reviewed_at, sent_at, fixes)
       VALUES ($1, 'rejected', 'Please fix', 'reviewer@example.com', '2025-09-30T10:00:00Z', '2025-09-29T08:00:00Z', '[{"step":"addVehicle","field":"plateNumber","reason":"Glare"}]')`,
      [pending[0]!.id],
    );
    await db.query(`UPDATE driver_reviews SET fixes = '[{"step":"addVehicle","field":"plateNumber","reason":" Blurry photo"}]' WHERE driver_id = $1`, [
      decided[2]!.id,
    ]);
    // Drivers erased, with their decisions.
    await db.query('DELETE FROM drivers WHERE id = ANY ($1::uuid[])', [[decided[0]!.id, pending[0]!.id]]);
    const { now, rebuilt } = await totalsNowAndRebuilt(db);
    expect(now.funnel.length).toBeGreaterThan(0);
    expect(now.review.length).toBeGreaterThan(0);
    expect(now.fixes.length).toBeGreaterThan(0);
    expect(now).toEqual(rebuilt);
    // Folded in, the changes are gone and the totals the same.
    const changes = 'SELECT (SELECT count(*) FROM funnel_changes) + (SELECT count(*) FROM review_changes) + (SELECT count(*) FROM review_fix_changes) AS n';
    expect(Number((await db.query<{ n: string }>(changes)).rows[0]!.n)).toBeGreaterThan(0);
    await foldRunningTotals(db);
    expect(Number((await db.query<{ n: string }>(changes)).rows[0]!.n)).toBe(0);
    expect((await totalsNowAndRebuilt(db)).now).toEqual(rebuilt);
  });
});

describe('percentileOfBuckets', () => {
  it('reads a percentile from counts as percentile_cont reads it from the values', () => {
    const values = [3, 3, 5, 8, 8, 8, 13, 21];
    const buckets = [3, 5, 8, 13, 21].map((value) => ({ value, count: values.filter((v) => v === value).length }));
    for (const fraction of [0, 0.1, 0.5, 0.9, 1]) expect(percentileOfBuckets(buckets, fraction)).toBeCloseTo(percentile(values, fraction)!, 10);
    expect(percentileOfBuckets([], 0.5)).toBeNull();
  });
});
