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
  /** The first step of the funnel the driver has not passed, by its index. */
  next: number;
  last_progress: Date;
  signed_up_at: Date;
  sent: string[];
}

/**
 * The drivers who may be due a reminder: signed up since $1, no progress since $4, not rejected,
 * reminders not stopped, and their next step (the first of the funnel they have not passed) one of
 * $5 (indexes in the funnel, whose names in progress_steps are $6, $7… in order). One pass over driver_progress
 * by its sign-up index; only these drivers' answers and reminders are read.
 */
function candidatesSql(funnelLength: number): string {
  const times = Array.from({ length: funnelLength }, (_, index) => `t${index}`);
  return `
  WITH progress AS MATERIALIZED (
    SELECT p.driver_id, p.signed_up_at${times.map((time, index) => `, p.passed[(SELECT s.id FROM progress_steps s WHERE s.step = $${6 + index})] AS ${time}`).join('')}
    FROM driver_progress p WHERE p.signed_up_at >= $1 AND p.signed_up_at <= $4
  ),
  waiting AS (
    SELECT driver_id, signed_up_at, CASE ${times.map((time, index) => `WHEN ${time} IS NULL THEN ${index}`).join(' ')} END AS next,
      signed_up_at + greatest(${times.join(', ')}) * interval '1 second' AS last_progress
    FROM progress
  )
  SELECT d.id, d.locale, w.next, w.last_progress, w.signed_up_at,
    (SELECT a.answers ->> $3 FROM step_answers a WHERE a.driver_id = d.id AND a.step = $2) AS state,
    coalesce((SELECT array_agg(r.step || ':' || r.reminder) FROM reminders_sent r WHERE r.driver_id = d.id), '{}') AS sent
  FROM waiting w JOIN drivers d ON d.id = w.driver_id
  WHERE w.next = ANY ($5::int[]) AND w.last_progress <= $4 AND d.reminders_stopped_at IS NULL AND d.status <> 'rejected'`;
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

    async function remindDue(): Promise<number> {
      if (schedule.afterHours.length === 0 || schedule.steps.length === 0) return 0;
      const now = app.now();
      const funnel = funnelSteps(app.callReader.flow);
      const firstDelay = schedule.afterHours[0]! * HOUR_MS;
      const { rows } = await app.db.query<Candidate>(candidatesSql(funnel.length), [
        new Date(now.getTime() - REMINDED_FOR_DAYS * DAY_MS),
        schedule.stateAnswer.step,
        schedule.stateAnswer.field,
        new Date(now.getTime() - firstDelay),
        funnel.flatMap((step, index) => (schedule.steps.includes(step.step) ? [index] : [])),
        ...funnel.map((step) => step.recordedAs),
      ]);
      let reminded = 0;
      for (const driver of rows) {
        const next = funnel[driver.next]!;
        // The latest reminder due, if not sent; those before it that never went (the servers were down) are skipped, not sent late.
        const due = remindersAhead(
          schedule,
          { next: next.step, lastProgress: driver.last_progress, signedUpAt: driver.signed_up_at, sent: driver.sent, excluded: false },
          now,
        ).find((ahead) => ahead.at <= now)?.reminder;
        if (due === undefined) continue;
        if (isQuiet(hourIn(zoneOfState(driver.state), now), schedule.quietHours)) continue;
        const locale = isLocale(driver.locale) ? driver.locale : DEFAULT_LOCALE;
        const stepName = app.callReader.flowIn(locale).steps[next.step]?.journey ?? next.step;
        const won = await app.db.transaction(async (tx) => {
          const { rows: claimed } = await tx.query(
            `INSERT INTO reminders_sent (driver_id, step, reminder, sent_at)
             SELECT $1, $2, index, $4 FROM generate_series(0, $3::int) AS index
             ON CONFLICT DO NOTHING RETURNING reminder`,
            [driver.id, next.step, due, now],
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
        if (won) reminded += 1;
      }
      return reminded;
    }

    everyInterval(app, { name: 'reminders', intervalMs: REMINDER_INTERVAL_MS, run: remindDue });
    app.decorate('reminders', { remindDue, unsubscribeUrl } satisfies Reminders);
  },
  { name: 'onramp-reminders', decorators: { fastify: ['callReader', 'cipher', 'db', 'messaging', 'now'] } },
);
