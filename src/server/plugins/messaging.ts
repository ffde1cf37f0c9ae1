/**
 * Everything the product tells drivers outside the app, in the words of flows/notices.json, by
 * email (SMTP, or the local outbox) and text message (Twilio, or the local outbox):
 *
 * - one-time codes go out while the driver waits: a transport that fails is tried again with
 *   backoff, and a code that still can't go out is no secret failure: the driver is told (the
 *   address refused: 400 with what to do; the service away: 503, tap Resend in a minute);
 * - notices (approved, rejected, payment failed or ended, bank account changed) are written to the
 *   database in the same transaction as what they tell, and delivered in the background by every
 *   server instance, retried with backoff for a day; one that can't be delivered stays recorded
 *   as failed and is logged as an error. Staff members get notices the same way, by email in
 *   English (an invitation, owners told of repeated failed sign-ins or of a disabled webhook endpoint).
 *   A notice's words (an invitation's link among them) are sealed in the database and never logged.
 */
import { DEFAULT_LOCALE, isLocale, type Locale } from '../../shared/locales.js';
import type { Notices } from '../../shared/generated/notices.js';
import { refusal } from '../serverMessages.js';
import { randomUUID } from 'node:crypto';
import { loadNotices } from '../../node/projectFiles.js';
import type { StaffRole } from '../../shared/generated/staff.js';
import type { NoticeName, NoticeToStaff, NoticeValues } from '../../shared/notices.js';
import type { MessagingConfig } from '../config.js';
import { DatabaseUnavailable, type Queryable } from '../db/db.js';
import { everyInterval, passSoon } from '../lib/backgroundPass.js';
import { DeliveryError, type Channel, type OutgoingMessage, type Transport, type Undeliverable } from '../messaging/delivery.js';
import { LocalOutbox } from '../messaging/localOutbox.js';
import { renderNotice } from '../messaging/render.js';
import fp from 'fastify-plugin';
import { noticeContext } from '../lib/sealContexts.js';

/** Why a code was not sent, by key (flows/server-messages.json); an invalid number in the flow's words (spec §8), which the browser shows too. */
const UNDELIVERABLE = { optedOut: 'delivery.optedOut', smsRefused: 'delivery.smsRefused', emailRefused: 'delivery.emailRefused' } as const satisfies Record<
  Exclude<Undeliverable, 'invalidPhone'>,
  string
>;

/** Waits between the tries of a code while the driver waits: three tries in about 2.5 s. */
export const CODE_RETRY_DELAYS_MS = [500, 2_000];
/** A notice is tried again after 30 s, 1 min, 2 min, … at most an hour apart, for a day. */
const NOTICE_FIRST_RETRY_MS = 30_000;
const NOTICE_MAX_RETRY_MS = 60 * 60 * 1000;
const NOTICE_GIVE_UP_MS = 24 * 60 * 60 * 1000;
/** How often each server looks for notices that are due, and how long a claim keeps others off one. */
const DELIVERY_INTERVAL_MS = 5_000;
const CLAIM_MS = 2 * 60 * 1000;
/** How often a delivered notice's record is tried again while the database is away. */
const RECORD_RETRY_MS = 1_000;
/** Notices claimed at a time by one pass; a pass takes batch after batch until none is left. */
const DELIVERY_BATCH = 20;

export interface CodeMessage {
  channel: Channel;
  /** An email address or an E.164 phone number. */
  to: string;
  code: string;
  /** How long the code lasts, for the words. */
  minutes: number;
  /** The language of the words: the request's. */
  locale: Locale;
}

export interface Messaging {
  /** Delivers a one-time code now, or throws the answer the driver reads (400: the address; 503: try later). */
  sendCode(message: CodeMessage): Promise<void>;
  /**
   * Records a notice to a driver within `tx` (the transaction of what it tells): an email, and a
   * text message when the notice has words for one and the driver a verified phone. Answers the
   * channels it went by.
   */
  notify<N extends NoticeToDriver>(
    tx: Queryable,
    driverId: string,
    notice: N,
    values: Omit<NoticeValues<N>, 'signInUrl'>,
    options?: NotifyOptions,
  ): Promise<Channel[]>;
  /**
   * Records a notice to every staff member with a role, or to one staff member (`{ staffId }`), within `tx` (the transaction of
   * what it tells): an email, with the admin page's link.
   */
  notifyStaff<N extends NoticeToStaff>(tx: Queryable, to: StaffRole | { staffId: string }, notice: N, values: Omit<NoticeValues<N>, 'adminUrl'>): Promise<void>;
  /** Delivers the notices that are due; returns how many went. The background loop calls it, and tests. */
  deliverDue(): Promise<number>;
  /** The local outbox (GET /dev/outbox); null where real transports deliver. */
  outbox: LocalOutbox | null;
  /** The admin page's address, as staff notices link to it. */
  adminUrl: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    messaging: Messaging;
  }
}

export interface NotifyOptions {
  /** The email's own headers (a reminder's List-Unsubscribe). */
  emailHeaders?: Record<string, string>;
  /** A text message only to a driver who accepted text notifications at sign-up (a reminder is no answer to anything they did). */
  smsNeedsConsent?: boolean;
  /** Only by these channels (a link a staff member chose to send by text): all the notice has words for when absent. */
  channels?: readonly Channel[];
  /** The flow's step the notice is about (a reminder's), for the driver's timeline. */
  step?: string;
}

/** The notices to drivers (codes aside); their sign-in link is filled in here. */
export type NoticeToDriver = Exclude<NoticeName, 'emailCode' | 'phoneCode' | NoticeToStaff>;

/** Whom a notice is to: a driver or a staff member. */
type Recipient = { driverId: string } | { staffId: string };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Each provider's SDK is loaded only where it is configured: a local server never loads nodemailer or twilio. */
async function transportsOf(config: MessagingConfig, outbox: LocalOutbox | null): Promise<Record<Channel, Transport>> {
  return {
    email: config.email.kind === 'smtp' ? (await import('../messaging/smtpTransport.js')).createSmtpTransport(config.email.url, config.email.from) : outbox!,
    sms: config.sms.kind === 'twilio' ? (await import('../messaging/twilioTransport.js')).createTwilioTransport(config.sms) : outbox!,
  };
}

interface ClaimedNotice {
  id: string;
  driver_id: string | null;
  notice: NoticeName;
  channel: Channel;
  sealed: Uint8Array;
  attempts: number;
  created_at: Date;
}

export const messagingPlugin = fp<{ config: MessagingConfig; signInUrl: string; adminUrl: string; delivers: boolean }>(
  async (app, options) => {
    /** The notices' words in each language, read once. */
    const wordsByLocale = new Map<Locale, Notices>();
    const wordsIn = (locale: Locale): Notices => {
      let words = wordsByLocale.get(locale);
      if (!words) {
        words = loadNotices(locale);
        wordsByLocale.set(locale, words);
      }
      return words;
    };
    wordsIn(DEFAULT_LOCALE);
    const local = options.config.email.kind === 'local' || options.config.sms.kind === 'local';
    const outbox = local
      ? new LocalOutbox(app.now, (entry) =>
          app.log.info(
            { outbox: { channel: entry.channel, to: entry.to } },
            'code' in entry ? `Local outbox: ${entry.channel} code ${entry.code} for ${entry.to}` : `Local outbox: ${entry.notice} notice for ${entry.to}`,
          ),
        )
      : null;
    const transports = await transportsOf(options.config, outbox);

    async function sendCode({ channel, to, code, minutes, locale }: CodeMessage): Promise<void> {
      const rendered = renderNotice(wordsIn(locale)[channel === 'email' ? 'emailCode' : 'phoneCode'], { code, minutes: String(minutes) });
      const about = { code };
      const message: OutgoingMessage =
        channel === 'email'
          ? { channel, to, subject: rendered.email!.subject, text: rendered.email!.text, html: rendered.email!.html, about }
          : { channel, to, text: rendered.sms!.text, about };
      for (let attempt = 0; ; attempt++) {
        try {
          return await transports[channel].send(message);
        } catch (error) {
          if (!(error instanceof DeliveryError)) throw error;
          if (error.undeliverable) {
            app.log.warn({ channel, reason: error.undeliverable }, 'A code could not be delivered: the address was refused');
            const { undeliverable } = error;
            throw undeliverable === 'invalidPhone'
              ? app.httpErrors.badRequest(app.callReader.flowIn(locale).messages.invalidPhone)
              : refusal(400, UNDELIVERABLE[undeliverable]);
          }
          const delay = (options.config.codeRetryDelaysMs ?? CODE_RETRY_DELAYS_MS)[attempt];
          if (delay === undefined) {
            app.log.error({ channel, error: error.message }, 'A code could not be delivered after retries');
            throw refusal(503, 'delivery.notSent');
          }
          app.log.warn({ channel, error: error.message, attempt: attempt + 1 }, 'A code delivery failed; trying again');
          await sleep(delay);
        }
      }
    }

    async function notify<N extends NoticeToDriver>(
      tx: Queryable,
      driverId: string,
      notice: N,
      values: Omit<NoticeValues<N>, 'signInUrl'>,
      { emailHeaders, smsNeedsConsent = false, channels = ['email', 'sms'], step }: NotifyOptions = {},
    ): Promise<Channel[]> {
      const { rows } = await tx.query<{ email: string; phone: string | null; locale: string }>(
        `SELECT email, CASE WHEN phone_verified_at IS NOT NULL AND sms_opted_out_at IS NULL AND (NOT $2 OR sms_consent_at IS NOT NULL) THEN phone END AS phone, locale
         FROM drivers WHERE id = $1`,
        [driverId, smsNeedsConsent],
      );
      const driver = rows[0];
      if (!driver) return [];
      // In the language the driver last used the app in.
      const words = wordsIn(isLocale(driver.locale) ? driver.locale : DEFAULT_LOCALE);
      const rendered = renderNotice(words[notice], { ...values, signInUrl: options.signInUrl });
      const messages: Omit<OutgoingMessage, 'about'>[] = [];
      if (rendered.email && channels.includes('email'))
        messages.push({ channel: 'email', to: driver.email, ...rendered.email, ...(emailHeaders && { headers: emailHeaders }) });
      if (rendered.sms && driver.phone && channels.includes('sms')) messages.push({ channel: 'sms', to: driver.phone, ...rendered.sms });
      await queue(tx, { driverId }, notice, messages, step);
      return messages.map((message) => message.channel);
    }

    async function notifyStaff<N extends NoticeToStaff>(
      tx: Queryable,
      to: StaffRole | { staffId: string },
      notice: N,
      values: Omit<NoticeValues<N>, 'adminUrl'>,
    ) {
      const { rows } =
        typeof to === 'string'
          ? await tx.query<{ id: string; email: string }>('SELECT id, email FROM staff WHERE removed_at IS NULL AND $1 = ANY (roles)', [to])
          : await tx.query<{ id: string; email: string }>('SELECT id, email FROM staff WHERE removed_at IS NULL AND id = $1', [to.staffId]);
      const rendered = renderNotice(wordsIn(DEFAULT_LOCALE)[notice], { ...values, adminUrl: options.adminUrl });
      for (const person of rows) await queue(tx, { staffId: person.id }, notice, [{ channel: 'email', to: person.email, ...rendered.email! }]);
    }

    /** Writes a notice's messages to one recipient within `tx`, for the delivery pass. */
    async function queue(tx: Queryable, recipient: Recipient, notice: NoticeName, messages: Omit<OutgoingMessage, 'about'>[], step?: string) {
      const now = app.now();
      for (const message of messages) {
        // The address and the words (a rejection reason among them) are sealed, bound to the row.
        const id = randomUUID();
        await tx.query(
          `INSERT INTO outgoing_notices (id, driver_id, staff_id, notice, channel, sealed, next_attempt_at, created_at, step)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8)`,
          [
            id,
            'driverId' in recipient ? recipient.driverId : null,
            'staffId' in recipient ? recipient.staffId : null,
            notice,
            message.channel,
            app.cipher.encrypt(JSON.stringify(message), noticeContext(id)),
            now,
            step ?? null,
          ],
        );
      }
      // Soon after the caller commits; the loop below would find it anyway.
      if (options.delivers) delivery.soon();
    }

    /** A pass that fails (the database away) is logged; its notices wait for the next pass. */
    const passFailed = (error: unknown) => app.log.warn({ error: String(error) }, 'Notice delivery pass failed');
    const delivery = passSoon(app, () => deliverDue(), passFailed);

    let delivering: Promise<number> | null = null;
    let deliveringAgain: Promise<number> | null = null;
    /** Delivers every notice committed before the call: one pass at a time in this process (other servers are kept off each row by its claim). */
    function deliverDue(): Promise<number> {
      if (!delivering) {
        delivering = deliverClaimed().finally(() => (delivering = null));
        return delivering;
      }
      // The pass under way may have looked before the caller's notice was committed: one more after it, shared by every caller meanwhile.
      deliveringAgain ??= delivering
        // That pass's failure is its own callers' to log; this one runs either way.
        .catch(() => 0)
        .then(() => {
          deliveringAgain = null;
          return deliverDue();
        });
      return deliveringAgain;
    }

    /** Batch after batch until one comes short: every notice due when the call began is delivered, however many there are. */
    async function deliverClaimed(): Promise<number> {
      let sent = 0;
      for (;;) {
        const batch = await deliverBatch();
        sent += batch.sent;
        if (batch.claimed < DELIVERY_BATCH) return sent;
      }
    }

    async function deliverBatch(): Promise<{ claimed: number; sent: number }> {
      const now = app.now();
      const { rows } = await app.db.query<ClaimedNotice>(
        `UPDATE outgoing_notices SET claimed_until = $2, attempts = attempts + 1
       WHERE id IN (
         SELECT id FROM outgoing_notices
         WHERE status = 'pending' AND next_attempt_at <= $1 AND (claimed_until IS NULL OR claimed_until < $1)
         ORDER BY next_attempt_at LIMIT ${DELIVERY_BATCH} FOR UPDATE SKIP LOCKED)
       RETURNING id, driver_id, notice, channel, sealed, attempts, created_at`,
        [now, new Date(now.getTime() + CLAIM_MS)],
      );
      let sent = 0;
      for (const row of rows) {
        const message = {
          ...(JSON.parse(app.cipher.decrypt(row.sealed, noticeContext(row.id)).toString('utf8')) as OutgoingMessage),
          about: { notice: row.notice },
          messageKey: row.id,
        };
        try {
          await transports[row.channel].send(message);
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          const retryAt = new Date(app.now().getTime() + Math.min(NOTICE_MAX_RETRY_MS, NOTICE_FIRST_RETRY_MS * 2 ** (row.attempts - 1)));
          const givenUp =
            (error instanceof DeliveryError && error.undeliverable !== undefined) || retryAt.getTime() - new Date(row.created_at).getTime() > NOTICE_GIVE_UP_MS;
          await app.db.query('UPDATE outgoing_notices SET status = $2, next_attempt_at = $3, last_error = $4, claimed_until = NULL WHERE id = $1', [
            row.id,
            givenUp ? 'failed' : 'pending',
            retryAt,
            reason.slice(0, 500),
          ]);
          // The number replied STOP: honoured for every later notice, not only refused by Twilio each time.
          if (error instanceof DeliveryError && error.undeliverable === 'optedOut' && row.driver_id)
            await app.db.query('UPDATE drivers SET sms_opted_out_at = $2 WHERE id = $1 AND sms_opted_out_at IS NULL', [row.driver_id, app.now()]);
          app.metrics.noticeFailures.inc({ outcome: givenUp ? 'given_up' : 'retried' });
          if (givenUp) app.log.error({ notice: row.notice, channel: row.channel, error: reason }, 'A notice could not be delivered: given up');
          else app.log.warn({ notice: row.notice, channel: row.channel, error: reason }, 'A notice delivery failed; it will be tried again');
          continue;
        }
        await recordSent(row.id);
        sent += 1;
      }
      return { claimed: rows.length, sent };
    }

    /**
     * A delivered notice recorded as sent, the database's restart waited out: unrecorded, its claim
     * would run out and the driver would get it again.
     */
    async function recordSent(id: string) {
      const giveUpAt = performance.now() + CLAIM_MS / 2;
      for (;;) {
        try {
          await app.db.query("UPDATE outgoing_notices SET status = 'sent', sent_at = $2, claimed_until = NULL WHERE id = $1", [id, app.now()]);
          return;
        } catch (error) {
          if (!(error instanceof DatabaseUnavailable) || performance.now() > giveUpAt) throw error;
          await sleep(RECORD_RETRY_MS);
        }
      }
    }

    app.addHook('onClose', async () => {
      // Waited for, not reported again: each pass's failure was logged by whoever started it.
      await deliveringAgain?.catch(() => undefined);
      await delivering?.catch(() => undefined);
      for (const transport of new Set(Object.values(transports))) await transport.close?.();
    });
    if (options.delivers) everyInterval(app, { name: 'notice delivery', intervalMs: DELIVERY_INTERVAL_MS, run: deliverDue });

    const messaging: Messaging = { sendCode, notify, notifyStaff, deliverDue, outbox, adminUrl: options.adminUrl };
    app.decorate('messaging', messaging);
  },
  { name: 'onramp-messaging', decorators: { fastify: ['callReader', 'cipher', 'db', 'httpErrors', 'metrics', 'now'] } },
);
