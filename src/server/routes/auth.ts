/**
 * Sign-up, sign-in and the one-time codes (spec §4, §7). Every route here is rate limited per
 * client address (request.ip: the socket, or the proxy's X-Forwarded-For only when TRUST_PROXY
 * says so; the `ip` a client sends is recorded, never trusted).
 *
 * A code proves an address for the sign-up that asked for it; it never signs anyone in:
 * - the email sign-up (a Firebase ID token of that very account) answers a sign-up token, and
 *   only that token can resend or check the sign-up's email code; a verified email takes no code;
 * - a social sign-up whose provider did not verify the email is treated the same way: a code is
 *   sent and a sign-up token answered, and the session comes only with the verified code;
 * - phone codes need the driver's session and go to the driver's own phone;
 * - returning drivers sign in with Firebase (email and password, or a provider), and the server
 *   exchanges the verified ID token for a session (/auth/signIn).
 */
import type { Locale } from '../../shared/locales.js';
import { messageIn, refusal } from '../serverMessages.js';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { returningDriver, type ReturningDriver } from '../lib/driverStatus.js';
import type { ServerConfig } from '../config.js';
import { isUniqueViolation, type Queryable } from '../db/db.js';
import { bindLaunchedDriver } from './integrations.js';
import { sharedLimitStore } from '../plugins/rateLimitStore.js';
import type { SignedInUser } from '../plugins/identity.js';
import { bearerToken, type IssuedToken } from '../plugins/sessions.js';
import { type RouteTable, urlOf } from '../lib/routeTable.js';

/** The sign-up, sign-in and codes, each at its call of the flow (lib/routeTable.ts). */
export const AUTH_ROUTES = {
  driverEmailSignUp: { method: 'POST', call: 'driverEmailSignUp' },
  driverSocialSignup: { method: 'POST', call: 'driverSocialSignup' },
  signIn: { method: 'POST', call: 'signIn' },
  signOut: { method: 'POST', call: 'signOut' },
  sendEmailCode: { method: 'POST', call: 'sendEmailCode', answers: [201] },
  validateEmailCode: { method: 'POST', call: 'validateEmailCode' },
  // 200 for the first code after the email's, 201 for a code sent again (spec §4).
  sendPhoneCode: { method: 'POST', call: 'sendPhoneCode', answers: [200, 201] },
  validatePhoneCode: { method: 'POST', call: 'validatePhoneCode' },
} as const satisfies RouteTable;

/** A response schema of `said` answers with each of these statuses. */
const saidWith = (statuses: readonly number[]) => Object.fromEntries(statuses.map((status) => [status, { $ref: 'api#/$defs/said' }]));

/** The signed-in user's email, which must be the one the driver typed (in any case). */
function emailOf(user: SignedInUser, email: string): string {
  const lowered = email.toLowerCase();
  if (user.email?.toLowerCase() !== lowered) throw refusal(401, 'auth.emailMismatch');
  return lowered;
}

interface DriverKey {
  id: string;
}

/** Refuses a phone number that another account has verified (a verified phone belongs to one account). */
async function refuseClaimedPhone(db: Queryable, phone: string, driverId: string | null): Promise<void> {
  const { rows } = await db.query('SELECT 1 FROM drivers WHERE phone = $1 AND phone_verified_at IS NOT NULL AND id IS DISTINCT FROM $2::uuid', [
    phone,
    driverId,
  ]);
  if (rows.length > 0) throw refusal(409, 'auth.phoneTaken');
}

/**
 * The driver of this Firebase account, created or updated by `update`. An email that belongs
 * to another Firebase account is refused (a social login must not take over a password account).
 */
async function upsertDriver(
  app: FastifyInstance,
  user: SignedInUser,
  email: string,
  update: (tx: Queryable, existingId: string | null) => Promise<string>,
): Promise<string> {
  try {
    return await app.db.transaction(async (tx) => {
      const byUid = await tx.query<DriverKey>('SELECT id FROM drivers WHERE firebase_uid = $1 FOR UPDATE', [user.uid]);
      const existing = byUid.rows[0]?.id ?? null;
      if (!existing) {
        const byEmail = await tx.query<DriverKey>('SELECT id FROM drivers WHERE email = $1', [email]);
        if (byEmail.rows.length > 0) throw refusal(409, 'auth.emailTaken');
      }
      return await update(tx, existing);
    });
  } catch (error) {
    // Two sign-ups racing for one email, or an account whose email changed to a taken one.
    if (isUniqueViolation(error)) throw refusal(409, 'auth.emailTaken');
    throw error;
  }
}

export async function authRoutes(app: FastifyInstance, options: { max: number; windowMs: number; counters: ServerConfig['sharedCounters'] }) {
  await app.register(rateLimit, {
    max: options.max,
    timeWindow: options.windowMs,
    // Counted where every server instance counts (plugins/rateLimitStore.ts), by client address.
    ...(await sharedLimitStore(app, options.counters)),
    keyGenerator: (request) => `auth:${request.ip}`,
    errorResponseBuilder: () => refusal(429, 'auth.tooManyRequests'),
  });
  const reader = app.callReader;
  const signUpOnly = { config: { tokenKinds: ['signup'] as const }, preHandler: app.requireDriver };
  const sessionOnly = { preHandler: app.requireDriver };

  /** What a returning driver's browser is told, with the token it now holds. */
  async function answerFor(driverId: string, issued: IssuedToken): Promise<ReturningDriver & { success: true; token: string }> {
    const driver = await returningDriver(app.db, driverId, reader.flow, app.now());
    if (!driver) throw refusal(404, 'auth.noAccount');
    return { success: true, token: issued.token, ...driver };
  }

  /** Sends a sign-up's email code (in the driver's language) and hands out the sign-up token that alone may check it. */
  async function startEmailVerification(driverId: string, email: string, user: SignedInUser, locale: Locale): Promise<IssuedToken> {
    await app.otpCodes.send({ driverId, channel: 'email', destination: email, purpose: 'verify' }, locale);
    return app.sessions.startSignup(driverId, user.authTime);
  }

  const answers = (schema: string) => ({ schema: { response: { 200: { $ref: `api#/$defs/${schema}` } } } });
  app.post(urlOf(AUTH_ROUTES.driverEmailSignUp, reader.flow), answers('signUpAnswer'), async (request) => {
    const { sent, context } = reader.json('driverEmailSignUp', request, { expects: ['idToken', 'ip'] });
    const { ip } = context;
    const user = await app.identity.verify(context.idToken);
    // The payload as the flow maps it: the email lower-cased, the phone with +1, an empty referral null.
    const email = emailOf(user, String(sent.email));
    const phone = String(sent.phoneNo);
    const referralCode = typeof sent.referalCode === 'string' ? sent.referalCode : null;
    const now = app.now();
    // The password went to Firebase, which owns it; the server only checked it against the schema.
    const driverId = await upsertDriver(app, user, email, async (tx, existing) => {
      await refuseClaimedPhone(tx, phone, existing);
      if (existing) {
        const verified = await tx.query('SELECT 1 FROM drivers WHERE id = $1 AND email_verified_at IS NOT NULL', [existing]);
        // A finished sign-up is signed into, not signed up again: no code, no changes. A departure
        // on purpose (docs/departures.md): 409 with "Please sign in." where the spec falls back to signing in.
        if (verified.rows.length > 0) throw refusal(409, 'auth.alreadyVerified');
        // An unfinished sign-up of the same Firebase account: new phone/referral, and a new code.
        await tx.query(
          `UPDATE drivers SET email = $2, phone = $3, referral_code = $4, terms_accepted_at = $5, sms_consent_at = $5,
             signup_ip = $6, phone_verified_at = CASE WHEN phone = $3 THEN phone_verified_at END, updated_at = $5
           WHERE id = $1`,
          [existing, email, phone, referralCode, now, ip],
        );
        await bindLaunchedDriver(tx, app.cipher, request, { id: existing, email, now });
        return existing;
      }
      const created = await tx.query<DriverKey>(
        `INSERT INTO drivers (email, firebase_uid, provider, phone, referral_code, terms_accepted_at, sms_consent_at, signup_ip, locale, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6, $7, $8, $6, $6) RETURNING id`,
        [email, user.uid, user.provider, phone, referralCode, now, ip, request.locale],
      );
      await bindLaunchedDriver(tx, app.cipher, request, { id: created.rows[0]!.id, email, now });
      await app.webhooks.emit(tx, created.rows[0]!.id, 'driver.signed_up', { provider: user.provider });
      return created.rows[0]!.id;
    });
    const signUp = await startEmailVerification(driverId, email, user, request.locale);
    return { success: true, message: messageIn(request.locale, 'auth.emailCodeSent'), driverId, token: signUp.token };
  });

  app.post(urlOf(AUTH_ROUTES.driverSocialSignup, reader.flow), answers('signedIn'), async (request) => {
    const { context } = reader.json('driverSocialSignup', request, { expects: ['email', 'idToken', 'ip'] });
    const { ip } = context;
    const user = await app.identity.verify(context.idToken);
    // A password account has not proved its email; it must go through the email code.
    if (user.provider === 'password') throw refusal(400, 'auth.useEmailSignUp');
    const email = emailOf(user, context.email);
    const now = app.now();
    const verifiedAt = user.emailVerified ? now : null;
    let emailVerified = false;
    const driverId = await upsertDriver(app, user, email, async (tx, existing) => {
      if (existing) {
        const updated = await tx.query<{ email_verified: boolean }>(
          `UPDATE drivers SET email = $2, signup_ip = COALESCE($3, signup_ip),
             email_verified_at = COALESCE(email_verified_at, $4), updated_at = $5 WHERE id = $1
           RETURNING email_verified_at IS NOT NULL AS email_verified`,
          [existing, email, ip, verifiedAt, now],
        );
        emailVerified = updated.rows[0]!.email_verified;
        await bindLaunchedDriver(tx, app.cipher, request, { id: existing, email, now }, { signingIn: true });
        return existing;
      }
      const created = await tx.query<DriverKey>(
        `INSERT INTO drivers (email, firebase_uid, provider, signup_ip, email_verified_at, locale, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id`,
        [email, user.uid, user.provider, ip, verifiedAt, request.locale, now],
      );
      await bindLaunchedDriver(tx, app.cipher, request, { id: created.rows[0]!.id, email, now });
      emailVerified = verifiedAt !== null;
      await app.webhooks.emit(tx, created.rows[0]!.id, 'driver.signed_up', { provider: user.provider });
      return created.rows[0]!.id;
    });
    // A provider's sign-in is a sign-in, but an email the provider did not verify (Facebook's
    // never are) is proved by our code first, as a password sign-up's is: until then the driver
    // holds a sign-up token, good only for that code, and the resume table sends them to it.
    const issued = emailVerified ? await app.sessions.start(driverId, user.authTime) : await startEmailVerification(driverId, email, user, request.locale);
    return answerFor(driverId, issued);
  });

  app.post(urlOf(AUTH_ROUTES.signIn, reader.flow), answers('signedIn'), async (request) => {
    const { context } = reader.json('signIn', request, { expects: ['idToken'] });
    const user = await app.identity.verify(context.idToken);
    const { rows } = await app.db.query<{ id: string; email: string; email_verified: boolean }>(
      'SELECT id, email, email_verified_at IS NOT NULL AS email_verified FROM drivers WHERE firebase_uid = $1',
      [user.uid],
    );
    const driver = rows[0];
    if (!driver) throw refusal(404, 'auth.noAccount');
    // A new password (or a revocation) moves Firebase's "valid since": sessions made before it end.
    const validSince = await app.identity.tokensValidSince(user.uid);
    if (validSince) await app.sessions.endOlderThan(driver.id, validSince);
    // The browser's previous token, if it sent one, is replaced rather than left alive.
    const previous = bearerToken(request);
    if (previous) await app.sessions.end(previous);
    await bindLaunchedDriver(app.db, app.cipher, request, { id: driver.id, email: driver.email, now: app.now() }, { signingIn: true });
    // A password sign-up that never proved its email goes back to its email code.
    const issued = driver.email_verified
      ? await app.sessions.start(driver.id, user.authTime)
      : await startEmailVerification(driver.id, driver.email, user, request.locale);
    return answerFor(driver.id, issued);
  });

  app.post(
    urlOf(AUTH_ROUTES.signOut, reader.flow),
    { ...answers('said'), config: { tokenKinds: ['session', 'signup'] as const }, preHandler: app.requireDriver },
    async (request) => {
      reader.json('signOut', request);
      await app.sessions.end(request.token!.value);
      return { success: true, message: messageIn(request.locale, 'auth.signedOut') };
    },
  );

  /** The sign-up of this request's sign-up token, which must be for `email` and not finished yet. */
  async function pendingSignUp(driverId: string, email: string): Promise<void> {
    const { rows } = await app.db.query<{ email: string; verified: boolean }>(
      'SELECT email, email_verified_at IS NOT NULL AS verified FROM drivers WHERE id = $1',
      [driverId],
    );
    const driver = rows[0];
    if (!driver || driver.email !== email) throw refusal(403, 'auth.notYourSignUp');
    if (driver.verified) throw refusal(409, 'auth.alreadyVerified');
  }

  app.post(
    urlOf(AUTH_ROUTES.sendEmailCode, reader.flow),
    { ...signUpOnly, schema: { response: saidWith(AUTH_ROUTES.sendEmailCode.answers) } },
    async (request, reply) => {
      const { email } = reader.json('sendEmailCode', request, { expects: ['email'] }).context;
      await pendingSignUp(request.driverId, email);
      await app.otpCodes.send({ driverId: request.driverId, channel: 'email', destination: email, purpose: 'verify' }, request.locale);
      return reply.code(AUTH_ROUTES.sendEmailCode.answers[0]).send({ success: true, message: messageIn(request.locale, 'auth.emailCodeResent') });
    },
  );

  app.post(urlOf(AUTH_ROUTES.validateEmailCode, reader.flow), { ...signUpOnly, ...answers('signedIn') }, async (request) => {
    const { form, context } = reader.json('validateEmailCode', request, { expects: ['email'] });
    const { email } = context;
    const driverId = request.driverId;
    await pendingSignUp(driverId, email);
    await app.otpCodes.verify({ driverId, channel: 'email', destination: email, purpose: 'verify' }, String(form.otp));
    const signUp = request.token!;
    const session = await app.db.transaction(async (tx) => {
      const now = app.now();
      const verified = await tx.query('UPDATE drivers SET email_verified_at = $2, updated_at = $2 WHERE id = $1 AND email_verified_at IS NULL RETURNING id', [
        driverId,
        now,
      ]);
      // Verified meanwhile by a concurrent request with the same code: that one got the session.
      if (verified.rows.length === 0) throw refusal(409, 'auth.alreadyVerified');
      await app.sessions.end(signUp.value, tx);
      return app.sessions.start(driverId, signUp.holder.authenticatedAt, tx);
    });
    // With the driver's status, which the flow goes on by (a social sign-up to its profile, not to a phone code).
    return answerFor(driverId, session);
  });

  /** The signed-in driver's phone, which the client must have sent. */
  async function driverPhone(driverId: string, sentPhone: string): Promise<string> {
    const { rows } = await app.db.query<{ phone: string | null }>('SELECT phone FROM drivers WHERE id = $1', [driverId]);
    const phone = rows[0]?.phone ?? null;
    if (!phone) throw refusal(400, 'auth.noPhone');
    if (phone !== sentPhone) throw refusal(400, 'auth.phoneMismatch');
    return phone;
  }

  app.post(
    urlOf(AUTH_ROUTES.sendPhoneCode, reader.flow),
    { ...sessionOnly, schema: { response: saidWith(AUTH_ROUTES.sendPhoneCode.answers) } },
    async (request, reply) => {
      const { context } = reader.json('sendPhoneCode', request, { expects: ['phone'] });
      const phone = await driverPhone(request.driverId, context.phone);
      await refuseClaimedPhone(app.db, phone, request.driverId);
      const { firstForDriver } = await app.otpCodes.send({ driverId: request.driverId, channel: 'sms', destination: phone, purpose: 'verify' }, request.locale);
      // The client counts 201 as "resent" (spec §4); the first code after email verification is a 200.
      return reply.code(firstForDriver ? 200 : 201).send({ success: true, message: messageIn(request.locale, 'auth.phoneCodeSent') });
    },
  );

  app.post(urlOf(AUTH_ROUTES.validatePhoneCode, reader.flow), { ...sessionOnly, ...answers('said') }, async (request) => {
    const { form, context } = reader.json('validatePhoneCode', request, { expects: ['phone'] });
    const phone = await driverPhone(request.driverId, context.phone);
    // The driver comes from the token, never from the phone number sent.
    await app.otpCodes.verify({ driverId: request.driverId, channel: 'sms', destination: phone, purpose: 'verify' }, String(form.otp));
    try {
      // A code that reached the number proves it takes our texts again (its STOP was undone with START).
      await app.db.query('UPDATE drivers SET phone_verified_at = $2, sms_opted_out_at = NULL, updated_at = $2 WHERE id = $1', [request.driverId, app.now()]);
    } catch (error) {
      // Another account verified this number meanwhile (drivers_verified_phone_idx).
      if (isUniqueViolation(error)) throw refusal(409, 'auth.phoneTaken');
      throw error;
    }
    return { success: true, message: messageIn(request.locale, 'auth.phoneVerified') };
  });
}
