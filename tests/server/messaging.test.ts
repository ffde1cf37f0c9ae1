// Codes and notices by real transports: email to a local SMTP server (read back with its headers,
// text and HTML parts) and text messages through the real twilio SDK to a local Twilio-shaped
// server. What happens when either refuses an address, or is away for a while.
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { MessagingConfig } from '../../src/server/config.js';
import { startFakeTwilio, type FakeTwilio } from '../support/fakeTwilio.js';
import { createEmulatorUser } from '../support/identity.js';
import { startSmtpServer, type LocalSmtp } from '../support/smtp.js';
import {
  bearer,
  decide,
  json,
  randomPhone,
  sendVehicle,
  signUpPayload,
  startTestServer,
  validateEmailCode,
  type TestDriver,
  type TestServer,
} from '../support/server.js';

const MAIL_FROM = 'Onramp <no-reply@onramp.example>';
const MINUTE = 60_000;

let smtp: LocalSmtp;
let twilio: FakeTwilio;
let server: TestServer;
let app: FastifyInstance;

beforeAll(async () => {
  smtp = await startSmtpServer();
  twilio = await startFakeTwilio();
  const messaging: MessagingConfig = {
    email: { kind: 'smtp', url: smtp.url, from: MAIL_FROM },
    sms: { kind: 'twilio', accountSid: twilio.accountSid, authToken: twilio.authToken, from: '+12025550100', apiBase: twilio.url },
    // Three tries as in production, without its waits.
    codeRetryDelaysMs: [20, 20],
  };
  server = await startTestServer({ messaging, publicUrl: 'https://drivers.onramp.example' });
  app = server.app;
});
afterAll(async () => {
  await server?.close();
  await smtp?.close();
  await twilio?.close();
});
afterEach(() => {
  server.clock.reset();
  twilio.failNext(0);
});

const mailTo = (email: string) => smtp.received.filter((mail) => mail.to && !Array.isArray(mail.to) && mail.to.value[0]?.address === email);
const codeIn = (text: string) => /\b(\d{4})\b/.exec(text)?.[1] ?? '';

/** Signs up through the API; the code comes by SMTP. */
async function signUpBySmtp(phone = randomPhone()): Promise<TestDriver> {
  const user = await createEmulatorUser();
  const response = await app.inject({ method: 'POST', url: '/auth/driverEmailSignUp', payload: signUpPayload(user, phone) });
  expect(response.statusCode, response.body).toBe(200);
  const body = json<{ driverId: string; token: string }>(response);
  return { user, email: user.email, phone, driverId: body.driverId, signUpToken: body.token, token: '' };
}

async function verifiedBySmtp(phone?: string): Promise<TestDriver> {
  const driver = await signUpBySmtp(phone);
  const code = codeIn(mailTo(driver.email).at(-1)?.text ?? '');
  const response = await validateEmailCode(app, driver, code);
  expect(response.statusCode, response.body).toBe(200);
  return { ...driver, token: String(json(response).token) };
}

const sendPhoneCode = (driver: TestDriver) =>
  app.inject({ method: 'POST', url: '/auth/sendPhoneOTP', headers: bearer(driver.token), payload: { phoneNo: driver.phone } });

describe('the email code, by SMTP', () => {
  it('arrives from MAIL_FROM with its subject, a text and an HTML part, and verifies the email', async () => {
    const driver = await signUpBySmtp();
    const [mail] = mailTo(driver.email);
    expect(mail).toBeDefined();
    const code = codeIn(mail!.text ?? '');
    expect(code).toMatch(/^\d{4}$/);
    expect(mail!.from?.value).toEqual([{ name: 'Onramp', address: 'no-reply@onramp.example' }]);
    expect(mail!.subject).toBe(`Your Onramp code is ${code}`);
    expect(mail!.text).toContain(`Your code to verify your email is ${code}. It expires in 10 minutes.`);
    expect(mail!.html).toContain(`<p style="margin:0 0 16px">Your code to verify your email is ${code}. It expires in 10 minutes.</p>`);
    expect((await validateEmailCode(app, driver, code)).statusCode).toBe(200);
    // The local outbox is not used when SMTP and Twilio deliver.
    expect((await app.inject({ method: 'GET', url: '/dev/outbox' })).json()).toEqual([]);
  });

  it('tells the driver, and keeps no code, when the mail server refuses the address (400)', async () => {
    const user = await createEmulatorUser();
    smtp.refused.add(user.email);
    const response = await app.inject({ method: 'POST', url: '/auth/driverEmailSignUp', payload: signUpPayload(user, randomPhone()) });
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({ message: 'We can’t deliver email to this address. Please check it, or sign up with another one.' });
    const { rows } = await server.db.query('SELECT 1 FROM otp_codes c JOIN drivers d ON d.id = c.driver_id WHERE d.email = $1 AND c.consumed_at IS NULL', [
      user.email,
    ]);
    expect(rows).toEqual([]);
  });

  it('tries again while the mail server is away, then says so (503) rather than lose the code silently', async () => {
    await smtp.stop();
    try {
      const user = await createEmulatorUser();
      const response = await app.inject({ method: 'POST', url: '/auth/driverEmailSignUp', payload: signUpPayload(user, randomPhone()) });
      expect(response.statusCode).toBe(503);
      expect(json(response)).toEqual({ message: 'We could not send your code just now. Please tap Resend in a minute.' });
      expect(server.logs.filter((line) => line.includes('A code delivery failed; trying again'))).toHaveLength(2);
      expect(server.logs.some((line) => line.includes('A code could not be delivered after retries'))).toBe(true);
    } finally {
      await smtp.start();
    }
  });
});

describe('the phone code, through Twilio', () => {
  it('goes through the SDK with Twilio’s auth and form encoding, and verifies the phone', async () => {
    const driver = await verifiedBySmtp();
    expect((await sendPhoneCode(driver)).statusCode).toBe(200);
    const text = twilio.sent.at(-1)!;
    expect(text).toMatchObject({ to: driver.phone, from: '+12025550100' });
    expect(text.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(text.headers['user-agent']).toMatch(/^twilio-node\//);
    const code = codeIn(text.body);
    expect(text.body).toBe(`Your Onramp code is ${code}. It expires in 10 minutes.`);
    const check = await app.inject({ method: 'POST', url: '/auth/validatePhoneOTP', headers: bearer(driver.token), payload: { code, phoneNo: driver.phone } });
    expect(check.statusCode).toBe(200);
  });

  it('answers Twilio’s 21211 (an invalid number) with "Invalid Phone number provided. Please resignup."', async () => {
    const driver = await verifiedBySmtp();
    twilio.invalidNumbers.add(driver.phone);
    const response = await sendPhoneCode(driver);
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({ message: 'Invalid Phone number provided. Please resignup.' });
    const { rows } = await server.db.query("SELECT 1 FROM otp_codes WHERE driver_id = $1 AND channel = 'sms' AND consumed_at IS NULL", [driver.driverId]);
    expect(rows).toEqual([]);
  });

  it('says so when the number replied STOP (21610)', async () => {
    const driver = await verifiedBySmtp();
    twilio.optedOut.add(driver.phone);
    const response = await sendPhoneCode(driver);
    expect(response.statusCode).toBe(400);
    expect(json(response).message).toBe('This number has turned off our text messages (it replied STOP). Text START to it, or use another number.');
  });

  it('tries again with backoff through a short outage, and the code arrives', async () => {
    const driver = await verifiedBySmtp();
    const before = twilio.sent.length;
    twilio.failNext(2);
    expect((await sendPhoneCode(driver)).statusCode).toBe(200);
    expect(twilio.sent.length).toBe(before + 1);
  });

  it('answers 503 with a message when Twilio stays away', async () => {
    const driver = await verifiedBySmtp();
    twilio.failNext(3);
    const response = await sendPhoneCode(driver);
    expect(response.statusCode).toBe(503);
    expect(json(response)).toEqual({ message: 'We could not send your code just now. Please tap Resend in a minute.' });
  });

  it('refuses to work with a wrong auth token: the code is not sent and the answer says to try later', async () => {
    const wrong = await server.buildAnother({
      messaging: {
        email: { kind: 'local' },
        sms: { kind: 'twilio', accountSid: twilio.accountSid, authToken: 'wrong', from: '+12025550100', apiBase: twilio.url },
        codeRetryDelaysMs: [20, 20],
      },
    });
    // Closed at once: its own background delivery would take the later tests' notices into its local outbox.
    try {
      const driver = await verifiedBySmtp();
      const response = await wrong.inject({ method: 'POST', url: '/auth/sendPhoneOTP', headers: bearer(driver.token), payload: { phoneNo: driver.phone } });
      expect(response.statusCode).toBe(503);
      expect(server.logs.some((line) => line.includes('Twilio: 401 20003'))).toBe(true);
    } finally {
      await wrong.close();
    }
  });
});

describe('the hourly limit of codes counts the codes that reached the driver', () => {
  const NOT_SENT = { message: 'We could not send your code just now. Please tap Resend in a minute.' };
  const TOO_MANY = { message: 'Too many codes were requested. Please wait an hour and try again.' };
  const resend = (driver: TestDriver) =>
    app.inject({ method: 'POST', url: '/auth/sendOTP', headers: bearer(driver.signUpToken), payload: { email: driver.email } });
  /** Resends while the mail server is away: each is told to tap Resend in a minute. */
  async function resendWhileMailIsAway(driver: TestDriver, times: number) {
    await smtp.stop();
    try {
      for (let i = 0; i < times; i++) {
        const response = await resend(driver);
        expect(response.statusCode).toBe(503);
        expect(json(response)).toEqual(NOT_SENT);
      }
    } finally {
      await smtp.start();
    }
  }

  it('does not lock out a driver who asks again and again while the mail server is away', async () => {
    const driver = await signUpBySmtp();
    await resendWhileMailIsAway(driver, 6);
    const response = await resend(driver);
    expect(response.statusCode).toBe(201);
    expect(json(response)).toEqual({ success: true, message: 'We sent a new 4-digit code to your email.' });
    const code = codeIn(mailTo(driver.email).at(-1)?.text ?? '');
    expect((await validateEmailCode(app, driver, code)).statusCode).toBe(200);
  });

  it('still counts 5 codes delivered an hour, whatever failed between them', async () => {
    const driver = await signUpBySmtp(); // the 1st delivered
    for (let i = 0; i < 2; i++) expect((await resend(driver)).statusCode).toBe(201);
    await resendWhileMailIsAway(driver, 2);
    for (let i = 0; i < 2; i++) expect((await resend(driver)).statusCode).toBe(201);
    const sixth = await resend(driver);
    expect(sixth.statusCode).toBe(429);
    expect(json(sixth)).toEqual(TOO_MANY);
    expect(mailTo(driver.email)).toHaveLength(5);
  });

  it('counts a code still being sent: asking many times at once sends no more than 5', async () => {
    const driver = await signUpBySmtp(); // the 1st delivered
    const answers = await Promise.all(Array.from({ length: 6 }, () => resend(driver)));
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([201, 201, 201, 201, 429, 429]);
    expect(mailTo(driver.email)).toHaveLength(5);
  });

  it('counts every code asked for toward 20 an hour: making delivery fail gets nobody unlimited sends', async () => {
    const driver = await verifiedBySmtp();
    twilio.invalidNumbers.add(driver.phone);
    for (let i = 0; i < 20; i++) {
      const response = await sendPhoneCode(driver);
      expect(response.statusCode).toBe(400);
      expect(json(response)).toEqual({ message: 'Invalid Phone number provided. Please resignup.' });
    }
    const refused = await sendPhoneCode(driver);
    expect(refused.statusCode).toBe(429);
    expect(json(refused)).toEqual(TOO_MANY);
  });
});

describe('notices', () => {
  /** A driver who verified email and phone and sent everything. */
  async function waitingDriver(): Promise<TestDriver> {
    const driver = await verifiedBySmtp();
    await sendPhoneCode(driver);
    const code = codeIn(twilio.sent.at(-1)!.body);
    await app.inject({ method: 'POST', url: '/auth/validatePhoneOTP', headers: bearer(driver.token), payload: { code, phoneNo: driver.phone } });
    await sendVehicle(app, driver);
    return driver;
  }

  it('tells an approved driver by email and text message, with the sign-in link', async () => {
    const driver = await waitingDriver();
    expect((await decide(app, server.reviewer.key, driver.driverId, 'approve')).statusCode).toBe(200);
    await app.messaging.deliverDue();
    const mail = mailTo(driver.email).at(-1)!;
    expect(mail.subject).toBe("You're approved to drive with Onramp");
    expect(mail.text).toContain(
      'Sign in to choose your subscription and add the bank account your fares are paid into: https://drivers.onramp.example/sign-in',
    );
    expect(mail.html).toContain('<a href="https://drivers.onramp.example/sign-in">https://drivers.onramp.example/sign-in</a>');
    expect(twilio.sent.at(-1)).toMatchObject({
      to: driver.phone,
      body: "Onramp: you're approved. Sign in to choose your subscription: https://drivers.onramp.example/sign-in",
    });
  });

  it('tells a rejected driver the reason and what to fix; the reason is text in the HTML part, never markup', async () => {
    const driver = await waitingDriver();
    const reason = 'The <b>insurance</b> card is blurry & cut off.';
    await decide(app, server.reviewer.key, driver.driverId, 'reject', reason);
    await app.messaging.deliverDue();
    const mail = mailTo(driver.email).at(-1)!;
    expect(mail.subject).toBe('Your Onramp profile needs a change');
    expect(mail.text).toContain(`asked for a change:\n\n${reason}\n\nSign in, update your profile`);
    expect(mail.html).toContain('The &#60;b&#62;insurance&#60;/b&#62; card is blurry &#38; cut off.');
    expect(mail.html).not.toContain('<b>insurance</b>');
  });

  it('delivers every notice due in one pass, however many batches they fill', async () => {
    const driver = await waitingDriver();
    await app.messaging.deliverDue();
    const before = mailTo(driver.email).length;
    await server.db.transaction(async (tx) => {
      for (let count = 0; count < 45; count++) await app.messaging.notify(tx, driver.driverId, 'subscriptionEnded', {});
    });
    await app.messaging.deliverDue();
    const subjects = mailTo(driver.email).map((mail) => mail.subject);
    expect(subjects.slice(before)).toEqual(Array(45).fill('Your Onramp subscription has ended'));
  });

  it('leaves a notice queued as a server closes to the servers still running: the closing one starts no pass', async () => {
    const driver = await waitingDriver();
    await app.messaging.deliverDue();
    // The closing server mails through a server of its own: whatever it sent would show there.
    const closingSmtp = await startSmtpServer();
    try {
      const closing = await server.buildAnother({ messaging: { ...server.config.messaging, email: { kind: 'smtp', url: closingSmtp.url, from: MAIL_FROM } } });
      await server.db.transaction(async (tx) => {
        await closing.messaging.notify(tx, driver.driverId, 'subscriptionEnded', {});
        // Closed before the notice commits, however slow the machine: a pass its 50 ms timer began
        // before closing finds nothing, and only a pass begun after closing could find the notice.
        await closing.close();
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      await app.messaging.deliverDue();
      expect(mailTo(driver.email).at(-1)?.subject).toBe('Your Onramp subscription has ended');
      expect(closingSmtp.received).toEqual([]);
      const { rows } = await server.db.query<{ status: string; attempts: number }>(
        "SELECT status, attempts FROM outgoing_notices WHERE driver_id = $1 AND notice = 'subscriptionEnded'",
        [driver.driverId],
      );
      expect(rows).toEqual([{ status: 'sent', attempts: 1 }]);
    } finally {
      await closingSmtp.close();
    }
  });

  it('keeps a notice while the mail server is away, and delivers it when it is back', async () => {
    const driver = await waitingDriver();
    await smtp.stop();
    try {
      await decide(app, server.reviewer.key, driver.driverId, 'approve');
      await app.messaging.deliverDue();
      const { rows } = await server.db.query<{ status: string; attempts: number; last_error: string }>(
        "SELECT status, attempts, last_error FROM outgoing_notices WHERE driver_id = $1 AND channel = 'email'",
        [driver.driverId],
      );
      expect(rows[0]).toMatchObject({ status: 'pending', attempts: 1 });
      expect(rows[0]!.last_error).toMatch(/^SMTP: /);
    } finally {
      await smtp.start();
    }
    // Not before its time (30 s later), then delivered.
    expect(await app.messaging.deliverDue()).toBe(0);
    server.clock.advance(31_000);
    expect(await app.messaging.deliverDue()).toBe(1);
    expect(mailTo(driver.email).at(-1)!.subject).toBe("You're approved to drive with Onramp");
  });

  it('sends a notice again under the same Message-ID, so a mail server that took it but never said so shows it once', async () => {
    const driver = await waitingDriver();
    await decide(app, server.reviewer.key, driver.driverId, 'approve');
    await app.messaging.deliverDue();
    const { rows } = await server.db.query<{ id: string }>("SELECT id FROM outgoing_notices WHERE driver_id = $1 AND channel = 'email'", [driver.driverId]);
    // As if the acknowledgement had been lost: the notice is tried again.
    await server.db.query("UPDATE outgoing_notices SET status = 'pending', next_attempt_at = $2 WHERE id = $1", [rows[0]!.id, server.clock.now()]);
    await app.messaging.deliverDue();
    const approvals = mailTo(driver.email).filter((mail) => mail.subject === "You're approved to drive with Onramp");
    expect(approvals.map((mail) => mail.messageId)).toEqual([`<${rows[0]!.id}@onramp.example>`, `<${rows[0]!.id}@onramp.example>`]);
  });

  it('gives up on a notice after a day of failures, keeps it as failed, and logs an error', async () => {
    const driver = await waitingDriver();
    await smtp.stop();
    try {
      await decide(app, server.reviewer.key, driver.driverId, 'approve');
      for (let pass = 0; pass < 40; pass++) {
        await app.messaging.deliverDue();
        server.clock.advance(60 * MINUTE);
      }
    } finally {
      await smtp.start();
    }
    const { rows } = await server.db.query<{ status: string }>("SELECT status FROM outgoing_notices WHERE driver_id = $1 AND channel = 'email'", [
      driver.driverId,
    ]);
    expect(rows).toEqual([{ status: 'failed' }]);
    expect(server.logs.some((line) => line.includes('A notice could not be delivered: given up'))).toBe(true);
  });

  it('keeps the address and words of a notice encrypted in the database', async () => {
    const driver = await waitingDriver();
    await decide(app, server.reviewer.key, driver.driverId, 'reject', 'Secret reason 9731');
    const { rows } = await server.db.query<{ text: string }>('SELECT row_to_json(n)::text AS text FROM outgoing_notices n WHERE driver_id = $1', [
      driver.driverId,
    ]);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.text).not.toContain(driver.email);
      expect(row.text).not.toContain('Secret reason 9731');
    }
  });
});

describe('a reminder through SMTP and Twilio', () => {
  const HOUR = 60 * MINUTE;
  /** Noon in New York. */
  const T0 = Date.UTC(2030, 0, 15, 17, 0);
  const at = (ms: number) => {
    server.clock.offsetMs = ms - Date.now();
  };

  it('carries the one-click unsubscribe headers, and a STOP from the number is honoured from then on', async () => {
    at(T0);
    const email = `reminded-${Date.now()}@example.com`;
    const phone = randomPhone();
    const { rows } = await server.db.query<{ id: string }>(
      `INSERT INTO drivers (email, firebase_uid, provider, phone, sms_consent_at, email_verified_at, phone_verified_at, created_at, updated_at)
       VALUES ($1, $1, 'password', $2, $3, $3, $3, $3, $3) RETURNING id`,
      [email, phone, new Date(T0)],
    );
    const driverId = rows[0]!.id;
    twilio.optedOut.add(phone);
    at(T0 + 24 * HOUR);
    await app.reminders.remindDue();
    await app.messaging.deliverDue();
    const mail = mailTo(email).at(-1)!;
    expect(mail.subject).toBe('Your Onramp sign-up is waiting for you');
    // The header as sent, its folding undone (RFC 5322 §2.2.3).
    const header = (name: string) => mail.headerLines.find((line) => line.key === name)?.line.replace(/\r?\n\s+/g, ' ');
    const link = /^List-Unsubscribe: ?<(https:\/\/drivers\.onramp\.example\/reminders\/unsubscribe\?driver=[^>]+)>$/.exec(
      header('list-unsubscribe') ?? '',
    )?.[1];
    expect(link, header('list-unsubscribe')).toBeDefined();
    expect(header('list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(mail.text).toContain(link);
    // Twilio refused the text (the number replied STOP): recorded, and the next reminder has no text.
    const { rows: driver } = await server.db.query<{ sms_opted_out_at: Date | null }>('SELECT sms_opted_out_at FROM drivers WHERE id = $1', [driverId]);
    expect(driver[0]!.sms_opted_out_at).not.toBeNull();
    at(T0 + 72 * HOUR);
    await app.reminders.remindDue();
    const { rows: notices } = await server.db.query<{ channel: string; count: number }>(
      "SELECT channel, count(*)::int AS count FROM outgoing_notices WHERE driver_id = $1 AND notice = 'reminder' GROUP BY channel ORDER BY channel",
      [driverId],
    );
    expect(notices).toEqual([
      { channel: 'email', count: 2 },
      { channel: 'sms', count: 1 },
    ]);
  });
});
