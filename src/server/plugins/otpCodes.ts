/**
 * One-time codes (DESIGN §5, research/anchors-security.md §1). The spec fixes 4 digits, which
 * is guessable, so the server makes guessing useless: crypto-random codes, stored as a keyed
 * hash bound to channel and destination, single use, 10 minutes, at most 5 wrong tries per
 * code (then even the right code is refused until a new one is sent), at most 5 sends per
 * destination per hour, and a new code replaces the previous one.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { HttpError, badRequest, tooManyRequests } from '../errors.js';
import type { Queryable } from '../db/db.js';
import type { Channel } from './outbox.js';
import { shared } from './shared.js';

export const CODE_LIFETIME_MS = 10 * 60 * 1000;
export const MAX_WRONG_ATTEMPTS = 5;
export const MAX_SENDS_PER_HOUR = 5;
const HOUR_MS = 60 * 60 * 1000;

export const OTP_MESSAGES = {
  tooManySends: 'Too many codes were requested. Please wait an hour and try again.',
  noCode: 'There is no code waiting for you. Please tap Resend to get a new one.',
  tooManyTries: 'Too many wrong codes. Please tap Resend to get a new code.',
  expired: 'This code has expired. Please tap Resend to get a new one.',
  wrong: 'The code you entered is incorrect.',
} as const;

export interface SendRequest {
  channel: Channel;
  destination: string;
  /** null for an unknown email: a code is recorded (for the limits) but never delivered. */
  driverId: string | null;
}

export interface VerifyRequest {
  channel: Channel;
  destination: string;
  code: string;
  /** When given, the code must also have been sent to this driver (phone codes). */
  driverId?: string;
}

export interface OtpCodes {
  /** Issues and delivers a code. `firstForDriver` is true when the driver never had one on this channel. */
  send(request: SendRequest): Promise<{ firstForDriver: boolean }>;
  /** Consumes the code or throws the 400/429 to answer. Returns the driver it was sent to. */
  verify(request: VerifyRequest): Promise<{ driverId: string | null }>;
}

declare module 'fastify' {
  interface FastifyInstance {
    otpCodes: OtpCodes;
  }
}

interface CodeRow {
  id: string;
  driver_id: string | null;
  code_hash: string;
  expires_at: Date;
  wrong_attempts: number;
}

/** Serialises the sends and checks of one destination (the count must not race). */
const lockDestination = (tx: Queryable, channel: Channel, destination: string) =>
  tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`otp:${channel}:${destination}`]);

export const otpCodesPlugin = shared(async (app) => {
  const hashOf = (channel: Channel, destination: string, code: string) => app.cipher.codeHash(`${channel}:${destination}:${code}`);

  const otpCodes: OtpCodes = {
    async send({ channel, destination, driverId }) {
      const now = app.now();
      const code = String(randomInt(0, 10_000)).padStart(4, '0');
      // A code for nobody hashes a random secret instead, so it can never be matched.
      const secret = driverId ? code : randomBytes(32).toString('hex');
      const { firstForDriver } = await app.db.transaction(async (tx) => {
        await lockDestination(tx, channel, destination);
        const recent = await tx.query<{ sends: number }>(
          'SELECT count(*)::int AS sends FROM otp_codes WHERE channel = $1 AND destination = $2 AND created_at > $3',
          [channel, destination, new Date(now.getTime() - HOUR_MS)],
        );
        if ((recent.rows[0]?.sends ?? 0) >= MAX_SENDS_PER_HOUR) throw tooManyRequests(OTP_MESSAGES.tooManySends);
        let first = false;
        if (driverId) {
          const earlier = await tx.query('SELECT 1 FROM otp_codes WHERE driver_id = $1 AND channel = $2 LIMIT 1', [driverId, channel]);
          first = earlier.rows.length === 0;
        }
        // A new code replaces the previous one.
        await tx.query('UPDATE otp_codes SET consumed_at = $3 WHERE channel = $1 AND destination = $2 AND consumed_at IS NULL', [
          channel,
          destination,
          now,
        ]);
        await tx.query(
          `INSERT INTO otp_codes (driver_id, channel, destination, code_hash, expires_at, created_at)
           VALUES ($1, $2, $3, $4, $5, $6)`,
          [driverId, channel, destination, hashOf(channel, destination, secret), new Date(now.getTime() + CODE_LIFETIME_MS), now],
        );
        return { firstForDriver: first };
      });
      if (driverId) await app.messenger.sendCode({ channel, to: destination, code });
      return { firstForDriver };
    },

    async verify({ channel, destination, code, driverId }) {
      const now = app.now();
      // The transaction commits a wrong attempt even though the answer is an error.
      const outcome = await app.db.transaction(async (tx): Promise<HttpError | { driverId: string | null }> => {
        await lockDestination(tx, channel, destination);
        const { rows } = await tx.query<CodeRow>(
          `SELECT id, driver_id, code_hash, expires_at, wrong_attempts FROM otp_codes
           WHERE channel = $1 AND destination = $2 AND consumed_at IS NULL
             AND ($3::uuid IS NULL OR driver_id = $3::uuid)
           ORDER BY created_at DESC, id DESC LIMIT 1 FOR UPDATE`,
          [channel, destination, driverId ?? null],
        );
        const row = rows[0];
        if (!row) return badRequest(OTP_MESSAGES.noCode);
        if (row.wrong_attempts >= MAX_WRONG_ATTEMPTS) return tooManyRequests(OTP_MESSAGES.tooManyTries);
        if (new Date(row.expires_at).getTime() <= now.getTime()) return badRequest(OTP_MESSAGES.expired);
        if (!app.cipher.sameHash(row.code_hash, hashOf(channel, destination, code))) {
          await tx.query('UPDATE otp_codes SET wrong_attempts = wrong_attempts + 1 WHERE id = $1', [row.id]);
          return badRequest(OTP_MESSAGES.wrong);
        }
        await tx.query('UPDATE otp_codes SET consumed_at = $2 WHERE id = $1', [row.id, now]);
        return { driverId: row.driver_id };
      });
      if (outcome instanceof HttpError) throw outcome;
      return outcome;
    },
  };
  app.decorate('otpCodes', otpCodes);
});
