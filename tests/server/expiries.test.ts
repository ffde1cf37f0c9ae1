// Documents that expire with a moved clock: the notices of flows/notices.json's expiries
// on the configured days before a document's date and not before, once each however many server
// instances run, in the driver's language, by text only with consent; an expired one unreplaced
// does what the data says (askFix: a fix asked, "document expired" in the queue); an approved
// driver replaces an expiring document and only it, which is reviewed again; the reviewers' list
// of what expires soon, refused to a driver's session and to no session.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadNotices } from '../../src/node/projectFiles.js';
import { SERVER_MESSAGES } from '../../src/server/serverMessages.js';
import { isoDateOffset } from '../../src/shared/dates.js';
import type { ExpiringList, QueuePage, ReviewDriver, StepAnswersAnswer } from '../../src/shared/review.js';
import {
  approvedDriver,
  bearer,
  decide,
  file,
  formData,
  JPEG_BYTES,
  json,
  deliveredBy,
  PNG_BYTES,
  post,
  startTestServer,
  vehicleValues,
  type FormValue,
  type TestDriver,
  type TestServer,
} from '../support/server.js';

const DAY_MS = 24 * 3600 * 1000;
/** Noon in New York on a day of its own: a document's date is counted from here. */
const T0 = Date.UTC(2031, 2, 10, 17, 0);
const dayAfter = (days: number) => new Date(T0 + days * DAY_MS).toISOString().slice(0, 10);
const expiries = loadNotices().expiries;

let server: TestServer;
let other: FastifyInstance;
beforeAll(async () => {
  server = await startTestServer();
  other = await server.buildAnother();
});
afterAll(async () => {
  server.clock.reset();
  await server?.close();
});

/** The clock moved once neither instance is delivering. */
const at = (ms: number) => server.moveClockTo(ms);
const pass = () => server.app.expiries.noticeDue();

interface Seeded {
  id: string;
  email: string;
}

/** An approved driver whose proof of insurance expires on `insurance` (the other documents years later). */
async function approved(insurance: string, options: { smsConsent?: boolean; locale?: string; state?: string } = {}): Promise<Seeded> {
  const email = `expiring-${randomUUID()}@example.com`;
  const { rows } = await server.db.query<{ id: string }>(
    `INSERT INTO drivers (email, firebase_uid, provider, phone, locale, sms_consent_at, email_verified_at, phone_verified_at, profile_completed_at,
       is_session_complete, status, submitted_at, reviewed_at, created_at, updated_at)
     VALUES ($1, $2, 'password', $3, $4, $5, $6, $6, $6, true, 'approved', $6, $6, $6, $6) RETURNING id`,
    [
      email,
      randomUUID(),
      `+1202555${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`,
      options.locale ?? 'en',
      options.smsConsent ? new Date(T0 - 400 * DAY_MS) : null,
      new Date(T0 - 400 * DAY_MS),
    ],
  );
  const id = rows[0]!.id;
  const answer = (step: string, answers: Record<string, unknown>) =>
    server.db.query(`INSERT INTO step_answers (driver_id, step, schema_name, schema_version, answers, submitted_at) VALUES ($1, $2, $2, 'test', $3, $4)`, [
      id,
      step,
      JSON.stringify(answers),
      new Date(T0 - 400 * DAY_MS),
    ]);
  if (options.state) await answer('completeProfile', { state: options.state });
  await answer('addVehicle', {
    plateNumber: 'EXP1',
    proofInsuranceExpiryDate: insurance,
    driverLicenseExpiryDate: dayAfter(2000),
    vehicleRegistrationExpiryDate: dayAfter(2000),
  });
  return { id, email };
}

/** The expiry notices recorded for a driver: by notice and channel. */
async function notices(driver: Seeded) {
  const { rows } = await server.db.query<{ notice: string; channel: string; count: number }>(
    `SELECT notice, channel, count(*)::int AS count FROM outgoing_notices WHERE driver_id = $1 AND notice IN ('documentExpiring', 'documentExpired')
     GROUP BY notice, channel ORDER BY notice, channel`,
    [driver.id],
  );
  return Object.fromEntries(rows.map((row) => [`${row.notice} ${row.channel}`, row.count]));
}

/** What either instance delivered: each also delivers in the background, into its own local outbox. */
const delivered = () => deliveredBy(server.db, server.app, other);

const asReviewer = (url: string) => server.app.inject({ method: 'GET', url, headers: bearer(server.reviewer.key) });

describe('expiry notices', () => {
  it('go on the configured days before the date and not before, once each, then once it has expired', async () => {
    expect(expiries.daysBefore).toEqual([30, 7]);
    const driver = await approved(dayAfter(40));
    await at(T0 + 9 * DAY_MS);
    await pass();
    expect(await notices(driver)).toEqual({});
    await at(T0 + 10 * DAY_MS);
    await pass();
    expect(await notices(driver)).toEqual({ 'documentExpiring email': 1 });
    await pass();
    await at(T0 + 20 * DAY_MS);
    await pass();
    expect(await notices(driver)).toEqual({ 'documentExpiring email': 1 });
    await at(T0 + 33 * DAY_MS);
    await pass();
    expect(await notices(driver)).toEqual({ 'documentExpiring email': 2 });
    // On the date itself the document still holds.
    await at(T0 + 40 * DAY_MS);
    await pass();
    expect(await notices(driver)).toEqual({ 'documentExpiring email': 2 });
    const sent = (await delivered()).filter((entry) => entry.to === driver.email);
    expect(sent.map((entry) => entry.subject)).toEqual([
      `Your proof of insurance expires on April 19, 2031`,
      `Your proof of insurance expires on April 19, 2031`,
    ]);
    expect(sent[0]!.text).toMatch(
      /^Your proof of insurance expires on April 19, 2031\. To keep driving with Onramp, sign in and send the new one with its expiry date before then: http:\/\/[^\s]+\/sign-in\n/,
    );
  });

  it('are sent once by two server instances at once', async () => {
    const drivers = await Promise.all([approved(dayAfter(37)), approved(dayAfter(37)), approved(dayAfter(37))]);
    await at(T0 + 7 * DAY_MS);
    await Promise.all([pass(), other.expiries.noticeDue(), pass(), other.expiries.noticeDue()]);
    for (const driver of drivers) expect(await notices(driver)).toEqual({ 'documentExpiring email': 1 });
  });

  it('skip a notice whose day went by (approved inside the window): only the nearest one due goes', async () => {
    const late = await approved(dayAfter(5));
    await at(T0);
    await pass();
    await pass();
    expect(await notices(late)).toEqual({ 'documentExpiring email': 1 });
  });

  it('go in the driver’s language, by text only with consent, and wait for the morning in their state', async () => {
    const consenting = await approved(dayAfter(30), { smsConsent: true });
    const spanish = await approved(dayAfter(30), { locale: 'es' });
    // 17:00 UTC on the day 30 days before: 1 pm in New York, but 7 am in Hawaii.
    const hawaiian = await approved(dayAfter(30), { state: 'HI' });
    await at(T0);
    await pass();
    expect(await notices(consenting)).toEqual({ 'documentExpiring email': 1, 'documentExpiring sms': 1 });
    expect(await notices(spanish)).toEqual({ 'documentExpiring email': 1 });
    expect(await notices(hawaiian)).toEqual({});
    await at(T0 + 3 * 3600 * 1000);
    await pass();
    expect(await notices(hawaiian)).toEqual({ 'documentExpiring email': 1 });
    const sent = await delivered();
    const text = sent.find((entry) => entry.channel === 'sms' && 'notice' in entry && entry.notice === 'documentExpiring')!;
    expect(text.text).toMatch(/^Onramp: your proof of insurance expires on April 9, 2031\. Sign in to send the new one: http:\/\/[^\s]+\/sign-in$/);
    expect(sent.find((entry) => entry.to === spanish.email)!.subject).toBe('Tu comprobante de seguro vence el 9 de abril de 2031');
  });

  it('are looked for again only when the next can go: the first hour out of the quiet hours on its day, in the driver’s state', async () => {
    expect(loadNotices().reminders.quietHours).toEqual({ from: 21, until: 8 });
    const newYork = await approved(dayAfter(31), { state: 'NY' });
    const losAngeles = await approved(dayAfter(31), { state: 'CA' });
    // 17:00 UTC: 7 am in Hawaii, whose notice is due today but waits for 8 am.
    const hawaiian = await approved(dayAfter(30), { state: 'HI' });
    await at(T0);
    await pass();
    const lookAgain = async (driver: Seeded) =>
      (await server.db.query<{ at: Date }>('SELECT expiry_check_at AS at FROM driver_progress WHERE driver_id = $1', [driver.id])).rows[0]!.at.toISOString();
    // 8 am the next day: daylight time in New York (UTC−4) and Los Angeles (UTC−7); Hawaii has none (UTC−10).
    expect(await lookAgain(newYork)).toBe(`${dayAfter(1)}T12:00:00.000Z`);
    expect(await lookAgain(losAngeles)).toBe(`${dayAfter(1)}T15:00:00.000Z`);
    expect(await lookAgain(hawaiian)).toBe(`${dayAfter(0)}T18:00:00.000Z`);
    // A minute before, a pass finds nothing due; at that hour the notice goes.
    await at(Date.parse(`${dayAfter(1)}T11:59:00Z`));
    await pass();
    expect(await notices(newYork)).toEqual({});
    expect(await lookAgain(newYork)).toBe(`${dayAfter(1)}T12:00:00.000Z`);
    await at(Date.parse(`${dayAfter(1)}T12:00:00Z`));
    await pass();
    expect(await notices(newYork)).toEqual({ 'documentExpiring email': 1 });
    expect(await notices(losAngeles)).toEqual({});
  });
});

describe('a document that expires unreplaced', () => {
  it('does what the data says: the driver is asked to fix it and the queue shows it expired', async () => {
    expect(expiries.whenExpired).toBe('askFix');
    const driver = await approved(dayAfter(0));
    await at(T0 + DAY_MS);
    await Promise.all([pass(), other.expiries.noticeDue()]);
    expect(await notices(driver)).toEqual({ 'documentExpired email': 1 });
    const { rows } = await server.db.query<{ status: string; renewing: boolean }>('SELECT status, renewing FROM drivers WHERE id = $1', [driver.id]);
    expect(rows[0]).toEqual({ status: 'rejected', renewing: true });
    const fixes = await server.db.query<{ field: string; reason: string }>('SELECT field, reason FROM review_fixes WHERE driver_id = $1 ORDER BY field', [
      driver.id,
    ]);
    const reason = 'This document expired on March 10, 2031. Please send the new one with its expiry date.';
    expect(fixes.rows).toEqual([
      { field: 'proofInsurance', reason },
      { field: 'proofInsuranceExpiryDate', reason },
    ]);
    const mail = (await delivered()).find((entry) => entry.to === driver.email)!;
    expect(mail.subject).toBe('Your proof of insurance has expired');
    expect(mail.text).toContain('Your proof of insurance expired on March 10, 2031, and we have not received a new one.');
    const queue = json<QueuePage>(await asReviewer('/admin/drivers?status=rejected&limit=200'));
    expect(queue.drivers.find((row) => row.id === driver.id)?.expired).toEqual(['proof of insurance']);
    // Told once: the pass a day later sends nothing more.
    await at(T0 + 2 * DAY_MS);
    await pass();
    expect(await notices(driver)).toEqual({ 'documentExpired email': 1 });
  });
});

describe('the list of what expires soon', () => {
  it('lists drivers by their documents’ dates, the soonest first, for reviewers, in the audit record', async () => {
    await at(T0);
    const soon = await approved(dayAfter(3));
    const later = await approved(dayAfter(20));
    const far = await approved(dayAfter(90));
    const listed = await asReviewer('/admin/expiring');
    expect(listed.statusCode).toBe(200);
    const list = json<ExpiringList>(listed);
    expect(list.days).toBe(30);
    const ids = list.drivers.map((driver) => driver.id);
    expect(ids).toContain(soon.id);
    expect(ids).toContain(later.id);
    expect(ids).not.toContain(far.id);
    expect(ids.indexOf(soon.id)).toBeLessThan(ids.indexOf(later.id));
    expect(list.drivers.find((driver) => driver.id === soon.id)).toEqual({
      id: soon.id,
      email: soon.email,
      name: null,
      status: 'approved',
      documents: [{ step: 'addVehicle', field: 'proofInsuranceExpiryDate', name: 'proof of insurance', expiresOn: dayAfter(3), daysLeft: 3 }],
    });
    expect(json<ExpiringList>(await asReviewer('/admin/expiring?days=120')).drivers.map((driver) => driver.id)).toContain(far.id);
    const { rows } = await server.db.query<{ action: string }>('SELECT action FROM audit_events ORDER BY id DESC LIMIT 1');
    expect(rows[0]!.action).toBe('drivers.expiring');
    const bad = await asReviewer('/admin/expiring?days=many');
    expect(bad.statusCode).toBe(400);
    expect(json(bad)).toEqual({ message: 'days must be a whole number from 0 to 365.' });
  });

  it.each([
    ['days=366', 'days must be a whole number from 0 to 365.'],
    ['days=1.5', 'days must be a whole number from 0 to 365.'],
    ['days=', 'days must be a whole number from 0 to 365.'],
    ['days=1&days=2', 'days must be a whole number from 0 to 365.'],
    ['within=30', 'Unknown query parameter: within'],
  ])('refuses ?%s with 400 { message }', async (query, message) => {
    const response = await asReviewer(`/admin/expiring?${query}`);
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({ message });
  });

  it('is refused to a driver’s session (403) and to no session (401)', async () => {
    server.clock.reset();
    const driver = await approvedDriver(server);
    const asDriver = await server.app.inject({ method: 'GET', url: '/admin/expiring', headers: bearer(driver.token) });
    expect(asDriver.statusCode).toBe(403);
    expect(json(asDriver)).toEqual({ message: 'Drivers cannot use the admin API.' });
    const anonymous = await server.app.inject({ method: 'GET', url: '/admin/expiring' });
    expect(anonymous.statusCode).toBe(401);
    expect(json(anonymous)).toMatchObject({ message: 'Please sign in as a staff member.' });
  });
});

describe('an approved driver replacing an expiring document', () => {
  let driver: TestDriver;
  let vehicleId: string;
  /** The vehicle form as the driver's page sends it: every file kept but those given. */
  let kept: Record<string, FormValue>;
  const send = (overrides: Record<string, FormValue>) =>
    post(server.app, '/driver/completeVehicle', driver.token, formData(vehicleValues(vehicleId, { ...kept, ...overrides })));

  beforeAll(async () => {
    server.clock.reset();
    driver = await approvedDriver(server);
    const { rows } = await server.db.query<{ id: string }>('SELECT id FROM vehicles WHERE driver_id = $1', [driver.driverId]);
    vehicleId = rows[0]!.id;
    const answers = json<StepAnswersAnswer>(await server.app.inject({ method: 'GET', url: '/driver/answers/addVehicle', headers: bearer(driver.token) }));
    kept = Object.fromEntries(Object.entries(answers.files).map(([field, stored]) => [field, `kept:${stored.id}`]));
    // The answers as first sent: the dates a year ahead.
    kept = { ...kept, ...Object.fromEntries(expiries.documents.map((document) => [document.date, String(answers.answers?.[document.date])])) };
  });

  it('may change nothing before the document’s first notice', async () => {
    const early = await send({ proofInsurance: file(JPEG_BYTES, 'new-insurance.jpg', 'image/jpeg') });
    expect(early.statusCode).toBe(409);
    expect(json(early)).toEqual({ message: SERVER_MESSAGES.driver.approvedLocked });
    const prefill = json<StepAnswersAnswer>(await server.app.inject({ method: 'GET', url: '/driver/answers/addVehicle', headers: bearer(driver.token) }));
    expect(prefill.onlyFields).toEqual([]);
  });

  it('replaces only that document and its date once it expires soon; anything else is refused', async () => {
    // The insurance now ends in 20 days (a year went by).
    await server.db.query(
      `UPDATE step_answers SET answers = jsonb_set(answers, '{proofInsuranceExpiryDate}', to_jsonb($2::text)) WHERE driver_id = $1 AND step = 'addVehicle'`,
      [driver.driverId, new Date(Date.now() + 20 * DAY_MS).toISOString().slice(0, 10)],
    );
    // Signing in sends the driver to the step holding it (the resume table), whose form says which.
    const status = json<{ data: { renewal?: string } }>(
      await server.app.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(driver.token) }),
    );
    expect(status.data.renewal).toBe('addVehicle');
    const prefill = json<StepAnswersAnswer>(await server.app.inject({ method: 'GET', url: '/driver/answers/addVehicle', headers: bearer(driver.token) }));
    const expiresOn = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' }).format(Date.now() + 20 * DAY_MS);
    const renewReason = `This document expires on ${expiresOn}. Please send the new one with its expiry date.`;
    expect(prefill.fixes).toEqual([
      { field: 'proofInsuranceExpiryDate', reason: renewReason },
      { field: 'proofInsurance', reason: renewReason },
    ]);
    // The form shows every other field read-only.
    expect(prefill.onlyFields?.toSorted()).toEqual(['proofInsurance', 'proofInsuranceExpiryDate']);
    const renewed = { proofInsurance: file(JPEG_BYTES, 'new-insurance.jpg', 'image/jpeg'), proofInsuranceExpiryDate: isoDateOffset(1, 1) };
    for (const other of [
      { plateNumber: 'NEW999' },
      { driverLicenseCardFront: file(PNG_BYTES, 'licence.png') },
      { driverLicenseExpiryDate: isoDateOffset(2, 0) },
    ]) {
      const refused = await send({ ...renewed, ...other });
      expect(refused.statusCode, JSON.stringify(Object.keys(other))).toBe(409);
      expect(json(refused)).toEqual({ message: SERVER_MESSAGES.driver.renewalOnly });
    }
    const ahead = await post(
      server.app,
      '/driver/uploads/addVehicle/driverLicenseCardFront',
      driver.token,
      formData({ driverLicenseCardFront: file(PNG_BYTES) }),
    );
    expect(ahead.statusCode).toBe(409);
    expect(json(ahead)).toEqual({ message: SERVER_MESSAGES.driver.renewalOnly });

    const sent = await send(renewed);
    expect(sent.statusCode, sent.body).toBe(200);
    // Back in the review queue, for that document alone.
    const queue = json<QueuePage>(await asReviewer('/admin/drivers?status=pending&limit=200'));
    expect(queue.drivers.map((row) => row.id)).toContain(driver.driverId);
    const review = json<ReviewDriver>(await asReviewer(`/admin/drivers/${driver.driverId}`));
    const changed = review.steps.flatMap((step) => step.fields.filter((field) => field.changed).map((field) => `${step.step}.${field.field}`));
    expect(changed).toEqual(['addVehicle.proofInsurance', 'addVehicle.proofInsuranceExpiryDate']);

    // While it is reviewed, the rest stays locked.
    const meanwhile = await send({ plateNumber: 'NEW999' });
    expect(meanwhile.statusCode).toBe(409);
    const approvedAgain = await decide(server.app, server.reviewer.key, driver.driverId, 'approve');
    expect(approvedAgain.statusCode).toBe(200);
    const { rows } = await server.db.query<{ status: string }>('SELECT status FROM drivers WHERE id = $1', [driver.driverId]);
    expect(rows[0]!.status).toBe('approved');
  });
});

describe('a driver sent back by an expired document', () => {
  it('replaces it, and only it, and is reviewed again', async () => {
    server.clock.reset();
    const driver = await approvedDriver(server);
    const { rows: vehicles } = await server.db.query<{ id: string }>('SELECT id FROM vehicles WHERE driver_id = $1', [driver.driverId]);
    const answers = json<StepAnswersAnswer>(await server.app.inject({ method: 'GET', url: '/driver/answers/addVehicle', headers: bearer(driver.token) }));
    const kept: Record<string, FormValue> = {
      ...Object.fromEntries(Object.entries(answers.files).map(([field, stored]) => [field, `kept:${stored.id}`])),
      ...Object.fromEntries(expiries.documents.map((document) => [document.date, String(answers.answers?.[document.date])])),
    };
    // The next noon in Texas (the profile's state; later than the sign-up), the day after the insurance's date.
    const noon = Date.parse(`${new Date().toISOString().slice(0, 10)}T18:00:00Z`);
    const moved = noon > Date.now() ? noon : noon + DAY_MS;
    const today = new Date(moved).toISOString().slice(0, 10);
    await at(moved);
    await server.db.query(
      `UPDATE step_answers SET answers = jsonb_set(answers, '{proofInsuranceExpiryDate}', to_jsonb($2::text)) WHERE driver_id = $1 AND step = 'addVehicle'`,
      [driver.driverId, new Date(Date.parse(today) - DAY_MS).toISOString().slice(0, 10)],
    );
    await pass();
    const status = async () => (await server.db.query<{ status: string }>('SELECT status FROM drivers WHERE id = $1', [driver.driverId])).rows[0]!.status;
    expect(await status()).toBe('rejected');
    // Signed in again at the moved clock.
    const { token } = await server.app.sessions.start(driver.driverId, null);
    const send = (overrides: Record<string, FormValue>) =>
      post(server.app, '/driver/completeVehicle', token, formData(vehicleValues(vehicles[0]!.id, { ...kept, ...overrides })));
    const renewed = { proofInsurance: file(JPEG_BYTES, 'new-insurance.jpg', 'image/jpeg'), proofInsuranceExpiryDate: isoDateOffset(1, 1) };
    const refused = await send({ ...renewed, vehicleMake: 'Honda' });
    expect(refused.statusCode).toBe(409);
    expect(json(refused)).toEqual({ message: SERVER_MESSAGES.driver.renewalOnly });
    const sent = await send(renewed);
    expect(sent.statusCode, sent.body).toBe(200);
    expect(await status()).toBe('pending');
    const queue = json<QueuePage>(await asReviewer('/admin/drivers?status=pending&limit=200'));
    const row = queue.drivers.find((each) => each.id === driver.driverId);
    expect(row).toBeDefined();
    expect(row?.expired).toBeUndefined();
  });
});

describe('the status’s renewal', () => {
  it('follows the server’s clock, as the notices do', async () => {
    server.clock.reset();
    const driver = await approvedDriver(server);
    const renewal = async (token: string) =>
      json<{ data: { renewal?: string } }>(await server.app.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(token) })).data
        .renewal;
    // The insurance ends in 100 days: nothing to replace yet…
    await server.db.query(
      `UPDATE step_answers SET answers = jsonb_set(answers, '{proofInsuranceExpiryDate}', to_jsonb($2::text)) WHERE driver_id = $1 AND step = 'addVehicle'`,
      [driver.driverId, new Date(Date.now() + 100 * DAY_MS).toISOString().slice(0, 10)],
    );
    expect(await renewal(driver.token)).toBeUndefined();
    // …and 80 days later by the server's clock (20 days before it ends), signed in again, it is.
    await at(Date.now() + 80 * DAY_MS);
    const { token } = await server.app.sessions.start(driver.driverId, null);
    expect(await renewal(token)).toBe('addVehicle');
    server.clock.reset();
  });
});
