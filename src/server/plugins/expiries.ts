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
  nextNoticeDay,
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

/** A document of a driver the pass looks at: one row per document the flow names, with their date if they gave one. */
interface Candidate {
  id: string;
  locale: string;
  state: string | null;
  /** Approved, or replacing an expiring document: only their documents are watched. */
  watched: boolean;
  /** The document's index in expiries.documents (1-based, as WITH ORDINALITY counts). */
  document: number;
  expires_on: string | null;
  sent: string[];
  /** When the pass was to look at them, as text: '-infinity' is no JavaScript date. */
  check_at: string;
}

/** The hours of a day, as the quiet hours count them. */
const HOURS = Array.from({ length: 24 }, (_, hour) => hour);

/**
 * The first hour out of the `quiet` hours from `hour` (0–24) on `day`, as a wall clock reads it
 * ("YYYY-MM-DDTHH:00"): when an expiry notice can go. Some hour of each day is out of them.
 */
export function awake(day: string, hour: number, quiet: { from: number; until: number }): string {
  const first = HOURS.find((each) => each >= hour && !isQuiet(each, quiet));
  return first === undefined ? awake(addDays(day, 1), 0, quiet) : `${day}T${String(first).padStart(2, '0')}:00`;
}

/** Drivers read at a time; a pass reads batch after batch of those it is to look at. */
const BATCH = 500;

/**
 * The drivers the pass is to look at by $1 (their progress row's expiry_check_at, migration 025),
 * after the one at ($2, $3) in that order, each with each document ($4 its step, $5 its date's
 * field, $6 its key), their state ($7's answer $8) and the notices sent about that date. Only these
 * drivers are read, by their index: a pass costs what is due, not how many drivers there are.
 */
const CANDIDATES_SQL = `
  WITH looked AS MATERIALIZED (
    SELECT p.driver_id, p.expiry_check_at FROM driver_progress p
    WHERE p.expiry_check_at <= $1 AND ($2::text IS NULL OR (p.expiry_check_at, p.driver_id) > ($2::timestamptz, $3::uuid))
    ORDER BY p.expiry_check_at, p.driver_id LIMIT ${BATCH}
  )
  SELECT d.id, d.locale, l.expiry_check_at::text AS check_at, d.status = 'approved' OR d.renewing AS watched,
    doc.document::int AS document, a.answers ->> doc.field AS expires_on,
    (SELECT s.answers ->> $8 FROM step_answers s WHERE s.driver_id = d.id AND s.step = $7) AS state,
    coalesce((SELECT array_agg(n.notice) FROM document_notices_sent n
      WHERE n.driver_id = d.id AND n.document = doc.key AND n.expires_on = a.answers ->> doc.field), '{}') AS sent
  FROM looked l JOIN drivers d ON d.id = l.driver_id
    CROSS JOIN unnest($4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS doc (step, field, key, document)
    LEFT JOIN step_answers a ON a.driver_id = d.id AND a.step = doc.step
  ORDER BY l.expiry_check_at, l.driver_id, doc.document`;

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

    /** Sends `candidate`'s notice `due` (and does what an expiry does), unless another server did or the document was replaced; whether this one did. */
    async function send(candidate: Candidate & { expires_on: string }, due: { notice: string; earlier: string[] }, now: Date): Promise<boolean> {
      const document = expiries.documents[candidate.document - 1]!;
      const locale = isLocale(candidate.locale) ? candidate.locale : DEFAULT_LOCALE;
      const words = expiriesIn(locale);
      const expiresOn = dayInWords(candidate.expires_on, locale);
      return app.db.transaction(async (tx) => {
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
    }

    async function noticeDueNow(): Promise<number> {
      if (expiries.documents.length === 0) return 0;
      const now = app.now();
      let sent = 0;
      let after: Candidate | undefined;
      for (;;) {
        const { rows } = await app.db.query<Candidate>(CANDIDATES_SQL, [
          now,
          after?.check_at ?? null,
          after?.id ?? null,
          expiries.documents.map((document) => document.step),
          expiries.documents.map((document) => document.date),
          expiries.documents.map(documentKey),
          reminders.stateAnswer.step,
          reminders.stateAnswer.field,
        ]);
        /**
         * When to look at each driver looked at again, as the wall-clock hour in their zone (null: not
         * until they change something), unless they changed something meanwhile.
         */
        const looked = new Map<string, { at: string | null; zone: string; seen: string }>();
        for (const candidate of rows) {
          const zone = zoneOfState(candidate.state);
          if (!looked.has(candidate.id)) looked.set(candidate.id, { at: null, zone, seen: candidate.check_at });
          const earliest = looked.get(candidate.id)!;
          if (!candidate.watched || candidate.expires_on === null) continue;
          const days = daysUntil(candidate.expires_on, dayIn(zone, now));
          if (days === null) continue;
          const due = noticeDue(days, expiries.daysBefore);
          let told = candidate.sent;
          if (due && !told.includes(due.notice)) {
            // In the driver's quiet hours the notice waits: the pass looks again when they end.
            const hour = hourIn(zone, now);
            if (isQuiet(hour, reminders.quietHours)) {
              const at = awake(dayIn(zone, now), hour + 1, reminders.quietHours);
              if (earliest.at === null || at < earliest.at) earliest.at = at;
              continue;
            }
            if (await send({ ...candidate, expires_on: candidate.expires_on }, due, now)) sent += 1;
            told = [...told, ...due.earlier, due.notice];
          }
          // The first hour the next notice can go: its day's first hour out of the quiet hours, in the driver's zone.
          const next = nextNoticeDay(candidate.expires_on, expiries.daysBefore, told);
          const at = next && awake(next, 0, reminders.quietHours);
          if (at && (earliest.at === null || at < earliest.at)) earliest.at = at;
        }
        // Each wall-clock hour becomes its instant in the driver's zone in PostgreSQL, which knows each zone's offsets on each day.
        const again = [...looked];
        await app.db.query(
          `UPDATE driver_progress p SET expiry_check_at = looked.at::timestamp AT TIME ZONE looked.zone
           FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) AS looked (id, at, zone, seen)
           WHERE p.driver_id = looked.id AND p.expiry_check_at = looked.seen::timestamptz`,
          [again.map(([id]) => id), again.map(([, each]) => each.at), again.map(([, each]) => each.zone), again.map(([, each]) => each.seen)],
        );
        if (looked.size < BATCH) return sent;
        after = rows[rows.length - 1];
      }
    }

    everyInterval(app, { name: 'document expiries', intervalMs: EXPIRY_INTERVAL_MS, run: noticeDueNow });
    app.decorate('expiries', { noticeDue: noticeDueNow } satisfies DocumentExpiries);
  },
  { name: 'onramp-expiries', decorators: { fastify: ['db', 'messaging', 'now'] } },
);
