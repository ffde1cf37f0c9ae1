/**
 * Sign-up and the one-time codes (spec §4, §7). Every route here is rate limited per client
 * address (request.ip: the socket, or the proxy's X-Forwarded-For only when TRUST_PROXY says
 * so; the `ip` a client sends is recorded, never trusted).
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { HttpError, badRequest, tooManyRequests, unauthorized } from '../errors.js';
import { emailExtra, idTokenExtra, ipExtra, usPhoneExtra } from '../lib/extras.js';
import type { Queryable } from '../db/db.js';
import type { SignedInUser } from '../plugins/identity.js';
import { OTP_MESSAGES } from '../plugins/otpCodes.js';

export const AUTH_MESSAGES = {
  tooManyRequests: 'Too many requests. Please wait a minute and try again.',
  emailTaken: 'An account with this email already exists. Please sign in the way you signed up before.',
  emailMismatch: 'The signed-in account does not match this email. Please sign in again.',
  useEmailSignUp: 'Please sign up with your email and password.',
  emailCodeSent: 'We sent a 4-digit code to your email.',
  emailCodeResent: 'If an account uses this email, a new code is on its way.',
  noPhone: 'Your account has no phone number yet. Please complete your profile first.',
  phoneMismatch: 'This phone number does not match your account. Please sign up again.',
  phoneCodeSent: 'We sent a 4-digit code to your phone.',
  phoneVerified: 'Your phone number is verified.',
} as const;

const isUniqueViolation = (error: unknown) => (error as { code?: unknown }).code === '23505';

/** The signed-in user's email, which must be the one the driver typed. */
function emailOf(user: SignedInUser, email: string): string {
  if (user.email !== email) throw unauthorized(AUTH_MESSAGES.emailMismatch);
  return email;
}

interface DriverKey {
  id: string;
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
        if (byEmail.rows.length > 0) throw new HttpError(409, AUTH_MESSAGES.emailTaken);
      }
      return update(tx, existing);
    });
  } catch (error) {
    // Two sign-ups racing for one email, or an account whose email changed to a taken one.
    if (isUniqueViolation(error)) throw new HttpError(409, AUTH_MESSAGES.emailTaken);
    throw error;
  }
}

export async function authRoutes(app: FastifyInstance, options: { max: number; windowMs: number }) {
  await app.register(rateLimit, {
    max: options.max,
    timeWindow: options.windowMs,
    errorResponseBuilder: () => tooManyRequests(AUTH_MESSAGES.tooManyRequests),
  });
  const reader = app.callReader;

  app.post(reader.routePath('driverEmailSignUp'), async (request) => {
    const { form, extras } = reader.json('driverEmailSignUp', request);
    const idToken = idTokenExtra(extras.idToken);
    const ip = ipExtra(extras.ip);
    const user = await app.identity.verify(idToken);
    const email = emailOf(user, String(form.email).trim().toLowerCase());
    const phone = `+1${String(form.phoneNo)}`;
    const referralCode = typeof form.referalCode === 'string' ? form.referalCode : null;
    const now = app.now();
    // The password went to Firebase, which owns it; the server only checked it against the schema.
    const driverId = await upsertDriver(app, user, email, async (tx, existing) => {
      if (existing) {
        // A re-signup with the same Firebase account: new phone/referral, and a new code.
        await tx.query(
          `UPDATE drivers SET email = $2, phone = $3, referral_code = $4, terms_accepted_at = $5, sms_consent_at = $5,
             signup_ip = $6, phone_verified_at = CASE WHEN phone = $3 THEN phone_verified_at END, updated_at = $5
           WHERE id = $1`,
          [existing, email, phone, referralCode, now, ip],
        );
        return existing;
      }
      const created = await tx.query<DriverKey>(
        `INSERT INTO drivers (email, firebase_uid, provider, phone, referral_code, terms_accepted_at, sms_consent_at, signup_ip, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6, $7, $6, $6) RETURNING id`,
        [email, user.uid, user.provider, phone, referralCode, now, ip],
      );
      return created.rows[0]!.id;
    });
    await app.otpCodes.send({ channel: 'email', destination: email, driverId });
    return { success: true, message: AUTH_MESSAGES.emailCodeSent, driverId };
  });

  app.post(reader.routePath('driverSocialSignup'), async (request) => {
    const { extras } = reader.json('driverSocialSignup', request, null);
    const typedEmail = emailExtra(extras.email);
    const idToken = idTokenExtra(extras.idToken);
    const ip = ipExtra(extras.ip);
    const user = await app.identity.verify(idToken);
    // A password account has not proved its email; it must go through the email code.
    if (user.provider === 'password') throw badRequest(AUTH_MESSAGES.useEmailSignUp);
    const email = emailOf(user, typedEmail);
    const now = app.now();
    const verifiedAt = user.emailVerified ? now : null;
    const driverId = await upsertDriver(app, user, email, async (tx, existing) => {
      if (existing) {
        await tx.query(
          `UPDATE drivers SET email = $2, signup_ip = COALESCE($3, signup_ip),
             email_verified_at = COALESCE(email_verified_at, $4), updated_at = $5 WHERE id = $1`,
          [existing, email, ip, verifiedAt, now],
        );
        return existing;
      }
      const created = await tx.query<DriverKey>(
        `INSERT INTO drivers (email, firebase_uid, provider, signup_ip, email_verified_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id`,
        [email, user.uid, user.provider, ip, verifiedAt, now],
      );
      return created.rows[0]!.id;
    });
    const token = await app.sessions.start(driverId);
    return { success: true, token, driverId };
  });

  app.post(reader.routePath('sendEmailCode'), async (request, reply) => {
    const { extras } = reader.json('sendEmailCode', request);
    const email = emailExtra(extras.email);
    const { rows } = await app.db.query<DriverKey>('SELECT id FROM drivers WHERE email = $1', [email]);
    // An unknown email gets the same answer (and the same limits) as a known one.
    await app.otpCodes.send({ channel: 'email', destination: email, driverId: rows[0]?.id ?? null });
    return reply.code(201).send({ success: true, message: AUTH_MESSAGES.emailCodeResent });
  });

  app.post(reader.routePath('validateEmailCode'), async (request) => {
    const { form, extras } = reader.json('validateEmailCode', request);
    const email = emailExtra(extras.email);
    const { driverId } = await app.otpCodes.verify({ channel: 'email', destination: email, code: String(form.otp) });
    // Codes for unknown emails never match; this only guards the type.
    if (!driverId) throw badRequest(OTP_MESSAGES.wrong);
    await app.db.query('UPDATE drivers SET email_verified_at = COALESCE(email_verified_at, $2), updated_at = $2 WHERE id = $1', [
      driverId,
      app.now(),
    ]);
    const token = await app.sessions.start(driverId);
    return { success: true, token, driverId };
  });

  /** The signed-in driver's phone, which the client must have sent. */
  async function driverPhone(driverId: string, sentPhone: string): Promise<string> {
    const { rows } = await app.db.query<{ phone: string | null }>('SELECT phone FROM drivers WHERE id = $1', [driverId]);
    const phone = rows[0]?.phone ?? null;
    if (!phone) throw badRequest(AUTH_MESSAGES.noPhone);
    if (phone !== sentPhone) throw badRequest(AUTH_MESSAGES.phoneMismatch);
    return phone;
  }

  app.post(reader.routePath('sendPhoneCode'), { preHandler: app.requireDriver }, async (request, reply) => {
    const { extras } = reader.json('sendPhoneCode', request);
    const phone = await driverPhone(request.driverId, usPhoneExtra(extras.phoneNo));
    const { firstForDriver } = await app.otpCodes.send({ channel: 'sms', destination: phone, driverId: request.driverId });
    // The client counts 201 as "resent" (spec §4); the first code after email verification is a 200.
    return reply.code(firstForDriver ? 200 : 201).send({ success: true, message: AUTH_MESSAGES.phoneCodeSent });
  });

  app.post(reader.routePath('validatePhoneCode'), { preHandler: app.requireDriver }, async (request) => {
    const { form, extras } = reader.json('validatePhoneCode', request);
    const phone = await driverPhone(request.driverId, usPhoneExtra(extras.phoneNo));
    // The driver comes from the token, never from the phone number sent.
    await app.otpCodes.verify({ channel: 'sms', destination: phone, code: String(form.otp), driverId: request.driverId });
    await app.db.query('UPDATE drivers SET phone_verified_at = $2, updated_at = $2 WHERE id = $1', [request.driverId, app.now()]);
    return { success: true, message: AUTH_MESSAGES.phoneVerified };
  });
}
