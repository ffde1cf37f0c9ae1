/**
 * A day's load with faults, compressed: two built servers (serverProcess.ts) on one throwaway
 * PostgreSQL behind haproxy (rollingRestart.ts), email through a local SMTP server and texts
 * through a local Twilio, as production sends them, and many drivers at once walking the API
 * journey as the browser does: sign-up, the email code read from the mail, the phone code from the
 * text, the profile, the vehicle photos, the vehicle, then status polls until a reviewer (a staff
 * key, through the same balancer) approves them. First a calm phase, the anchor; then the same
 * load while PostgreSQL restarts once, the mail server is away for a minute and one server is
 * restarted with SIGTERM. Afterwards what each answered step stored is checked in the database,
 * and every approval's notice must have reached the driver exactly once. For `npm run bench`.
 * Needs a build, PostgreSQL, haproxy and the Auth emulator on its port.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { addStaffFromTerminal } from '../src/cli/admin.js';
import { loadNotices } from '../src/node/projectFiles.js';
import { startSmtpServer } from '../tests/support/smtp.js';
import { startFakeTwilio } from '../tests/support/fakeTwilio.js';
import { emulatorIdToken, signUpBody } from './emulatorSignUp.js';
import { runningPostgres } from './postgres.js';
import { freePort } from '../src/node/freePort.js';
import { GRACE_MS, type Haproxy, randomPhone, startHaproxy } from './rollingRestart.js';
import { startServerProcess, type ServerProcess } from './serverProcess.js';
import { fixturePayload, formData } from './stepPayloads.js';

export interface SoakOptions {
  /** Drivers walking at once. */
  drivers: number;
  /** The load with faults, in minutes; the calm phase comes before it. */
  minutes: number;
  calmSeconds: number;
}

/** One request through the balancer. */
interface Call {
  /** "POST /auth/validateOTP" */
  call: string;
  ms: number;
  phase: 'calm' | 'faults';
  /** Began or ended while a fault lasted. */
  inWindow: boolean;
  /** "ok", the status ("503"), or the network error's code ("ECONNRESET"). */
  outcome: string;
  /** When it began, in seconds from the start of the faults phase (negative: calm). */
  at: number;
}

export interface SoakResult {
  calls: Call[];
  /** Each fault and when it lasted, in seconds from the start of the faults phase. */
  faults: { name: string; from: number; to: number }[];
  /** Steps answered as done whose data the database lacks: "<driver> <step>". */
  lostSteps: string[];
  /** Approvals answered: each must have told its driver once, by email and by text. */
  approvals: number;
  /** Notices missing or delivered more than once: "<notice> by <channel> to <driver>: 0 (or 2) delivered". */
  lostNotices: string[];
  duplicateNotices: string[];
  /** Notices the database still holds as not delivered when the wait ended. */
  undelivered: number;
  /** From the mail server's return until the last notice was delivered. */
  drainSeconds: number;
  journeys: number;
  serverOutput: string;
}

/** A driver's steps as their answers said: what the database must hold afterwards. */
interface Walked {
  driverId: string;
  email: string;
  phone: string;
  done: Set<'emailVerified' | 'phoneVerified' | 'completeProfile' | 'uploadVehicleImages' | 'addVehicle'>;
}

/** How long a driver waits before trying a failed step again, as one who taps again. */
const RETRY_PAUSE_MS = 3_000;
/** After a code that could not be sent: "Please tap Resend in a minute." (delivery.notSent). */
const RESEND_PAUSE_MS = 60_000;
/** A step still failing after this long is given up, and the driver's journey with it. */
const GIVE_UP_MS = 150_000;
/** Between a driver's steps: reading, typing, taking photos. */
const THINK_MS = [500, 2_000];
const POLL_INTERVAL_MS = 2_000;
/** A server's start, on a shared and busy machine. */
const START_TIMEOUT_MS = 180_000;
const PG_DOWN_MS = 5_000;
const SMTP_AWAY_MS = 60_000;
/** After the load: how long the notices retried after the faults may take (their backoff's first steps: 30 s, 1 min, 2 min). */
const DRAIN_MS = 5 * 60_000;

const NOTICES = loadNotices('en');
const APPROVED_SUBJECT = NOTICES.approved.email!.subject;
const APPROVED_TEXT = NOTICES.approved.sms!.text.split('{')[0]!;
const CODE = /\b(\d{4})\b/;
/** The calls that send a code while the driver waits. */
const CODE_SENDERS = new Set(['POST /auth/driverEmailSignUp', 'POST /auth/sendOTP', 'POST /auth/sendPhoneOTP']);

const think = () => sleep(THINK_MS[0]! + Math.random() * (THINK_MS[1]! - THINK_MS[0]!));

export async function soak({ drivers, minutes, calmSeconds }: SoakOptions): Promise<SoakResult> {
  const postgres = await runningPostgres();
  const smtp = await startSmtpServer();
  const twilio = await startFakeTwilio();
  const folder = await mkdtemp(join(tmpdir(), 'onramp-soak-'));
  const [balancerPort, ...serverPorts] = await Promise.all([freePort(), freePort(), freePort()]);
  const env = {
    DATABASE_URL: postgres.url,
    DATA_DIR: join(folder, 'data'),
    DATA_KEY: randomBytes(32).toString('base64'),
    STATIC_DIR: join(folder, 'no-web-app'),
    AUTH_RATE_LIMIT_MAX: '1000000',
    SHUTDOWN_GRACE_MS: String(GRACE_MS),
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Onramp <no-reply@onramp.example>',
    TWILIO_ACCOUNT_SID: twilio.accountSid,
    TWILIO_AUTH_TOKEN: twilio.authToken,
    TWILIO_FROM: '+12025550100',
    TWILIO_API_BASE: twilio.url,
  };
  const names = ['a', 'b'];
  const start = (index: number) => startServerProcess({ ...env, PORT: String(serverPorts[index]) }, START_TIMEOUT_MS);
  const servers: ServerProcess[] = [];
  let output = '';
  let haproxy: Haproxy | undefined;
  const db = new pg.Client(postgres.url);
  try {
    // The reviewer, as an operator's first staff member is made (the database's migrations run here first).
    let printed = '';
    const io = { out: (line: string) => (printed += `${line}\n`), err: (line: string) => (printed += `${line}\n`) };
    if (
      (await addStaffFromTerminal({ email: `soak-reviewer-${randomBytes(4).toString('hex')}@example.com`, roles: ['reviewer'] }, io, {
        ...env,
        LOG_LEVEL: 'error',
      })) !== 0
    )
      throw new Error(`The reviewer could not be added:\n${printed}`);
    const reviewerKey = /ONRAMP_STAFF_TOKEN=(\S+)/.exec(printed)![1]!;
    servers.push(...(await Promise.all(names.map((_, index) => start(index)))));
    haproxy = await startHaproxy(
      folder,
      balancerPort!,
      names.map((name, index) => ({ name, port: serverPorts[index]! })),
      false,
      (line) => (output += line),
    );
    const balancer = haproxy.url;

    // ---- the clock of faults ----
    const calls: Call[] = [];
    const faults: SoakResult['faults'] = [];
    let phase: Call['phase'] = 'calm';
    let faultsStarted = performance.now() + calmSeconds * 1000;
    const open = new Set<string>();
    const since = () => (performance.now() - faultsStarted) / 1000;
    const during = async (name: string, fault: () => Promise<void>) => {
      const from = since();
      open.add(name);
      try {
        await fault();
      } finally {
        open.delete(name);
        faults.push({ name, from, to: since() });
      }
    };

    /** One request through the balancer, recorded: its status (0 when none came) and its body on a 2xx. */
    const send = async (call: string, path: string, init: RequestInit & { token?: string } = {}) => {
      const began = performance.now();
      const inWindowAtStart = open.size > 0;
      const atPhase = phase;
      let outcome = 'ok';
      let status = 0;
      let body: Record<string, unknown> | null = null;
      try {
        const { token, ...rest } = init;
        const response = await fetch(`${balancer}${path}`, {
          ...rest,
          headers: {
            ...(typeof rest.body === 'string' && { 'content-type': 'application/json' }),
            ...(token && { authorization: `Bearer ${token}` }),
          },
          signal: AbortSignal.timeout(30_000),
        });
        status = response.status;
        const text = await response.text();
        if (response.ok) body = JSON.parse(text) as Record<string, unknown>;
        else outcome = String(response.status);
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause;
        outcome = cause?.code ?? (error as Error).name;
      }
      calls.push({
        call,
        ms: performance.now() - began,
        phase: atPhase,
        inWindow: inWindowAtStart || open.size > 0,
        outcome,
        at: (began - faultsStarted) / 1000,
      });
      return { status, body };
    };
    const json = (value: unknown) => ({ method: 'POST', body: JSON.stringify(value) });
    const multipart = (values: Parameters<typeof formData>[0]) => ({ method: 'POST', body: formData(values) });

    let walking = true;
    /** A step sent until answered, as a driver taps again after a failure; null once given up (or the load ended). */
    const step = async (call: string, path: string, init: () => RequestInit & { token?: string }) => {
      const deadline = performance.now() + GIVE_UP_MS;
      for (;;) {
        const { status, body } = await send(call, path, init());
        if (body) return body;
        if (!walking || performance.now() > deadline) return null;
        await sleep(status === 503 && CODE_SENDERS.has(call) ? RESEND_PAUSE_MS : RETRY_PAUSE_MS);
      }
    };

    /** The newest code sent to `to`, once there (a code is sent before its request is answered). */
    const codeSentTo = (to: string): string | undefined => {
      const mail = smtp.received.findLast((each) => each.to && !Array.isArray(each.to) && each.to.value[0]?.address === to && CODE.test(each.subject ?? ''));
      const text = twilio.sent.findLast((each) => each.to === to && CODE.test(each.body));
      return CODE.exec(mail?.subject ?? text?.body ?? '')?.[1];
    };

    const walked: Walked[] = [];
    const toReview: Walked[] = [];
    let journeys = 0;

    /**
     * A code step: its code (sent by the step before, or again) typed in, both again until it
     * passes; its answer, or null once given up. `done` (409) is a code taken by an earlier try
     * whose answer was lost on the way: the driver goes on as after a pass.
     */
    const verify = async (
      call: string,
      path: string,
      to: string,
      resend: () => Promise<unknown>,
      payload: (code: string) => RequestInit & { token?: string },
    ) => {
      for (let tries = 0; walking && tries < 20; tries++) {
        const code = codeSentTo(to);
        if (code) {
          const { status, body } = await send(call, path, payload(code));
          if (body) return body;
          if (status === 409) return {};
        }
        await sleep(RETRY_PAUSE_MS);
        if ((await resend()) === 503) await sleep(RESEND_PAUSE_MS);
      }
      return null;
    };

    const journey = async () => {
      const email = `soak-${randomBytes(6).toString('hex')}@example.com`;
      const phone = randomPhone();
      const idToken = await emulatorIdToken(email);
      const signedUp = await step('POST /auth/driverEmailSignUp', '/auth/driverEmailSignUp', () => json(signUpBody(email, phone, idToken)));
      if (!signedUp) return;
      const driver: Walked = { driverId: String(signedUp.driverId), email, phone, done: new Set() };
      walked.push(driver);
      const signUpToken = String(signedUp.token);
      await think();
      const emailVerified = await verify(
        'POST /auth/validateOTP',
        '/auth/validateOTP',
        email,
        async () => (await send('POST /auth/sendOTP', '/auth/sendOTP', { ...json({ email }), token: signUpToken })).status,
        (code) => ({ ...json({ code, email }), token: signUpToken }),
      );
      if (!emailVerified) return;
      driver.done.add('emailVerified');
      // The session comes with the answer; from a sign-in when that answer was lost.
      const session = emailVerified.token === undefined ? await step('POST /auth/signIn', '/auth/signIn', () => json({ idToken })) : emailVerified;
      const token = String(session?.token ?? '');
      if (!token) return;
      await think();
      const sendPhoneCode = async () => (await send('POST /auth/sendPhoneOTP', '/auth/sendPhoneOTP', { ...json({ phoneNo: phone }), token })).status;
      await sendPhoneCode();
      if (
        !(await verify('POST /auth/validatePhoneOTP', '/auth/validatePhoneOTP', phone, sendPhoneCode, (code) => ({ ...json({ code, phoneNo: phone }), token })))
      )
        return;
      driver.done.add('phoneVerified');
      await think();
      if (!(await step('POST /driver/completeProfile', '/driver/completeProfile', () => ({ ...multipart(fixturePayload('completeProfile')), token })))) return;
      driver.done.add('completeProfile');
      await think();
      const docs = await step('POST /driver/completeVehicleDocs', '/driver/completeVehicleDocs', () => ({
        ...multipart(fixturePayload('uploadVehicleImages')),
        token,
      }));
      if (!docs) return;
      driver.done.add('uploadVehicleImages');
      const vehicleId = String((docs.data as { vehicle: { id: string } }).vehicle.id);
      await think();
      if (
        !(await step('POST /driver/completeVehicle', '/driver/completeVehicle', () => ({
          ...multipart(fixturePayload('addVehicle', { vehicle_id: vehicleId })),
          token,
        })))
      )
        return;
      driver.done.add('addVehicle');
      toReview.push(driver);
      // Waiting for the review, as the waiting page polls.
      while (walking) {
        await sleep(POLL_INTERVAL_MS);
        const { body } = await send('GET /driver/status/{id}', `/driver/status/${driver.driverId}`, { token });
        if ((body?.data as { status?: string } | undefined)?.status === 'approved') break;
      }
    };

    const walker = async (index: number) => {
      // Spread over the first seconds, as drivers come one by one.
      await sleep((index / drivers) * 10_000);
      while (walking) {
        journeys += 1;
        await journey().catch((error: unknown) => (output += `soak: a journey broke off: ${String(error)}\n`));
      }
    };

    let approvals = 0;
    const approved = new Set<string>();
    const reviewer = async () => {
      while (walking || toReview.length > 0) {
        const driver = toReview.shift();
        if (!driver) {
          await sleep(500);
          continue;
        }
        const read = await step('GET /admin/drivers/{id}', `/admin/drivers/${driver.driverId}`, () => ({ token: reviewerKey }));
        const reviewVersion =
          (read?.driver as { reviewVersion?: number } | undefined)?.reviewVersion ?? (read as { reviewVersion?: number } | null)?.reviewVersion;
        if (reviewVersion === undefined) continue;
        if (
          await step('POST /admin/drivers/{id}/approve', `/admin/drivers/${driver.driverId}/approve`, () => ({
            ...json({ reviewVersion }),
            token: reviewerKey,
          }))
        ) {
          approvals += 1;
          approved.add(driver.driverId);
        }
      }
    };

    const load = Promise.all([...Array.from({ length: drivers }, (_, index) => walker(index)), reviewer(), reviewer()]);
    let smtpBack = 0;
    try {
      await sleep(calmSeconds * 1000);
      phase = 'faults';
      faultsStarted = performance.now();
      const total = minutes * 60_000;
      const at = async (fraction: number) => sleep(Math.max(0, faultsStarted + fraction * total - performance.now()));
      await at(0.15);
      await during('PostgreSQL restart', async () => {
        postgres.stop();
        await sleep(PG_DOWN_MS);
        postgres.start();
        // The servers said they were not ready while it was down: the fault lasts until the balancer
        // sends one of them traffic again, as a server's restart lasts until it is taken back.
        await Promise.any(names.map((name) => haproxy!.sentTraffic(name)));
      });
      await at(0.35);
      await during('mail server away', async () => {
        await smtp.stop();
        await sleep(SMTP_AWAY_MS);
        await smtp.start();
      });
      smtpBack = performance.now();
      await at(0.75);
      await during('server b restart', async () => {
        const stopped = servers[1]!;
        const code = await stopped.stop();
        output += stopped.output();
        if (code !== 0) throw new Error(`Server b exited with ${code} on SIGTERM:\n${stopped.output()}`);
        servers[1] = await start(1);
        await haproxy!.sentTraffic('b');
      });
      await at(1);
    } finally {
      walking = false;
      await load;
    }

    // ---- what was stored, against what was answered ----
    await db.connect();
    const { rows } = await db.query<{
      id: string;
      email_verified: boolean;
      phone_verified: boolean;
      steps: string[];
      vehicle_photos: number;
      status: string;
    }>(
      `SELECT d.id, d.email_verified_at IS NOT NULL AS email_verified, d.phone_verified_at IS NOT NULL AS phone_verified, d.status,
         ARRAY(SELECT step FROM step_answers a WHERE a.driver_id = d.id) AS steps,
         (SELECT count(*)::int FROM uploads u WHERE u.driver_id = d.id AND u.field LIKE 'vehicleImage%') AS vehicle_photos
       FROM drivers d WHERE d.email LIKE 'soak-%'`,
    );
    const stored = new Map(rows.map((row) => [row.id, row]));
    const lostSteps: string[] = [];
    for (const driver of walked) {
      const row = stored.get(driver.driverId);
      const holds = {
        emailVerified: row?.email_verified,
        phoneVerified: row?.phone_verified,
        completeProfile: row?.steps.includes('completeProfile'),
        uploadVehicleImages: (row?.vehicle_photos ?? 0) > 0,
        addVehicle: row?.steps.includes('addVehicle'),
      };
      for (const done of driver.done) if (!holds[done]) lostSteps.push(`${driver.driverId} ${done}`);
      if (approved.has(driver.driverId) && row?.status !== 'approved') lostSteps.push(`${driver.driverId} approval`);
    }

    // Every approval's notice delivered once: wait for the retries after the faults.
    const pending = async () => Number((await db.query<{ count: string }>("SELECT count(*) FROM outgoing_notices WHERE status = 'pending'")).rows[0]!.count);
    const drainDeadline = performance.now() + DRAIN_MS;
    let undelivered = await pending();
    while (undelivered > 0 && performance.now() < drainDeadline) {
      await sleep(1_000);
      undelivered = await pending();
    }
    const drainSeconds = (performance.now() - smtpBack) / 1000;
    const lostNotices: string[] = [];
    const duplicateNotices: string[] = [];
    for (const driver of walked.filter((each) => approved.has(each.driverId))) {
      // As the driver's mailbox counts them: a notice sent again (its acknowledgement lost when the
      // mail server went away) keeps its Message-ID and shows once.
      const mails = new Set(
        smtp.received
          .filter((each) => each.subject === APPROVED_SUBJECT && !Array.isArray(each.to) && each.to?.value[0]?.address === driver.email)
          .map((each) => each.messageId),
      ).size;
      const texts = twilio.sent.filter((each) => each.to === driver.phone && each.body.startsWith(APPROVED_TEXT)).length;
      for (const [channel, count] of [
        ['email', mails],
        ['sms', texts],
      ] as const) {
        if (count === 0) lostNotices.push(`approved by ${channel} to ${driver.driverId}: none delivered`);
        if (count > 1) duplicateNotices.push(`approved by ${channel} to ${driver.driverId}: ${count} delivered`);
      }
    }
    return {
      calls,
      faults,
      lostSteps,
      approvals,
      lostNotices,
      duplicateNotices,
      undelivered,
      drainSeconds,
      journeys,
      serverOutput: output + servers.map((server) => server.output()).join(''),
    };
  } finally {
    haproxy?.stop();
    await Promise.allSettled(servers.map((server) => server.stop()));
    await db.end().catch(() => undefined);
    await Promise.allSettled([smtp.close(), twilio.close()]);
    postgres.remove();
    await rm(folder, { recursive: true, force: true });
  }
}
