/**
 * Reminders: a driver who stopped part-way through signing up is reminded, by email
 * and, if they accepted text notifications at sign-up, by text message, after each delay of
 * flows/notices.json's "reminders" without progress (then never again), in their language, with
 * the words of its "reminder". Every server runs the pass each minute; each reminder is sent once
 * however many run: its row in reminders_sent (primary key: driver, step, reminder) is written in
 * the transaction that records the notice, so one instance alone wins it, and the notice is then
 * delivered like any other (plugins/messaging.ts: in the background, retried, never lost).
 *
 * - Where they stopped is the first step of the funnel (lib/insights.ts: the flow's steps in its
 *   order) they have not passed; only the steps the data lists are reminded of.
 * - None is sent during the quiet hours in the time zone of the driver's state (the answer the
 *   data's stateAnswer names; Eastern time before they gave one): it waits for the morning.
 * - The link is the sign-in page, as in every notice: it brings the driver back to where they
 *   stopped once they sign in, and gives whoever else reads the message nothing (no session, no
 *   token). The email's unsubscribe link (and its List-Unsubscribe header, RFC 8058 one-click)
 *   is signed for the driver and can only stop their reminders.
 */
import fp from 'fastify-plugin';
import { DEFAULT_LOCALE, isLocale } from '../../shared/locales.js';
import { loadNotices } from '../../node/projectFiles.js';
import { everyInterval } from '../lib/backgroundPass.js';
import { funnelSteps } from '../lib/insights.js';
import { zoneOfState } from '../lib/stateZones.js';

/** How often each server looks for reminders that are due. */
const REMINDER_INTERVAL_MS = 60_000;
/** Drivers who signed up longer ago than this are not reminded any more. */
const REMINDED_FOR_DAYS = 90;
const HOUR_MS = 3600 * 1000;
const DAY_MS = 24 * HOUR_MS;
/** The path of the one-step unsubscribe, under the public address. */
export const UNSUBSCRIBE_PATH = '/reminders/unsubscribe';
/** What the unsubscribe signature is a keyed hash of, besides the driver. */
export const UNSUBSCRIBE_CONTEXT = 'reminders-unsubscribe';

export interface Reminders {
  /** Records the reminders that are due (their notices go out with the others); returns how many. The loop calls it, and tests. */
  remindDue(): Promise<number>;
  /** The signed link that stops a driver's reminders. */
  unsubscribeUrl(driverId: string): string;
}

declare module 'fastify' {
  interface FastifyInstance {
    reminders: Reminders;
  }
}

interface Candidate {
  id: string;
  locale: string;
  state: string | null;
  /** The first step of the funnel the driver has not passed, by its index (null: they passed them all). */
  next: number | null;
  last_progress: Date;
  signed_up_at: Date;
  sent: string[];
  /** Rejected, or asked for no more reminders. */
  excluded: boolean;
  /** When the pass was to look at them, as text: '-infinity' is no JavaScript date. */
  check_at: string;
}

/** Drivers read at a time; a pass reads batch after batch of those it is to look at. */
const BATCH = 500;

/**
 * The drivers the pass is to look at by $1 (their progress row's remind_check_at, migration 025),
 * after the one at ($2, $3) in that order: where they are (the first step of the funnel they have
 * not passed, whose names in progress_steps are $6, $7… in order) and since when, their state ($4's
 * answer $5), what they were sent, and whether they are excluded. Only these drivers are read, by
 * their index: a pass costs what is due, not how many drivers there are.
 */
function candidatesSql(funnelLength: number): string {
  const times = Array.from({ length: funnelLength }, (_, index) => `t${index}`);
  return `
  WITH progress AS MATERIALIZED (
    SELECT p.driver_id, p.signed_up_at, p.remind_check_at${times.map((time, index) => `, p.passed[(SELECT s.id FROM progress_steps s WHERE s.step = $${6 + index})] AS ${time}`).join('')}
    FROM driver_progress p
    WHERE p.remind_check_at <= $1 AND ($2::text IS NULL OR (p.remind_check_at, p.driver_id) > ($2::timestamptz, $3::uuid))
    ORDER BY p.remind_check_at, p.driver_id LIMIT ${BATCH}
  )
  SELECT d.id, d.locale, w.signed_up_at, w.remind_check_at::text AS check_at,
    CASE ${times.map((time, index) => `WHEN ${time} IS NULL THEN ${index}`).join(' ')} END AS next,
    w.signed_up_at + greatest(${times.join(', ')}) * interval '1 second' AS last_progress,
    d.reminders_stopped_at IS NOT NULL OR d.status = 'rejected' AS excluded,
    (SELECT a.answers ->> $5 FROM step_answers a WHERE a.driver_id = d.id AND a.step = $4) AS state,
    coalesce((SELECT array_agg(r.step || ':' || r.reminder) FROM reminders_sent r WHERE r.driver_id = d.id), '{}') AS sent
  FROM progress w JOIN drivers d ON d.id = w.driver_id
  ORDER BY w.remind_check_at, w.driver_id`;
}

/** What the reminders are given by flows/notices.json. */
type Schedule = ReturnType<typeof loadNotices>['reminders'];

/** When each of the schedule's reminders falls due for a driver whose last progress was at `lastProgress`. */
export const reminderTimes = (schedule: Schedule, lastProgress: Date): Date[] =>
  schedule.afterHours.map((hours) => new Date(lastProgress.getTime() + hours * HOUR_MS));

/** A driver as the reminders see them: where they are (the funnel's step they have not passed), since when, and what they were sent. */
export interface ReminderDriver {
  next: string;
  lastProgress: Date;
  signedUpAt: Date;
  /** "step:reminder" for each reminder sent (reminders_sent). */
  sent: readonly string[];
  /** Rejected, or asked for no more reminders: none is sent. */
  excluded: boolean;
}

/**
 * The reminders still to be sent to a driver, and when each falls due (the pass waits for the end of
 * the quiet hours): the latest one due now and those after it, unless sent; one due later than
 * REMINDED_FOR_DAYS after sign-up is never sent. Earlier ones that never went are skipped, not sent late.
 */
export function remindersAhead(schedule: Schedule, driver: ReminderDriver, now: Date): { reminder: number; at: Date }[] {
  if (driver.excluded || !schedule.steps.includes(driver.next)) return [];
  const times = reminderTimes(schedule, driver.lastProgress);
  const latestDue = times.findLastIndex((at) => at <= now);
  const ends = driver.signedUpAt.getTime() + REMINDED_FOR_DAYS * DAY_MS;
  return times.flatMap((at, reminder) =>
    reminder >= latestDue && at.getTime() < ends && !driver.sent.includes(`${driver.next}:${reminder}`) ? [{ reminder, at }] : [],
  );
}

/** The hour (0–23) it is at `at` in `zone`. */
export const hourIn = (zone: string, at: Date) => Number(new Intl.DateTimeFormat('en-US', { timeZone: zone, hour: 'numeric', hourCycle: 'h23' }).format(at));

export function isQuiet(hour: number, quiet: { from: number; until: number }): boolean {
  return quiet.from > quiet.until ? hour >= quiet.from || hour < quiet.until : hour >= quiet.from && hour < quiet.until;
}

export const remindersPlugin = fp<{ publicOrigin: string }>(
  async (app, options) => {
    const schedule = loadNotices().reminders;
    const unsubscribeUrl = (driverId: string) =>
      `${options.publicOrigin}${UNSUBSCRIBE_PATH}?${new URLSearchParams({ driver: driverId, signature: app.cipher.fingerprint(driverId, UNSUBSCRIBE_CONTEXT) })}`;

    /** Sends the reminder due to `driver`, unless another server did; whether this one did. */
    async function send(driver: Candidate, step: string, due: number, now: Date): Promise<boolean> {
      const locale = isLocale(driver.locale) ? driver.locale : DEFAULT_LOCALE;
      const stepName = app.callReader.flowIn(locale).steps[step]?.journey ?? step;
      return app.db.transaction(async (tx) => {
        const { rows: claimed } = await tx.query(
          `INSERT INTO reminders_sent (driver_id, step, reminder, sent_at)
           SELECT $1, $2, index, $4 FROM generate_series(0, $3::int) AS index
           ON CONFLICT DO NOTHING RETURNING reminder`,
          [driver.id, step, due, now],
        );
        // Another server sent this one (its row came first): nothing more here.
        if (!claimed.some((row) => row.reminder === due)) return false;
        const url = unsubscribeUrl(driver.id);
        await app.messaging.notify(
          tx,
          driver.id,
          'reminder',
          { step: stepName, unsubscribeUrl: url },
          { emailHeaders: { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' }, smsNeedsConsent: true },
        );
        return true;
      });
    }

    async function remindDue(): Promise<number> {
      if (schedule.afterHours.length === 0 || schedule.steps.length === 0) return 0;
      const now = app.now();
      const funnel = funnelSteps(app.callReader.flow);
      let reminded = 0;
      let after: Candidate | undefined;
      for (;;) {
        const { rows } = await app.db.query<Candidate>(candidatesSql(funnel.length), [
          now,
          after?.check_at ?? null,
          after?.id ?? null,
          schedule.stateAnswer.step,
          schedule.stateAnswer.field,
          ...funnel.map((step) => step.recordedAs),
        ]);
        /** When to look at each driver looked at again (null: not until they change something), unless they changed something meanwhile. */
        const looked: { id: string; at: string | null; seen: string }[] = [];
        for (const driver of rows) {
          const next = driver.next === null ? undefined : funnel[driver.next];
          const ahead = next
            ? remindersAhead(
                schedule,
                { next: next.step, lastProgress: driver.last_progress, signedUpAt: driver.signed_up_at, sent: driver.sent, excluded: driver.excluded },
                now,
              )
            : [];
          // The latest reminder due, if not sent; those before it that never went (the servers were down) are skipped, not sent late.
          const due = ahead.find((reminder) => reminder.at <= now)?.reminder;
          // In the driver's quiet hours the reminder waits: the next pass looks again.
          if (due !== undefined && isQuiet(hourIn(zoneOfState(driver.state), now), schedule.quietHours)) continue;
          if (due !== undefined && (await send(driver, next!.step, due, now))) reminded += 1;
          looked.push({ id: driver.id, at: ahead.find((reminder) => reminder.at > now)?.at.toISOString() ?? null, seen: driver.check_at });
        }
        await app.db.query(
          `UPDATE driver_progress p SET remind_check_at = looked.at
           FROM unnest($1::uuid[], $2::timestamptz[], $3::text[]) AS looked (id, at, seen)
           WHERE p.driver_id = looked.id AND p.remind_check_at = looked.seen::timestamptz`,
          [looked.map((each) => each.id), looked.map((each) => each.at), looked.map((each) => each.seen)],
        );
        if (rows.length < BATCH) return reminded;
        after = rows[rows.length - 1];
      }
    }

    everyInterval(app, { name: 'reminders', intervalMs: REMINDER_INTERVAL_MS, run: remindDue });
    app.decorate('reminders', { remindDue, unsubscribeUrl } satisfies Reminders);
  },
  { name: 'onramp-reminders', decorators: { fastify: ['callReader', 'cipher', 'db', 'messaging', 'now'] } },
);
