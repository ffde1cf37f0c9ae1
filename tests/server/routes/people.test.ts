// Every driver for staff: GET /admin/people (filters, search, cursor paging, the stalled counts the
// insights show) on the seeded drivers of tests/support/insightsSeed.ts, and a driver's timeline
// GET /admin/people/:id/timeline; who may read them; a privacy officer's lookup by email or phone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Insights, PeoplePage, PrivacyLookup, TimelinePage } from '../../../src/shared/review.js';
import { writeFunnelOrder } from '../../../src/server/lib/funnelOrder.js';
import { funnelSteps } from '../../../src/shared/funnel.js';
import { seedDrivers, writeSeed, type SeedDriver } from '../../support/insightsSeed.js';
import { bearer, completeProfile, json, staffKey, startTestServer, verifiedDriver, type TestServer } from '../../support/server.js';

const DAY_MS = 24 * 3600 * 1000;
let server: TestServer;
let seeded: SeedDriver[];
let base: Date;
const day = (date: Date) => date.toISOString().slice(0, 10);

beforeAll(async () => {
  server = await startTestServer();
  base = new Date(Date.parse(`${day(new Date())}T00:00:00Z`) - 20 * DAY_MS);
  seeded = seedDrivers(base);
  await writeSeed(server.db, seeded, 'people');
});
afterAll(() => server?.close());

const get = (url: string, key = server.reviewer.key) => server.app.inject({ method: 'GET', url, headers: bearer(key) });
const seedRange = () => `from=${day(base)}&to=${day(new Date(base.getTime() + 2 * DAY_MS))}`;

describe('GET /admin/people', () => {
  it('answers a range at either end of the calendar (years 0001 and 9999), not a 500', async () => {
    const owner = await staffKey(server.app, ['owner']);
    for (const query of ['to=9999-12-31', 'from=9999-12-31&to=9999-12-31', 'from=0001-01-01&to=0001-01-02']) {
      for (const path of ['/admin/people', '/admin/people/download']) {
        const response = await get(`${path}?${query}`, owner.key);
        expect(response.statusCode, `${path}?${query}: ${response.body}`).toBe(200);
      }
    }
  });

  const filters = ['', '&method=google.com', '&method=password&language=es', '&language=en'];
  for (const stalledDays of [3, 7, 17]) {
    for (const filter of filters) {
      it(`lists exactly the drivers the insights count as stalled at each step: stalledDays=${stalledDays}${filter}`, async () => {
        const query = `${seedRange()}&stalledDays=${stalledDays}${filter}`;
        const insights = json<Insights>(await get(`/admin/insights?${query}`));
        let stalledSeen = 0;
        for (const step of insights.steps.slice(1)) {
          const response = await get(`/admin/people?${query}&step=${step.step}&limit=200`);
          expect(response.statusCode).toBe(200);
          const page = json<PeoplePage>(response);
          expect(page.total).toBe(step.stalled);
          expect(page.drivers).toHaveLength(step.stalled!);
          for (const driver of page.drivers) expect(driver.stoppedAt).toBe(step.label);
          stalledSeen += step.stalled!;
        }
        if (filter === '' && stalledDays === 3) expect(stalledSeen).toBeGreaterThan(0);
      });
    }
  }

  it('pages with a cursor: every driver once, newest sign-up first, the same as one long page', async () => {
    const whole = json<PeoplePage>(await get(`/admin/people?${seedRange()}&limit=200`));
    expect(whole.total).toBe(seeded.length);
    expect(whole.next).toBeNull();
    const ids: string[] = [];
    let after = '';
    do {
      const page = json<PeoplePage>(await get(`/admin/people?${seedRange()}&limit=5${after && `&after=${after}`}`));
      expect(page.total).toBe(seeded.length);
      ids.push(...page.drivers.map((driver) => driver.id));
      after = page.next ?? '';
    } while (after);
    expect(ids).toEqual(whole.drivers.map((driver) => driver.id));
    const signedUp = whole.drivers.map((driver) => driver.signedUpAt);
    expect(signedUp).toEqual([...signedUp].sort().reverse());
  });

  it('sorts by last activity, oldest first, across pages', async () => {
    const ids: string[] = [];
    const times: string[] = [];
    let after = '';
    do {
      const page = json<PeoplePage>(await get(`/admin/people?${seedRange()}&sort=oldestActivity&limit=7${after && `&after=${after}`}`));
      ids.push(...page.drivers.map((driver) => driver.id));
      times.push(...page.drivers.map((driver) => driver.lastActivityAt));
      after = page.next ?? '';
    } while (after);
    expect(new Set(ids).size).toBe(seeded.length);
    expect(times).toEqual([...times].sort());
  });

  it('filters by status', async () => {
    const approved = json<PeoplePage>(await get(`/admin/people?${seedRange()}&status=approved&limit=200`));
    expect(approved.total).toBe(seeded.filter((driver) => driver.decision?.decision === 'approved').length);
    expect(new Set(approved.drivers.map((driver) => driver.status))).toEqual(new Set(['approved']));
  });

  it('finds a driver by their exact email, and nobody by part of it', async () => {
    const found = json<PeoplePage>(await get('/admin/people?q=INSIGHTS-people-3@example.com'));
    expect(found.drivers.map((driver) => driver.email)).toEqual(['insights-people-3@example.com']);
    expect(json<PeoplePage>(await get('/admin/people?q=people-3@example.com')).total).toBe(0);
  });

  it('finds a driver by their exact phone, however it is typed', async () => {
    const driver = await verifiedDriver(server.app);
    const typed = `(${driver.phone.slice(2, 5)}) ${driver.phone.slice(5, 8)}-${driver.phone.slice(8)}`;
    const found = json<PeoplePage>(await get(`/admin/people?q=${encodeURIComponent(typed)}`));
    expect(found.drivers.map((row) => row.id)).toEqual([driver.driverId]);
    expect(found.drivers[0]).toMatchObject({ email: driver.email, status: 'inProgress', stoppedAt: 'Verify phone' });
  });

  it('refuses a step the flow does not have, and a part it does not know', async () => {
    const badStep = await get('/admin/people?step=nowhere');
    expect(badStep.statusCode).toBe(400);
    expect(json(badStep).message).toMatch(/^step must be one of the flow’s steps: signup, verifyEmail, /);
    const unknown = await get('/admin/people?colour=red');
    expect(unknown.statusCode).toBe(400);
    expect(json(unknown).message).toBe('Unknown query parameter: colour');
    const cursor = await get('/admin/people?after=bm9wZQ');
    expect(cursor.statusCode).toBe(400);
    expect(json(cursor).message).toBe('after must be the "next" of an earlier page.');
  });

  it('is for reviewers and owners: a privacy officer is refused, and so is nobody', async () => {
    const owner = await staffKey(server.app, ['owner']);
    expect((await get('/admin/people', owner.key)).statusCode).toBe(200);
    const privacy = await staffKey(server.app, ['privacy-officer']);
    const refused = await get('/admin/people', privacy.key);
    expect(refused.statusCode).toBe(403);
    expect(json(refused).message).toBe('Your role does not allow this. It needs the role: reviewer or owner.');
    expect((await server.app.inject({ method: 'GET', url: '/admin/people' })).statusCode).toBe(401);
  });
});

describe('GET /admin/people/:id/timeline', () => {
  it('tells what happened to the driver in time order, and the reminders still due', async () => {
    const driver = await verifiedDriver(server.app);
    await completeProfile(server.app, driver);
    const first = json<TimelinePage>(await get(`/admin/people/${driver.driverId}/timeline`));
    // Where they stopped is after the last step they passed, as the insights count it.
    expect(first.driver).toMatchObject({ id: driver.driverId, status: 'inProgress', stoppedAt: 'Upload vehicle images' });
    expect(first.events.map((event) => [event.kind, event.label, event.channel ?? null])).toEqual([
      ['step', 'Sign up', null],
      ['codeSent', 'Verify email', 'email'],
      ['codeVerified', 'Verify email', 'email'],
      ['codeSent', 'Verify phone', 'sms'],
      ['codeVerified', 'Verify phone', 'sms'],
      ['step', 'Complete profile', null],
    ]);
    const times = first.events.map((event) => event.at);
    expect(times).toEqual([...times].sort());
    // The reminders pass's, for the next step: 24 and 72 hours after the latest progress (kept to the whole second).
    const latest = Date.parse(times[times.length - 1]!);
    expect(first.due.map((event) => event.label)).toEqual(['Upload vehicle images', 'Upload vehicle images']);
    const [firstDue, secondDue] = first.due.map((event) => Date.parse(event.at)) as [number, number];
    expect(latest + 24 * 3600 * 1000 - firstDue).toBeGreaterThanOrEqual(0);
    expect(latest + 24 * 3600 * 1000 - firstDue).toBeLessThan(1000);
    expect(secondDue - firstDue).toBe(48 * 3600 * 1000);
    const again = json<TimelinePage>(await get(`/admin/people/${driver.driverId}/timeline`));
    expect(again.events.at(-1)).toMatchObject({ kind: 'staff', label: 'Opened their timeline', by: server.reviewer.email });
  });

  it('answers 404 for an id that names nobody', async () => {
    const response = await get('/admin/people/00000000-0000-4000-8000-000000000000/timeline');
    expect(response.statusCode).toBe(404);
    expect(json(response).message).toBe('There is no driver with this id.');
  });
});

describe('GET /admin/privacy/lookup', () => {
  it('finds the driver a request is about by their whole email or phone, and records each lookup without what was asked', async () => {
    const officer = await staffKey(server.app, ['privacy-officer']);
    const driver = await verifiedDriver(server.app);
    const byEmail = await get(`/admin/privacy/lookup?q=${encodeURIComponent(driver.email.toUpperCase())}`, officer.key);
    expect(byEmail.statusCode).toBe(200);
    expect(json<PrivacyLookup>(byEmail).drivers.map((found) => [found.id, found.email])).toEqual([[driver.driverId, driver.email]]);
    const byPhone = json<PrivacyLookup>(await get(`/admin/privacy/lookup?q=${encodeURIComponent(driver.phone.slice(2))}`, officer.key));
    expect(byPhone.drivers.map((found) => found.id)).toEqual([driver.driverId]);
    const { rows } = await server.db.query<{ details: unknown }>("SELECT details FROM audit_events WHERE action = 'driver.lookup' ORDER BY id DESC LIMIT 2");
    expect(rows.map((row) => row.details)).toEqual([
      { by: 'phone', found: 1 },
      { by: 'email', found: 1 },
    ]);
  });

  it('never matches part of an email or a name', async () => {
    const officer = await staffKey(server.app, ['privacy-officer']);
    expect(json<PrivacyLookup>(await get('/admin/privacy/lookup?q=people-3@example.com', officer.key)).drivers).toEqual([]);
    const partial = await get('/admin/privacy/lookup?q=insights-people', officer.key);
    expect(partial.statusCode).toBe(400);
    expect(json(partial).message).toBe('Give the driver’s whole email or phone number: a request is matched exactly, never in part.');
  });
});

describe('where drivers stopped, when the funnel changes', () => {
  it('is written again at start for every driver, and the list filtered by a step still holds whom the insights count there', async () => {
    // As another funnel order left it: each step elsewhere in the funnel, each driver's stop by that order.
    await server.db.query('UPDATE progress_steps SET funnel_index = 100 - funnel_index');
    await server.db.query('UPDATE driver_progress SET stopped_after = 0, stopped_since = signed_up_at');
    expect(
      await writeFunnelOrder(
        server.db,
        funnelSteps(server.app.callReader.flow).map((step) => step.recordedAs),
      ),
    ).toBe(true);
    const query = `${seedRange()}&stalledDays=3`;
    const insights = json<Insights>(await get(`/admin/insights?${query}`));
    for (const step of insights.steps.slice(1)) {
      const page = json<PeoplePage>(await get(`/admin/people?${query}&step=${step.step}&limit=200`));
      expect(page.total).toBe(step.stalled);
      for (const driver of page.drivers) expect(driver.stoppedAt).toBe(step.label);
    }
    expect(insights.steps.slice(1).some((step) => step.stalled! > 0)).toBe(true);
    // Started again with the same order: nothing to write.
    expect(
      await writeFunnelOrder(
        server.db,
        funnelSteps(server.app.callReader.flow).map((step) => step.recordedAs),
      ),
    ).toBe(false);
  });
});
