// Reminders with a moved clock: sent at the delays of flows/notices.json and then never
// again, not after progress, not during the night of the driver's state, by text only with consent,
// once across two server instances, in the driver's language, and not after the one-step
// unsubscribe of the email's List-Unsubscribe link.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadNotices } from '../../src/node/projectFiles.js';
import { deliveredBy, startTestServer, type TestServer } from '../support/server.js';

const HOUR_MS = 3600 * 1000;
/** Noon in New York, 9 am in Los Angeles. */
const T0 = Date.UTC(2030, 0, 15, 17, 0);
const schedule = loadNotices().reminders;

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

interface Seeded {
  id: string;
  email: string;
}

/** A driver who signed up and verified their email and phone at `since` (next: the profile). */
async function driver(since: number, options: { smsConsent?: boolean; locale?: string; profile?: { at: number; state: string } } = {}): Promise<Seeded> {
  const email = `reminded-${randomUUID()}@example.com`;
  const { rows } = await server.db.query<{ id: string }>(
    `INSERT INTO drivers (email, firebase_uid, provider, phone, locale, sms_consent_at, email_verified_at, phone_verified_at, created_at, updated_at)
     VALUES ($1, $2, 'password', $3, $4, $5, $6, $6, $6, $6) RETURNING id`,
    [
      email,
      randomUUID(),
      `+1202555${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`,
      options.locale ?? 'en',
      options.smsConsent ? new Date(since) : null,
      new Date(since),
    ],
  );
  const id = rows[0]!.id;
  if (options.profile) await progress(id, 'completeProfile', options.profile.at, { state: options.profile.state });
  return { id, email };
}

async function progress(id: string, step: string, when: number, answers: Record<string, string> = {}) {
  await server.db.query(`INSERT INTO step_answers (driver_id, step, schema_name, schema_version, answers, submitted_at) VALUES ($1, $2, $2, 'test', $3, $4)`, [
    id,
    step,
    JSON.stringify(answers),
    new Date(when),
  ]);
}

/** The reminders recorded for a driver, by channel. */
async function reminders(driver: Seeded) {
  const { rows } = await server.db.query<{ channel: string; count: number }>(
    "SELECT channel, count(*)::int AS count FROM outgoing_notices WHERE driver_id = $1 AND notice = 'reminder' GROUP BY channel",
    [driver.id],
  );
  return Object.fromEntries(rows.map((row) => [row.channel, row.count]));
}

const pass = () => server.app.reminders.remindDue();

/** What either instance delivered: each also delivers in the background, into its own local outbox. */
const delivered = () => deliveredBy(server.db, server.app, other);

describe('reminders', () => {
  it('go at the configured delays without progress, then never again', async () => {
    expect(schedule.afterHours).toEqual([24, 72]);
    await at(T0);
    const stalled = await driver(T0);
    await at(T0 + 24 * HOUR_MS - 60_000);
    await pass();
    expect(await reminders(stalled)).toEqual({});
    await at(T0 + 24 * HOUR_MS);
    await pass();
    expect(await reminders(stalled)).toEqual({ email: 1 });
    await pass();
    expect(await reminders(stalled)).toEqual({ email: 1 });
    await at(T0 + 72 * HOUR_MS);
    await pass();
    expect(await reminders(stalled)).toEqual({ email: 2 });
    await at(T0 + 30 * 24 * HOUR_MS);
    await pass();
    expect(await reminders(stalled)).toEqual({ email: 2 });
  });

  it('say where the driver stopped and bring them back through the sign-in page, in their language, by text only with consent', async () => {
    await at(T0);
    const consenting = await driver(T0, { smsConsent: true });
    const spanish = await driver(T0, { locale: 'es' });
    await at(T0 + 24 * HOUR_MS);
    await pass();
    expect(await reminders(consenting)).toEqual({ email: 1, sms: 1 });
    expect(await reminders(spanish)).toEqual({ email: 1 });
    const sent = await delivered();
    const english = sent.find((entry) => entry.to === consenting.email && 'notice' in entry && entry.notice === 'reminder')!;
    expect(english.subject).toBe('Your Onramp sign-up is waiting for you');
    expect(english.text).toContain('You stopped at “Complete Profile” while signing up to drive with Onramp.');
    expect(english.text).toMatch(/Sign in to carry on where you left off: http:\/\/[^\s]+\/sign-in\n/);
    const text = sent.find((entry) => entry.channel === 'sms' && 'notice' in entry && entry.notice === 'reminder')!;
    expect(text.text).toMatch(
      /^Onramp: your sign-up is waiting at “Complete Profile”\. Sign in to carry on: http:\/\/[^\s]+\/sign-in Reply STOP to get no more texts\.$/,
    );
    const inSpanish = sent.find((entry) => entry.to === spanish.email)!;
    expect(inSpanish.subject).toBe('Tu registro en Onramp te está esperando');
    // The step's stage as the journey's Spanish names it.
    expect(inSpanish.text).toContain('“Completar perfil”');
  });

  it('wait again after progress, and name the step the driver is at now', async () => {
    await at(T0);
    const moving = await driver(T0);
    await progress(moving.id, 'completeProfile', T0 + 20 * HOUR_MS, { state: 'TX' });
    await at(T0 + 24 * HOUR_MS);
    await pass();
    expect(await reminders(moving)).toEqual({});
    // A day after the profile: 7 am in Texas, held until 8.
    await at(T0 + 44 * HOUR_MS);
    await pass();
    expect(await reminders(moving)).toEqual({});
    await at(T0 + 45 * HOUR_MS);
    await pass();
    expect(await reminders(moving)).toEqual({ email: 1 });
    const sent = (await delivered()).find((entry) => entry.to === moving.email)!;
    expect(sent.text).toContain('You stopped at “Add Vehicle”');
  });

  it('hold a reminder during the night in the driver’s state and send it in the morning', async () => {
    // Last progress at 15:00 UTC: due a day later, 10 am in New York but 7 am in California.
    const californian = await driver(T0 - 2 * HOUR_MS, { profile: { at: T0 - 2 * HOUR_MS, state: 'CA' } });
    const newYorker = await driver(T0 - 2 * HOUR_MS, { profile: { at: T0 - 2 * HOUR_MS, state: 'NY' } });
    await at(T0 + 22 * HOUR_MS);
    await pass();
    expect(await reminders(californian)).toEqual({});
    expect(await reminders(newYorker)).toEqual({ email: 1 });
    await at(T0 + 23 * HOUR_MS);
    await pass();
    expect(await reminders(californian)).toEqual({ email: 1 });
  });

  it('are sent once by two server instances at once', async () => {
    await at(T0);
    const both = await Promise.all([driver(T0), driver(T0), driver(T0)]);
    await at(T0 + 24 * HOUR_MS);
    await Promise.all([pass(), other.reminders.remindDue(), pass(), other.reminders.remindDue()]);
    for (const each of both) expect(await reminders(each)).toEqual({ email: 1 });
  });

  it('offer their unsubscribe page in the driver’s language', async () => {
    await at(T0);
    const spanish = await driver(T0, { locale: 'es' });
    await at(T0 + 24 * HOUR_MS);
    await pass();
    const sent = (await delivered()).find((entry) => entry.to === spanish.email)!;
    const link = new URL(/^<(.+)>$/.exec(('headers' in sent && sent.headers?.['List-Unsubscribe']) || '')![1]!);
    const opened = await server.app.inject({ method: 'GET', url: `${link.pathname}${link.search}`, headers: { 'accept-language': 'en' } });
    expect(opened.body).toContain('<html lang="es">');
    expect(opened.body).toContain('<h1>Recordatorios de Onramp</h1>');
    expect(opened.body).toContain(
      '<p>¿Dejar de recibir los correos y mensajes de texto que te recuerdan terminar tu registro para conducir con Onramp?</p><form method="post"><button type="submit">Dejar de recibir recordatorios</button></form>',
    );
    const clicked = await server.app.inject({
      method: 'POST',
      url: `${link.pathname}${link.search}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(clicked.body).toContain('<p>Listo: ya no recibirás más recordatorios de Onramp.</p>');
  });

  it('stop after the one-step unsubscribe of the email', async () => {
    await at(T0);
    const leaving = await driver(T0);
    await at(T0 + 24 * HOUR_MS);
    await pass();
    const sent = (await delivered()).find((entry) => entry.to === leaving.email)!;
    expect('headers' in sent && sent.headers?.['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    const link = new URL(/^<(.+)>$/.exec(('headers' in sent && sent.headers?.['List-Unsubscribe']) || '')![1]!);
    expect(sent.text).toContain(link.href);
    // Opening the link changes nothing (mail scanners open links); the one-click POST does.
    const opened = await server.app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
    expect(opened.statusCode).toBe(200);
    expect(opened.body).toContain('<button type="submit">Stop reminders</button>');
    const forged = await server.app.inject({
      method: 'POST',
      url: `${link.pathname}?driver=${leaving.id}&signature=${'0'.repeat(32)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(forged.statusCode).toBe(400);
    expect(forged.json()).toEqual({ message: 'This unsubscribe link is not valid. Use the link of the reminder email as it came.' });
    const clicked = await server.app.inject({
      method: 'POST',
      url: `${link.pathname}${link.search}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(clicked.statusCode).toBe(200);
    expect(clicked.body).toContain('<p>Done: you will get no more reminders from Onramp.</p>');
    await at(T0 + 72 * HOUR_MS);
    await pass();
    expect(await reminders(leaving)).toEqual({ email: 1 });
  });
});
