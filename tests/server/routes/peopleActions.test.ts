// What staff do to drivers from the Drivers list: send the link back to their step by email or
// text (in the driver's language, one sign-in), a reminder now (refused in quiet hours, after an
// unsubscribe, while paused), pause and resume reminders (the pass honours it), a note on the
// timeline; the same in bulk (bounded in size and rate); the list as CSV. Each by role, each on the
// audit record, and the timeline in plain words.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BulkAnswer, TimelinePage } from '../../../src/shared/review.js';
import { expectStaffMessagesFromFiles } from '../../support/staffMessages.js';
import { bearer, deliveredBy, json, staffKey, startTestServer, verifiedDriver, verifyPhone, type TestServer } from '../../support/server.js';

const HOUR_MS = 3600 * 1000;
/** Noon in New York. */
const NOON = Date.UTC(2030, 0, 15, 17, 0);
/** 11 pm in New York: quiet hours. */
const NIGHT = Date.UTC(2030, 0, 16, 4, 0);

let server: TestServer;
let owner: { key: string; email: string };
let privacy: { key: string };
beforeAll(async () => {
  server = await startTestServer();
  owner = await staffKey(server.app, ['owner']);
  privacy = await staffKey(server.app, ['privacy-officer']);
});
afterAll(() => server?.close());
afterEach(() => server.clock.reset());
expectStaffMessagesFromFiles(() => server);

const at = (ms: number) => {
  server.clock.offsetMs = ms - Date.now();
};
const post = (url: string, payload?: object, key = server.reviewer.key) =>
  server.app.inject({ method: 'POST', url, headers: bearer(key), ...(payload && { payload }) });
const timeline = async (id: string) =>
  json<TimelinePage>(await server.app.inject({ method: 'GET', url: `/admin/people/${id}/timeline`, headers: bearer(owner.key) }));
const audited = async (id: string) =>
  (
    await server.db.query<{ action: string; details: object; actor: string }>(
      'SELECT action, details, actor FROM audit_events WHERE driver_id = $1 ORDER BY id',
      [id],
    )
  ).rows;

/** A driver who signed up and verified their email (and phone) at `since`, stopped at the profile. */
async function seeded(since: number, options: { locale?: string; emailVerified?: boolean } = {}): Promise<{ id: string; email: string }> {
  const email = `acted-${randomUUID()}@example.com`;
  const { rows } = await server.db.query<{ id: string }>(
    `INSERT INTO drivers (email, firebase_uid, provider, phone, locale, email_verified_at, phone_verified_at, created_at, updated_at)
     VALUES ($1, $2, 'password', $3, $4, $5, $6, $6, $6) RETURNING id`,
    [
      email,
      randomUUID(),
      `+1202555${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`,
      options.locale ?? 'en',
      options.emailVerified === false ? null : new Date(since),
      new Date(since),
    ],
  );
  return { id: rows[0]!.id, email };
}

describe('POST /admin/people/:id/resume-link', () => {
  it('emails the driver, in their language, a link that signs them in once and takes them to their step; on the audit record and the timeline', async () => {
    const driver = await verifiedDriver(server.app);
    await server.db.query("UPDATE drivers SET locale = 'es' WHERE id = $1", [driver.driverId]);
    const response = await post(`/admin/people/${driver.driverId}/resume-link`, { channel: 'email' });
    expect(response.statusCode, response.body).toBe(200);
    const sent = (await deliveredBy(server.db, server.app)).find((entry) => entry.to === driver.email && 'notice' in entry && entry.notice === 'resumeLink')!;
    expect(sent.subject).toBe('Sigue con tu registro en Onramp');
    const link = /justo donde lo dejaste: (\S+)\n/.exec(sent.text)?.[1];
    expect(link).toMatch(new RegExp(`^http://[^/]+/${driver.driverId}/[^/\\s]+$`));
    expect(sent.text).toContain('Te inicia sesión una vez y sirve durante 15 minutos.');
    // The link's token is good for one reading of the driver's status, as a reviewer's resume link.
    const token = decodeURIComponent(link!.split('/').at(-1)!);
    const status = await server.app.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(token) });
    expect(status.statusCode).toBe(200);
    expect((await server.app.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(token) })).statusCode).toBe(401);
    expect(await audited(driver.driverId)).toContainEqual(
      expect.objectContaining({ action: 'driver.resume-link-sent', actor: server.reviewer.email, details: expect.objectContaining({ channel: 'email' }) }),
    );
    const events = (await timeline(driver.driverId)).events.map((event) => [event.kind, event.label, event.channel ?? null, event.by ?? null]);
    expect(events).toContainEqual(['notice', 'Link back to their step', 'email', null]);
    expect(events).toContainEqual(['staff', 'Sent them a link back to their step', null, server.reviewer.email]);
  });

  it('texts it to a verified phone, and refuses a driver with none, or whose email is not verified', async () => {
    const texted = await verifiedDriver(server.app);
    const noPhone = await post(`/admin/people/${texted.driverId}/resume-link`, { channel: 'sms' });
    expect(noPhone.statusCode).toBe(409);
    expect(json(noPhone).message).toBe('This driver has no verified phone number that takes text messages: send the link by email.');
    await verifyPhone(server.app, texted);
    expect((await post(`/admin/people/${texted.driverId}/resume-link`, { channel: 'sms' })).statusCode).toBe(200);
    const sent = (await deliveredBy(server.db, server.app)).filter((entry) => 'notice' in entry && entry.notice === 'resumeLink' && entry.to === texted.phone);
    expect(sent.map((entry) => entry.channel)).toEqual(['sms']);
    expect(sent[0]!.text).toMatch(
      new RegExp(`^Onramp: carry on signing up where you left off: http://[^/]+/${texted.driverId}/\\S+ \\(works once, for 15 minutes\\)$`),
    );
    const unverified = await seeded(Date.now(), { emailVerified: false });
    const refused = await post(`/admin/people/${unverified.id}/resume-link`, { channel: 'email' });
    expect(refused.statusCode).toBe(409);
    expect(json(refused).message).toBe('This driver has not verified their email yet: they can finish signing up, or sign in, at the sign-up page.');
    const bad = await post(`/admin/people/${texted.driverId}/resume-link`, { channel: 'pigeon' });
    expect(bad.statusCode).toBe(400);
    expect(json(bad).message).toBe('channel must be email or sms.');
  });
});

describe('POST /admin/people/:id/remind', () => {
  it('sends the reminder of where they stopped now, by the reminders’ rules, and says why when it cannot', async () => {
    at(NOON - 30 * HOUR_MS);
    const driver = await seeded(NOON - 30 * HOUR_MS);
    at(NIGHT);
    const quiet = await post(`/admin/people/${driver.id}/remind`);
    expect(quiet.statusCode).toBe(409);
    expect(json(quiet).message).toBe(
      'It is quiet hours where this driver lives (21:00 to 08:00, America/New_York time): no reminder goes out until 08:00 there.',
    );
    at(NOON);
    const sent = await post(`/admin/people/${driver.id}/remind`);
    expect(sent.statusCode, sent.body).toBe(200);
    const again = await post(`/admin/people/${driver.id}/remind`);
    expect(json(again).message).toBe('A reminder went to this driver less than an hour ago.');
    // It counts as the reminder due: the pass does not send that one again.
    await server.app.reminders.remindDue();
    const { rows } = await server.db.query("SELECT step FROM outgoing_notices WHERE driver_id = $1 AND notice = 'reminder'", [driver.id]);
    expect(rows).toEqual([{ step: 'completeProfile' }]);
    expect((await timeline(driver.id)).events.filter((event) => event.kind === 'reminder').map((event) => [event.label, event.channel])).toEqual([
      ['Complete profile', 'email'],
    ]);
    expect((await audited(driver.id)).map((row) => row.action)).toContain('driver.remind');

    const unsubscribed = await seeded(NOON - 30 * HOUR_MS);
    await server.db.query('UPDATE drivers SET reminders_stopped_at = $2 WHERE id = $1', [unsubscribed.id, new Date(NOON)]);
    const refused = await post(`/admin/people/${unsubscribed.id}/remind`);
    expect(refused.statusCode).toBe(409);
    expect(json(refused).message).toBe('This driver asked for no more reminders, so none can be sent.');
    expect((await timeline(unsubscribed.id)).reminders).toBe('unsubscribed');
  });
});

describe('POST /admin/people/:id/reminders', () => {
  it('pauses a driver’s reminders, which the pass then skips, and resumes them', async () => {
    at(NOON - 25 * HOUR_MS);
    const driver = await seeded(NOON - 25 * HOUR_MS);
    at(NOON);
    expect((await post(`/admin/people/${driver.id}/reminders`, { paused: true })).statusCode).toBe(200);
    const page = await timeline(driver.id);
    expect(page.reminders).toBe('paused');
    expect(page.due).toEqual([]);
    expect(json(await post(`/admin/people/${driver.id}/remind`)).message).toBe('Reminders are paused for this driver: resume them first.');
    await server.app.reminders.remindDue();
    const count = async () => (await server.db.query("SELECT FROM outgoing_notices WHERE driver_id = $1 AND notice = 'reminder'", [driver.id])).rows.length;
    expect(await count()).toBe(0);
    expect((await post(`/admin/people/${driver.id}/reminders`, { paused: false })).statusCode).toBe(200);
    expect((await timeline(driver.id)).reminders).toBe('on');
    await server.app.reminders.remindDue();
    expect(await count()).toBe(1);
    expect((await audited(driver.id)).map((row) => row.action)).toEqual(expect.arrayContaining(['driver.reminders-pause', 'driver.reminders-resume']));
  });
});

describe('POST /admin/people/:id/notes', () => {
  it('shows a colleague’s note on the timeline; the audit record says a note was added, not what it says', async () => {
    const driver = await seeded(Date.now());
    expect((await post(`/admin/people/${driver.id}/notes`, { text: 'Called them: their licence is being renewed.' })).statusCode).toBe(200);
    expect((await timeline(driver.id)).events).toContainEqual(
      expect.objectContaining({ kind: 'note', label: 'Called them: their licence is being renewed.', by: server.reviewer.email }),
    );
    expect((await audited(driver.id)).find((row) => row.action === 'driver.note')).toEqual({
      action: 'driver.note',
      details: {},
      actor: server.reviewer.email,
    });
    const empty = await post(`/admin/people/${driver.id}/notes`, { text: '  ' });
    expect(empty.statusCode).toBe(400);
    expect(json(empty).message).toBe('text must be a note of 1 to 2000 characters.');
  });
});

describe('roles', () => {
  it('lets reviewers and owners act on one driver, owners alone in bulk or download; a privacy officer none', async () => {
    const driver = await seeded(Date.now());
    for (const [url, payload] of [
      [`/admin/people/${driver.id}/resume-link`, { channel: 'email' }],
      [`/admin/people/${driver.id}/remind`, undefined],
      [`/admin/people/${driver.id}/reminders`, { paused: true }],
      [`/admin/people/${driver.id}/notes`, { text: 'x' }],
    ] as const) {
      const refused = await post(url, payload, privacy.key);
      expect(refused.statusCode).toBe(403);
      expect(json(refused).message).toBe('Your role does not allow this. It needs the role: reviewer or owner.');
    }
    const bulk = await post('/admin/people/bulk', { ids: [driver.id], action: { kind: 'pauseReminders' } });
    expect(bulk.statusCode).toBe(403);
    expect(json(bulk).message).toBe('Your role does not allow this. It needs the role: owner.');
    const download = await server.app.inject({ method: 'GET', url: '/admin/people/download', headers: bearer(server.reviewer.key) });
    expect(download.statusCode).toBe(403);
    expect((await post('/admin/people/00000000-0000-4000-8000-000000000000/remind')).statusCode).toBe(404);
    expect(await audited(driver.id)).toEqual([]);
  });
});

describe('POST /admin/people/bulk', () => {
  it('acts on each driver asked, and answers for each whether it was done or why not', async () => {
    at(NOON - 30 * HOUR_MS);
    const due = await seeded(NOON - 30 * HOUR_MS);
    const unsubscribed = await seeded(NOON - 30 * HOUR_MS);
    await server.db.query('UPDATE drivers SET reminders_stopped_at = $2 WHERE id = $1', [unsubscribed.id, new Date(NOON - HOUR_MS)]);
    at(NOON);
    const nobody = '00000000-0000-4000-8000-000000000000';
    const response = await post('/admin/people/bulk', { ids: [due.id, unsubscribed.id, nobody], action: { kind: 'remind' } }, owner.key);
    expect(response.statusCode, response.body).toBe(200);
    expect(json<BulkAnswer>(response).results).toEqual([
      { id: due.id, done: true },
      { id: unsubscribed.id, done: false, message: 'This driver asked for no more reminders, so none can be sent.' },
      { id: nobody, done: false, message: 'There is no driver with this id.' },
    ]);
    expect((await audited(due.id)).map((row) => [row.action, row.actor])).toEqual([['driver.remind', owner.email]]);
  });

  it('takes at most 50 drivers a request and 20 requests a minute', async () => {
    const tooMany = await post('/admin/people/bulk', { ids: Array.from({ length: 51 }, () => randomUUID()), action: { kind: 'pauseReminders' } }, owner.key);
    expect(tooMany.statusCode).toBe(400);
    expect(json(tooMany).message).toBe('ids must be 1 to 50 different driver ids.');
    const other = await staffKey(server.app, ['owner']);
    const driver = await seeded(Date.now());
    const statuses: number[] = [];
    for (let index = 0; index < 21; index++)
      statuses.push((await post('/admin/people/bulk', { ids: [driver.id], action: { kind: 'pauseReminders' } }, other.key)).statusCode);
    expect(statuses.slice(0, 20).every((status) => status === 200)).toBe(true);
    const limited = await post('/admin/people/bulk', { ids: [driver.id], action: { kind: 'pauseReminders' } }, other.key);
    expect(limited.statusCode).toBe(429);
    expect(json(limited).message).toBe('Too many bulk actions at once: wait a minute, then carry on.');
  });
});

describe('GET /admin/people/download', () => {
  it('is the filtered list as CSV: who and where they stand, no answers, no formula a spreadsheet would run; on the audit record', async () => {
    const driver = await seeded(Date.now());
    await server.db.query('UPDATE drivers SET review_name = \'=HYPERLINK("http://evil.example","x")\' WHERE id = $1', [driver.id]);
    const response = await server.app.inject({
      method: 'GET',
      url: `/admin/people/download?q=${encodeURIComponent(driver.email)}`,
      headers: bearer(owner.key),
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    const [header, row, ...rest] = response.body.split('\r\n');
    expect(header).toBe('id,name,email,phone,status,stoppedAt,since,signedUpAt,lastActivityAt,provider,language,state');
    expect(rest).toEqual(['']);
    expect(row!.startsWith(`${driver.id},"'=HYPERLINK(""http://evil.example"",""x"")",${driver.email},'+1202555`)).toBe(true);
    expect(row).toContain(',inProgress,Complete profile,');
    const { rows } = await server.db.query<{ details: object }>("SELECT details FROM audit_events WHERE action = 'people.download' ORDER BY id DESC LIMIT 1");
    expect(rows[0]!.details).toEqual({ q: 'given', rows: 1 });
  });
});
