/**
 * One-time codes (docs/architecture.md, "Security rules the code keeps"). A code proves that the
 * driver of a sign-up reads an address; it never signs anyone in (routes/auth.ts binds each call to
 * the sign-up's own token or session). The spec fixes 4 digits, which is guessable, so the server
 * makes guessing useless:
 * - crypto-random codes, stored as a keyed hash of (driver, channel, destination, purpose, code),
 *   single use, 10 minutes, and a new code replaces that driver's previous one;
 * - at most 5 wrong tries per code (then even the right code is refused until a new one is sent);
 * - at most 20 consecutive wrong codes per account and per destination, then 24 hours locked
 *   (NIST 800-63B §5.2.2; with 20 tries against 10,000 codes a guesser wins 0.2 % per lock);
 * - at most 5 codes delivered per driver and channel an hour, and 10 per destination whichever
 *   account asks (so a second account can't use up the first one's sends, but nobody can flood a
 *   phone). A code that never reached the driver (the address refused, the mail server or Twilio
 *   away, its server stopped while sending it) does not count: a driver who asks again during an
 *   outage is not locked out by it. A code still being sent counts, so asking many times at once
 *   sends no more. Every code asked for, delivered or not, counts toward 20 an hour per driver and
 *   channel: making delivery fail gets nobody unlimited sends.
 * Every counter lives in the database, so all server instances share it.
 */
import type { Locale } from '../../shared/locales.js';
import { refusal } from '../serverMessages.js';
import { loggableError } from '../errors.js';
import { randomInt } from 'node:crypto';
import type { HttpError } from '@fastify/sensible';
import type { Queryable } from '../db/db.js';
import type { Channel } from '../messaging/delivery.js';
import fp from 'fastify-plugin';

export const CODE_LIFETIME_MS = 10 * 60 * 1000;
export const MAX_WRONG_ATTEMPTS = 5;
export const MAX_SENDS_PER_HOUR = 5;
export const MAX_SENDS_PER_DESTINATION_PER_HOUR = 10;
export const MAX_ASKED_PER_HOUR = 20;
/** Longer than a code's delivery can take (three tries, each within its transport's time limits): one still unconfirmed after it was cut off. */
const SENDING_MS = 5 * 60 * 1000;
export const MAX_CONSECUTIVE_FAILURES = 20;
export const LOCKOUT_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;

/** What a code is for; only verification today, but a code for one purpose never serves another. */
export type CodePurpose = 'verify';

export interface CodeTarget {
  driverId: string;
  channel: Channel;
  /** An email address or an E.164 phone number. */
  destination: string;
  purpose: CodePurpose;
}

export interface OtpCodes {
  /** Issues and delivers a code, its words in `locale`. `firstForDriver` is true when the driver never had one on this channel. */
  send(target: CodeTarget, locale: Locale): Promise<{ firstForDriver: boolean }>;
  /** Consumes the code or throws the 400/429 to answer. */
  verify(target: CodeTarget, code: string): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    otpCodes: OtpCodes;
  }
}

interface CodeRow {
  id: string;
  code_hash: string;
  expires_at: Date;
  wrong_attempts: number;
}

/** The lockout subjects a target counts against: its account (on this channel) and its destination (an erasure removes a driver's). */
export const subjectsOf = (target: CodeTarget) => [`driver:${target.driverId}:${target.channel}`, `destination:${target.channel}:${target.destination}`];

/** Serialises the sends and checks of one destination (the counts must not race). */
const lockDestination = (tx: Queryable, target: CodeTarget) =>
  tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`otp:${target.channel}:${target.destination}`]);

async function refuseWhenLocked(tx: Queryable, target: CodeTarget, now: Date): Promise<void> {
  const { rows } = await tx.query('SELECT 1 FROM code_lockouts WHERE subject = ANY($1::text[]) AND locked_until > $2', [subjectsOf(target), now]);
  if (rows.length > 0) throw refusal(429, 'codes.locked', { hours: LOCKOUT_MS / HOUR_MS });
}

/** One more consecutive failure for each subject; the one that reaches the limit is locked (and counts from zero again). */
async function countFailure(tx: Queryable, target: CodeTarget, now: Date): Promise<void> {
  for (const subject of subjectsOf(target)) {
    await tx.query(
      `INSERT INTO code_lockouts (subject, consecutive_failures) VALUES ($1, 1)
       ON CONFLICT (subject) DO UPDATE SET consecutive_failures = code_lockouts.consecutive_failures + 1`,
      [subject],
    );
    await tx.query('UPDATE code_lockouts SET consecutive_failures = 0, locked_until = $2 WHERE subject = $1 AND consecutive_failures >= $3', [
      subject,
      new Date(now.getTime() + LOCKOUT_MS),
      MAX_CONSECUTIVE_FAILURES,
    ]);
  }
}

export const otpCodesPlugin = fp(
  async (app) => {
    const codeText = (target: CodeTarget, code: string) => [target.driverId, target.channel, target.destination, target.purpose, code].join(':');

    const otpCodes: OtpCodes = {
      async send(target, locale) {
        const now = app.now();
        const code = String(randomInt(0, 10_000)).padStart(4, '0');
        const hourAgo = new Date(now.getTime() - HOUR_MS);
        const { id, firstForDriver } = await app.db.transaction(async (tx) => {
          await lockDestination(tx, target);
          await refuseWhenLocked(tx, target, now);
          // Delivered, or being sent by a request that has not finished yet.
          const counted = `created_at > $4 AND (delivery = 'delivered' OR (delivery = 'sending' AND created_at > $5))`;
          const { rows } = await tx.query<{ mine: number; asked: number; anyone: number; ever: boolean }>(
            `SELECT count(*) FILTER (WHERE driver_id = $1 AND ${counted})::int AS mine,
                  count(*) FILTER (WHERE driver_id = $1 AND created_at > $4)::int AS asked,
                  count(*) FILTER (WHERE destination = $3 AND ${counted})::int AS anyone,
                  bool_or(driver_id = $1) AS ever
           FROM otp_codes WHERE channel = $2 AND (driver_id = $1 OR (destination = $3 AND created_at > $4))`,
            [target.driverId, target.channel, target.destination, hourAgo, new Date(now.getTime() - SENDING_MS)],
          );
          const counts = rows[0];
          if (
            (counts?.mine ?? 0) >= MAX_SENDS_PER_HOUR ||
            (counts?.asked ?? 0) >= MAX_ASKED_PER_HOUR ||
            (counts?.anyone ?? 0) >= MAX_SENDS_PER_DESTINATION_PER_HOUR
          ) {
            throw refusal(429, 'codes.tooManySends');
          }
          // A new code replaces this driver's previous one on the channel; other drivers' codes stand.
          await tx.query('UPDATE otp_codes SET consumed_at = $3 WHERE driver_id = $1 AND channel = $2 AND consumed_at IS NULL', [
            target.driverId,
            target.channel,
            now,
          ]);
          const inserted = await tx.query<{ id: string }>(
            `INSERT INTO otp_codes (driver_id, channel, destination, purpose, code_hash, expires_at, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
            [
              target.driverId,
              target.channel,
              target.destination,
              target.purpose,
              app.cipher.codeHash(codeText(target, code)),
              new Date(now.getTime() + CODE_LIFETIME_MS),
              now,
            ],
          );
          return { id: inserted.rows[0]!.id, firstForDriver: counts?.ever !== true };
        });
        try {
          await app.messaging.sendCode({ channel: target.channel, to: target.destination, code, minutes: CODE_LIFETIME_MS / 60_000, locale });
        } catch (error) {
          // A code the driver never got is withdrawn, and counts toward no limit but the codes asked for; the answer says why and what to do.
          await app.db
            .query("UPDATE otp_codes SET consumed_at = coalesce(consumed_at, $2), delivery = 'undelivered' WHERE id = $1", [id, app.now()])
            .catch((withdrawal: unknown) =>
              app.log.warn({ error: loggableError(withdrawal) }, 'An undelivered code could not be withdrawn; it expires unused'),
            );
          throw error;
        }
        // Unrecorded (the database away just now), the code still went out: it counts until SENDING_MS has passed.
        await app.db
          .query("UPDATE otp_codes SET delivery = 'delivered' WHERE id = $1", [id])
          .catch((record: unknown) => app.log.warn({ error: loggableError(record) }, 'A delivered code could not be recorded as delivered'));
        return { firstForDriver };
      },

      async verify(target, code) {
        const now = app.now();
        // The transaction commits a wrong attempt even though the answer is an error.
        const refused = await app.db.transaction(async (tx): Promise<HttpError | null> => {
          await lockDestination(tx, target);
          await refuseWhenLocked(tx, target, now);
          const { rows } = await tx.query<CodeRow>(
            `SELECT id, code_hash, expires_at, wrong_attempts FROM otp_codes
           WHERE driver_id = $1 AND channel = $2 AND destination = $3 AND purpose = $4 AND consumed_at IS NULL
           ORDER BY created_at DESC, id DESC LIMIT 1 FOR UPDATE`,
            [target.driverId, target.channel, target.destination, target.purpose],
          );
          const row = rows[0];
          if (!row) return refusal(400, 'codes.noCode');
          if (row.wrong_attempts >= MAX_WRONG_ATTEMPTS) return refusal(429, 'codes.tooManyTries');
          if (new Date(row.expires_at).getTime() <= now.getTime()) return refusal(400, 'codes.expired');
          if (!app.cipher.codeHashes(codeText(target, code)).some((hash) => app.cipher.sameHash(row.code_hash, hash))) {
            await tx.query('UPDATE otp_codes SET wrong_attempts = wrong_attempts + 1 WHERE id = $1', [row.id]);
            await countFailure(tx, target, now);
            return refusal(400, 'codes.wrong');
          }
          await tx.query('UPDATE otp_codes SET consumed_at = $2 WHERE id = $1', [row.id, now]);
          await tx.query('DELETE FROM code_lockouts WHERE subject = ANY($1::text[])', [subjectsOf(target)]);
          return null;
        });
        if (refused) throw refused;
      },
    };
    app.decorate('otpCodes', otpCodes);
  },
  { name: 'onramp-otp-codes', decorators: { fastify: ['cipher', 'db', 'messaging', 'now'] } },
);
