// What keeps the background passes and the Drivers list fast at a million drivers, seen in their
// plans: on real PostgreSQL, with drivers seeded as `npm run bench -- --only scale` seeds them (a
// few thousand here, then VACUUM ANALYZE), each statement a pass or a page of the list runs is
// explained as PostgreSQL plans it, and none reads a whole table of drivers or notices.
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runningPostgres, type TestPostgres } from '../../tools/postgres.js';
import { RARE_LAST_NAME, seedScale } from '../../tools/scale.js';
import { bearer, startTestServer, type TestServer } from '../support/server.js';

/** Enough drivers that reading a table whole costs more than reading its index, as at a million. */
const DRIVERS = 20_000;
const DAY_MS = 24 * 3600 * 1000;
/** The first and last day of the month before this one. */
const lastMonth = (() => {
  const end = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - new Date().getUTCDate() * DAY_MS);
  return { from: `${end.toISOString().slice(0, 8)}01`, to: end.toISOString().slice(0, 10) };
})();
/** The tables that grow with the drivers. */
const WHOLE_TABLE =
  /Seq Scan on (drivers|driver_progress|step_answers|outgoing_notices|webhook_deliveries|webhook_events|reminders_sent|document_notices_sent)\b/g;

describe('at scale (PostgreSQL)', { tags: ['postgresql'], timeout: 600_000 }, () => {
  let postgres: TestPostgres;
  let server: TestServer;
  let client: pg.Client;

  beforeAll(async () => {
    postgres = await runningPostgres();
    server = await startTestServer({ database: { kind: 'postgres', url: postgres.url } });
    client = new pg.Client(postgres.url);
    await client.connect();
    await seedScale(client, DRIVERS, server.app.now());
  }, 600_000);

  afterAll(async () => {
    await client?.end();
    await server?.close();
    postgres?.remove();
  });

  /** The statements `work` ran through the app's database, each as PostgreSQL plans it. */
  async function plansOf(app: FastifyInstance, work: () => Promise<unknown>): Promise<{ sql: string; plan: string }[]> {
    const ran: { sql: string; params: unknown[] }[] = [];
    const { query } = app.db;
    app.db.query = (sql, params = []) => {
      ran.push({ sql, params });
      return query(sql, params);
    };
    try {
      await work();
    } finally {
      app.db.query = query;
    }
    const reads = ran.filter(({ sql }) => /^\s*(WITH|SELECT|UPDATE)/i.test(sql));
    return Promise.all(
      reads.map(async ({ sql, params }) => ({
        sql,
        plan: (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params)).rows.map((row) => row['QUERY PLAN']).join('\n'),
      })),
    );
  }

  /** The tables a plan reads whole. */
  const wholeTables = (plans: { plan: string }[]) => plans.flatMap(({ plan }) => [...plan.matchAll(WHOLE_TABLE)].map((match) => match[1]));

  it.each([
    ['reminders', 'driver_progress_remind_check_idx', (app: FastifyInstance) => app.reminders.remindDue()],
    ['document expiries', 'driver_progress_expiry_check_idx', (app: FastifyInstance) => app.expiries.noticeDue()],
    ['notice delivery', 'outgoing_notices_due_idx', (app: FastifyInstance) => app.messaging.deliverDue()],
    ['webhook delivery', 'webhook_deliveries_due', (app: FastifyInstance) => app.webhooks.deliverDue()],
  ])('the %s pass reads %s, no table of drivers or notices whole', async (_name, index, pass) => {
    // The first pass sends what the seed left due; the second has nothing to do.
    await pass(server.app);
    const plans = await plansOf(server.app, () => pass(server.app));
    expect(plans[0]!.plan).toContain(index);
    expect(wholeTables(plans)).toEqual([]);
  });

  it('the document expiries pass leaves no driver to read until a notice of theirs can go', async () => {
    await server.app.expiries.noticeDue();
    const { rows } = await client.query<{ count: number }>('SELECT count(*)::int AS count FROM driver_progress WHERE expiry_check_at <= $1', [
      server.app.now(),
    ]);
    expect(rows[0]!.count).toBe(0);
  });

  it.each([
    ['the first page', '/admin/people'],
    ['the drivers who signed up last month', `/admin/people?from=${lastMonth.from}&to=${lastMonth.to}`],
    ['a search by name', `/admin/people?q=${RARE_LAST_NAME.toLowerCase()}`],
    ['a search by email', '/admin/people?q=driver-777@scale.example'],
    ['a search by phone', '/admin/people?q=(200) 000-0777'],
  ])('the Drivers list, %s, reads its indexes, no table of drivers whole', async (_name, url) => {
    const plans = await plansOf(server.app, async () => {
      const response = await server.app.inject({ method: 'GET', url: encodeURI(url), headers: bearer(server.reviewer.key) });
      expect(response.statusCode, response.body).toBe(200);
    });
    expect(plans.filter(({ sql }) => sql.includes('FROM driver_progress p'))).toHaveLength(2);
    expect(wholeTables(plans)).toEqual([]);
  });

  it.each([
    ['the drivers stopped at a step', '/admin/people?step=addVehicle'],
    ['the drivers stalled at a step', '/admin/people?step=addVehicle&stalledDays=7'],
  ])('the Drivers list, %s, counts them from where they stopped, no table of drivers whole', async (_name, url) => {
    const plans = await plansOf(server.app, async () => {
      const response = await server.app.inject({ method: 'GET', url, headers: bearer(server.reviewer.key) });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().drivers.length).toBeGreaterThan(0);
    });
    // Counted from where they stopped, not from every driver's times; the page reads whichever index of the sign-ups PostgreSQL finds the cheaper.
    const counts = plans.filter(({ sql }) => sql.includes('FROM driver_progress p') && sql.includes('count(*)'));
    expect(counts).toHaveLength(1);
    expect(counts[0]!.plan).toContain('Index Only Scan Backward using driver_progress_stopped_after_idx');
    expect(wholeTables(plans)).toEqual([]);
  });

  it("the insights for all time read the running totals, not every decision or every driver's times", async () => {
    const day = (at: number) => new Date(at).toISOString().slice(0, 10);
    const now = server.app.now().getTime();
    const plans = await plansOf(server.app, async () => {
      const response = await server.app.inject({
        method: 'GET',
        url: `/admin/insights?from=${day(now - 731 * DAY_MS)}&to=${day(now)}`,
        headers: bearer(server.reviewer.key),
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().drivers).toBe(DRIVERS);
    });
    const plan = plans.map(({ plan }) => plan).join('\n');
    expect(plan).toContain('on funnel_totals');
    expect(plan).toContain('on review_totals');
    expect(plan).not.toMatch(/on driver_reviews\b/);
    // The drivers' times are read only around the whole months (none here); every driver is counted once, for the stalled.
    const funnel = plans.filter(({ sql }) => sql.includes('funnel_rows'));
    expect(funnel).toHaveLength(1);
    expect(wholeTables(funnel)).toEqual([]);
    expect(wholeTables(plans).filter((table) => table !== 'driver_progress')).toEqual([]);
  });

  it("the review queue's search by an email reads the index of the emails' local parts, not their trigrams", async () => {
    const { rows } = await client.query<{ email: string }>(
      "SELECT email FROM drivers WHERE status = 'pending' AND submitted_at IS NOT NULL ORDER BY submitted_at, id OFFSET 1000 LIMIT 1",
    );
    const { email } = rows[0]!;
    const plans = await plansOf(server.app, async () => {
      const response = await server.app.inject({
        method: 'GET',
        url: `/admin/drivers?q=${encodeURIComponent(email.toUpperCase())}`,
        headers: bearer(server.reviewer.key),
      });
      expect(response.json().drivers.map((driver: { email: string }) => driver.email)).toEqual([email]);
    });
    const plan = plans.map(({ plan }) => plan).join('\n');
    expect(plan).toContain('drivers_email_local_reversed_idx');
    expect(plan).not.toContain('drivers_email_trgm_idx');
    expect(wholeTables(plans)).toEqual([]);
  });

  it("a driver's timeline reads their rows by index, no table of drivers or notices whole", async () => {
    const { rows } = await client.query<{ id: string }>("SELECT id FROM drivers WHERE email = 'driver-777@scale.example'");
    const plans = await plansOf(server.app, async () => {
      const response = await server.app.inject({ method: 'GET', url: `/admin/people/${rows[0]!.id}/timeline`, headers: bearer(server.reviewer.key) });
      expect(response.statusCode, response.body).toBe(200);
    });
    expect(wholeTables(plans)).toEqual([]);
  });

  it("the review queue's search by any part of a name reads the names' trigram index", async () => {
    const plans = await plansOf(server.app, async () => {
      const response = await server.app.inject({
        method: 'GET',
        url: `/admin/drivers?q=${RARE_LAST_NAME.toLowerCase()}`,
        headers: bearer(server.reviewer.key),
      });
      expect(response.json().drivers).toHaveLength(1);
    });
    expect(plans.map(({ plan }) => plan).join('\n')).toContain('drivers_review_name_trgm_idx');
    expect(wholeTables(plans)).toEqual([]);
  });

  it.each([
    // Those with a decision or waiting for one are met early on the sign-ups' index, newest first; those who only signed up, from where they stopped.
    ['approved', 'driver_progress_signed_up_at_idx'],
    ['waitingReview', 'driver_progress_signed_up_at_idx'],
    ['signedUp', 'driver_progress_stopped_after_idx'],
  ])('the Drivers list filtered by the status %s counts them reading %s, no table of drivers whole', async (status, index) => {
    const plans = await plansOf(server.app, async () => {
      const response = await server.app.inject({ method: 'GET', url: `/admin/people?status=${status}`, headers: bearer(server.reviewer.key) });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().drivers.map((driver: { status: string }) => driver.status)).toEqual(
        Array.from({ length: response.json().drivers.length }, () => status),
      );
    });
    const counts = plans.filter(({ sql }) => sql.includes('FROM driver_progress p') && sql.includes('count(*)'));
    expect(counts).toHaveLength(1);
    expect(counts[0]!.plan).toContain(index);
    expect(wholeTables(plans)).toEqual([]);
  });
});
