/**
 * Documents that expire: an approved driver is told, by email and, if they accepted
 * text notifications at sign-up, by text message, on each of flows/notices.json's
 * expiries.daysBefore before a document's date (documentExpiring), and once it has passed
 * unreplaced (documentExpired), when expiries.whenExpired says what else happens: "askFix" sends
 * the driver back to fix that document (a fix on its date and files, the status rejected; the
 * review queue shows the document expired), "notify" only tells them. The day is the driver's
 * day, in their state's time zone, and nothing goes out during the reminders' quiet hours.
 *
 * Every server runs the pass; each notice is sent once however many run: its row in
 * document_notices_sent (driver, document, date, notice) is written in the transaction that
 * records the notice, so one instance alone wins it, and the notice is then delivered like any
 * other (plugins/messaging.ts). A document replaced with a new date is told about again.
 */
import fp from 'fastify-plugin';
import { DEFAULT_LOCALE, isLocale, type Locale } from '../../shared/locales.js';
import { loadNotices } from '../../node/projectFiles.js';
import { FIX_REASON_VALUE } from '../../shared/notices.js';
import { fillPlaceholders } from '../../shared/placeholders.js';
import {
  addDays,
  dayIn,
  dayInWords,
  daysUntil,
  documentFields,
  documentKey,
  EXPIRED_NOTICE,
  noticeDue,
  renewalWindowDays,
  type Expiries,
  type ExpiringDocument,
} from '../lib/expiries.js';
import type { Queryable } from '../db/db.js';
import { zoneOfState } from '../lib/stateZones.js';
import { everyInterval } from '../lib/backgroundPass.js';
import { hourIn, isQuiet } from './reminders.js';

/** How often each server looks for expiry notices that are due: the dates are days, the quiet hours hours. */
const EXPIRY_INTERVAL_MS = 10 * 60_000;

export interface DocumentExpiries {
  /** Records the expiry notices that are due (and what an expiry does); returns how many. The loop calls it, and tests. */
  noticeDue(): Promise<number>;
}

declare module 'fastify' {
  interface FastifyInstance {
    expiries: DocumentExpiries;
  }
}

interface Candidate {
  id: string;
  locale: string;
  state: string | null;
  /** The document's index in expiries.documents (1-based, as WITH ORDINALITY counts). */
  document: number;
  expires_on: string;
  sent: string[];
}

export const expiriesPlugin = fp(
  async (app) => {
    const { expiries, reminders } = loadNotices();
    /** The documents' names and the fix's words in each language, read once. */
    const translated = new Map<Locale, Expiries>([[DEFAULT_LOCALE, expiries]]);
    const expiriesIn = (locale: Locale): Expiries => {
      let words = translated.get(locale);
      if (!words) {
        words = loadNotices(locale).expiries;
        translated.set(locale, words);
      }
      return words;
    };

    /**
     * An expired document sends the driver back to fix it: a fix on its date and files, the
     * driver rejected (a decision on what the reviewer saw before is refused: the version moves
     * on). A driver in review keeps their place: the reviewer sees the document expired.
     */
    async function askFix(tx: Queryable, driverId: string, document: ExpiringDocument, reason: string, now: Date): Promise<boolean> {
      const { rows } = await tx.query(
        `UPDATE drivers SET status = 'rejected', rejection_reason = NULL, renewing = true, review_version = review_version + 1, updated_at = $2
         WHERE id = $1 AND status <> 'pending' RETURNING id`,
        [driverId, now],
      );
      if (rows.length === 0) return false;
      for (const field of documentFields(document)) {
        await tx.query(
          `INSERT INTO review_fixes (driver_id, step, field, reason) VALUES ($1, $2, $3, $4)
           ON CONFLICT (driver_id, step, field) DO UPDATE SET reason = EXCLUDED.reason`,
          [driverId, document.step, field, reason],
        );
      }
      await app.webhooks.emit(tx, driverId, 'driver.fix.asked', {
        by: 'expiry',
        fixes: documentFields(document).map((field) => ({ step: document.step, field })),
      });
      return true;
    }

    async function noticeDueNow(): Promise<number> {
      if (expiries.documents.length === 0) return 0;
      const now = app.now();
      // Every driver's day is within a day of UTC's: the pass reads the dates up to the window's end from there.
      const horizon = addDays(now.toISOString().slice(0, 10), renewalWindowDays(expiries) + 1);
      const { rows } = await app.db.query<Candidate>(
        `SELECT d.id, d.locale, doc.document::int AS document, a.answers ->> doc.field AS expires_on,
           (SELECT s.answers ->> $4 FROM step_answers s WHERE s.driver_id = d.id AND s.step = $3) AS state,
           coalesce((SELECT array_agg(n.notice) FROM document_notices_sent n
             WHERE n.driver_id = d.id AND n.document = doc.key AND n.expires_on = a.answers ->> doc.field), '{}') AS sent
         FROM unnest($1::text[], $2::text[], $6::text[]) WITH ORDINALITY AS doc (step, field, key, document)
         JOIN step_answers a ON a.step = doc.step
         JOIN drivers d ON d.id = a.driver_id
         WHERE (d.status = 'approved' OR d.renewing) AND a.answers ->> doc.field <= $5`,
        [
          expiries.documents.map((document) => document.step),
          expiries.documents.map((document) => document.date),
          reminders.stateAnswer.step,
          reminders.stateAnswer.field,
          horizon,
          expiries.documents.map(documentKey),
        ],
      );
      let sent = 0;
      for (const candidate of rows) {
        const document = expiries.documents[candidate.document - 1]!;
        const zone = zoneOfState(candidate.state);
        const days = daysUntil(candidate.expires_on, dayIn(zone, now));
        const due = days === null ? null : noticeDue(days, expiries.daysBefore);
        if (!due || candidate.sent.includes(due.notice)) continue;
        if (isQuiet(hourIn(zone, now), reminders.quietHours)) continue;
        const locale = isLocale(candidate.locale) ? candidate.locale : DEFAULT_LOCALE;
        const words = expiriesIn(locale);
        const expiresOn = dayInWords(candidate.expires_on, locale);
        const won = await app.db.transaction(async (tx) => {
          const { rows: claimed } = await tx.query<{ notice: string }>(
            `INSERT INTO document_notices_sent (driver_id, document, expires_on, notice, sent_at)
             SELECT $1, $2, $3, notice, $5 FROM unnest($4::text[]) AS notice
             WHERE EXISTS (SELECT 1 FROM step_answers a WHERE a.driver_id = $1 AND a.step = $6 AND a.answers ->> $7 = $3)
             ON CONFLICT DO NOTHING RETURNING notice`,
            [candidate.id, documentKey(document), candidate.expires_on, [...due.earlier, due.notice], now, document.step, document.date],
          );
          // Another server sent this one (its row came first), or the driver replaced the document meanwhile: nothing more here.
          if (!claimed.some((row) => row.notice === due.notice)) return false;
          const values = { document: words.documents[candidate.document - 1]!.name, expiresOn };
          const told = { step: document.step, document: document.date, expiresOn: candidate.expires_on };
          if (due.notice !== EXPIRED_NOTICE) {
            await app.webhooks.emit(tx, candidate.id, 'document.expiring', told);
            await app.messaging.notify(tx, candidate.id, 'documentExpiring', values, { smsNeedsConsent: true });
            return true;
          }
          const fixAsked =
            expiries.whenExpired === 'askFix' &&
            (await askFix(tx, candidate.id, document, fillPlaceholders(words.fixReason, { [FIX_REASON_VALUE]: expiresOn }), now));
          await app.webhooks.emit(tx, candidate.id, 'document.expired', { ...told, fixAsked });
          await app.messaging.notify(tx, candidate.id, 'documentExpired', values, { smsNeedsConsent: true });
          return true;
        });
        if (won) sent += 1;
      }
      return sent;
    }

    everyInterval(app, { name: 'document expiries', intervalMs: EXPIRY_INTERVAL_MS, run: noticeDueNow });
    app.decorate('expiries', { noticeDue: noticeDueNow } satisfies DocumentExpiries);
  },
  { name: 'onramp-expiries', decorators: { fastify: ['db', 'messaging', 'now'] } },
);
