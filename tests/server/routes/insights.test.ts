// Insights: GET /admin/insights and its CSV on a seeded set of drivers whose figures
// tests/support/insightsSeed.ts computes on its own; who may read them; bad queries; the funnel
// follows the flow file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { Insights } from '../../../src/shared/review.js';
import type { Flow } from '../../../src/shared/flow.js';
import { funnelSteps } from '../../../src/server/lib/insights.js';
import { expectedFigures, FUNNEL, seedDrivers, writeSeed, type SeedDriver } from '../../support/insightsSeed.js';
import { bearer, json, staffKey, startTestServer, type TestServer } from '../../support/server.js';
import { expectStaffMessagesFromFiles } from '../../support/staffMessages.js';

const DAY_MS = 24 * 3600 * 1000;
let server: TestServer;
let drivers: SeedDriver[];
let base: Date;
const day = (date: Date) => date.toISOString().slice(0, 10);

beforeAll(async () => {
  server = await startTestServer();
  const today = Date.parse(`${day(new Date())}T00:00:00Z`);
  base = new Date(today - 20 * DAY_MS);
  drivers = seedDrivers(base);
  await writeSeed(server.db, drivers, 'server');
});
afterAll(() => server?.close());
expectStaffMessagesFromFiles(() => server);

const get = (url: string, key = server.reviewer.key) => server.app.inject({ method: 'GET', url, headers: bearer(key) });

describe('GET /admin/insights', () => {
  const cases = [
    { method: null, language: null, stalledDays: 7 },
    { method: null, language: null, stalledDays: 17 },
    { method: 'google.com', language: null, stalledDays: 15 },
    { method: 'password', language: 'es', stalledDays: 7 },
  ];
  for (const filter of cases) {
    it(`answers the figures computed from the drivers: ${JSON.stringify(filter)}`, async () => {
      const from = base;
      const until = new Date(base.getTime() + 12 * DAY_MS);
      const query = new URLSearchParams({ from: day(from), to: day(new Date(until.getTime() - DAY_MS)), stalledDays: String(filter.stalledDays) });
      if (filter.method) query.set('method', filter.method);
      if (filter.language) query.set('language', filter.language);
      const response = await get(`/admin/insights?${query}`);
      expect(response.statusCode).toBe(200);
      const answer = json<Insights>(response);
      const expected = expectedFigures(drivers, { from, until, ...filter, now: new Date() });
      // The seed is rich enough to tell figures apart: drivers stalled at some step, fixes asked for.
      if (!filter.method && !filter.language) expect(expected.steps.some((step) => (step.stalled ?? 0) > 0 && step.medianHours !== step.p90Hours)).toBe(true);
      expect(answer.timesExact).toBe(true);
      expect(answer.drivers).toBe(expected.drivers);
      expect(answer.steps.map(({ label: _label, ...step }) => step)).toEqual(expected.steps);
      expect(answer.review).toEqual(expected.review);
    });
  }

  it('counts only the drivers who signed up in the range, and decisions made in it', async () => {
    const first = day(new Date(base.getTime() + DAY_MS));
    const answer = json<Insights>(await get(`/admin/insights?from=${first}&to=${first}`));
    const expected = expectedFigures(drivers, {
      from: new Date(base.getTime() + DAY_MS),
      until: new Date(base.getTime() + 2 * DAY_MS),
      method: null,
      language: null,
      stalledDays: 7,
      now: new Date(),
    });
    expect(answer.drivers).toBe(expected.drivers);
    expect(answer.steps[0]!.completed).toBe(expected.drivers);
    expect(answer.review).toEqual(expected.review);
  });

  it('is for reviewers and owners, and each reading is in the audit record', async () => {
    const owner = await staffKey(server.app, ['owner']);
    expect((await get('/admin/insights', owner.key)).statusCode).toBe(200);
    const officer = await staffKey(server.app, ['privacy-officer']);
    const refused = await get('/admin/insights', officer.key);
    expect(refused.statusCode).toBe(403);
    expect(json(refused)).toEqual({ message: 'Your role does not allow this. It needs the role: reviewer or owner.' });
    expect((await server.app.inject({ method: 'GET', url: '/admin/insights' })).statusCode).toBe(401);
    const { rows } = await server.db.query<{ actor: string }>("SELECT actor FROM audit_events WHERE action = 'insights.open' ORDER BY id DESC LIMIT 1");
    expect(rows[0]!.actor).toBe(owner.email);
  });

  it('answers a range at either end of the calendar (years 0001 and 9999), not a 500', async () => {
    for (const query of ['from=9990-01-01&to=9999-12-31', 'from=0001-01-01&to=0001-12-31']) {
      for (const path of ['/admin/insights', '/admin/insights/download']) {
        const response = await get(`${path}?${query}`);
        expect(response.statusCode, `${path}?${query}: ${response.body}`).toBe(200);
      }
    }
  });

  it('refuses a bad query with a message', async () => {
    for (const [query, message] of [
      ['from=2026-02-31', 'from and to must be days as YYYY-MM-DD, e.g. 2026-01-31.'],
      ['to=yesterday', 'from and to must be days as YYYY-MM-DD, e.g. 2026-01-31.'],
      ['from=2026-03-02&to=2026-03-01', 'to must not be before from, and the range at most 3660 days.'],
      ['from=1900-01-01&to=2026-01-01', 'to must not be before from, and the range at most 3660 days.'],
      ['method=myspace.com', 'method must be password or one of the flow’s social sign-in providers: google.com, apple.com, facebook.com.'],
      ['language=fr', 'language must be one of the app’s languages, e.g. en or es.'],
      ['stalledDays=0', 'stalledDays must be a whole number from 1 to 365.'],
      ['stalledDays=1.5', 'stalledDays must be a whole number from 1 to 365.'],
      ['stalledDays=366', 'stalledDays must be a whole number from 1 to 365.'],
      ['stalledDays=1&stalledDays=2', 'stalledDays must be a whole number from 1 to 365.'],
      ['driver=x', 'Unknown query parameter: driver'],
    ]) {
      const response = await get(`/admin/insights?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(json(response).message).toBe(message);
    }
  });
});

describe('GET /admin/insights/download', () => {
  it('is the same figures as CSV', async () => {
    const query = `from=${day(base)}&to=${day(new Date(base.getTime() + 11 * DAY_MS))}&stalledDays=17`;
    const answer = json<Insights>(await get(`/admin/insights?${query}`));
    const response = await get(`/admin/insights/download?${query}`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    const tables = response.body
      .trimEnd()
      .split('\r\n\r\n')
      .map((table) => table.split('\r\n').map((line) => line.split(',')));
    const text = (value: number | null) => (value === null ? '' : String(value));
    expect(tables[0]).toEqual([
      ['from', 'to', 'method', 'language', 'stalledDays', 'drivers', 'timesExact'],
      [answer.from, answer.to, 'all', 'all', '17', String(answer.drivers), 'true'],
    ]);
    expect(tables[1]!.slice(1)).toEqual(
      answer.steps.map((step) => [step.step, step.label, ...[step.completed, step.conversion, step.medianHours, step.p90Hours, step.stalled].map(text)]),
    );
    const { review } = answer;
    expect(tables[2]![1]).toEqual([review.decisions, review.approved, review.approvalRate, review.medianHours, review.p90Hours].map(text));
    expect(tables[3]!.slice(1)).toEqual(review.byDay.map((row) => [row.day, text(row.decisions), text(row.medianHours)]));
    expect(tables[4]!.slice(1)).toEqual(review.fixReasons.map((fix) => [fix.reason, text(fix.count)]));
  });
});

describe('the funnel', () => {
  const flow = JSON.parse(readFileSync('flows/onboarding.flow.json', 'utf8')) as Flow;

  it('is the flow’s steps that record progress, in its order', () => {
    expect(funnelSteps(flow).map((step) => step.step)).toEqual([...FUNNEL]);
  });

  it('shows a form step added to the flow file with no change of code', () => {
    const steps = Object.entries(flow.steps);
    const at = steps.findIndex(([name]) => name === 'addBank');
    const added = { ...flow.steps.addBank!, route: '/add-tax-form', schema: 'bank' } as Flow['steps'][string];
    const edited = { ...flow, steps: Object.fromEntries([...steps.slice(0, at), ['addTaxForm', added], ...steps.slice(at)]) } as Flow;
    expect(funnelSteps(edited).map((step) => step.step)).toEqual([...FUNNEL.slice(0, -1), 'addTaxForm', 'addBank']);
  });
});
