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
 * - None is sent to a driver whose reminders a staff member paused (they resume them), one who
 *   unsubscribed, or one rejected.
 * - A staff member may send one now (remindNow, from the Drivers list): by the same rules, refused
 *   with the reason when it can't go, and counted as the reminder due, so the pass does not send
 *   that one again.
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
import { funnelSteps, type FunnelStep } from '../lib/insights.js';
import { zoneOfState } from '../lib/stateZones.js';
import type { Queryable } from '../db/db.js';
import { refusal } from '../serverMessages.js';

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
  /** Sends the driver a reminder of where they stopped now, or throws why it can't go (a staff refusal). */
  remindNow(driverId: string): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    reminders: Reminders;
  }
}

interface Candidate {
  id: string;
  locale: string;
  status: string;
  stopped: boolean;
  paused: boolean;
  state: string | null;
  /** The first step of the funnel the driver has not passed, by its index. */
  next: number;
  last_progress: Date;
  signed_up_at: Date;
  sent: string[];
}

/**
 * The drivers who may be due a reminder: signed up since $4, no progress since $5, not rejected,
 * reminders neither stopped nor paused, and their next step (the first of the funnel they have
 * not passed) one of $6 (indexes in the funnel, whose names in progress_steps are $3, in order).
 * One pass over driver_progress by its sign-up index; only these drivers' answers and reminders
 * are read. For `one` driver ($4), that driver whatever they are.
 */
function candidatesSql(funnelLength: number, which: 'due' | 'one'): string {
  const times = Array.from({ length: funnelLength }, (_, index) => `t${index}`);
  return `
  WITH progress AS MATERIALIZED (
    SELECT p.driver_id, p.signed_up_at${times.map((time, index) => `, p.passed[(SELECT s.id FROM progress_steps s WHERE s.step = ($3::text[])[${index + 1}])] AS ${time}`).join('')}
    FROM driver_progress p WHERE ${which === 'due' ? 'p.signed_up_at >= $4 AND p.signed_up_at <= $5' : 'p.driver_id = $4'}
  ),
  waiting AS (
    SELECT driver_id, signed_up_at, CASE ${times.map((time, index) => `WHEN ${time} IS NULL THEN ${index}`).join(' ')} END AS next,
      signed_up_at + greatest(${times.join(', ')}) * interval '1 second' AS last_progress
    FROM progress
  )
  SELECT d.id, d.locale, d.status, d.reminders_stopped_at IS NOT NULL AS stopped, d.reminders_paused_at IS NOT NULL AS paused,
    w.next, w.last_progress, w.signed_up_at,
    (SELECT a.answers ->> $2 FROM step_answers a WHERE a.driver_id = d.id AND a.step = $1) AS state,
    coalesce((SELECT array_agg(r.step || ':' || r.reminder) FROM reminders_sent r WHERE r.driver_id = d.id), '{}') AS sent
  FROM waiting w JOIN drivers d ON d.id = w.driver_id
  ${
    which === 'due'
      ? `WHERE w.next = ANY ($6::int[]) AND w.last_progress <= $5 AND d.reminders_stopped_at IS NULL AND d.reminders_paused_at IS NULL
         AND d.status <> 'rejected'`
      : ''
  }`;
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
  /** Rejected, asked for no more reminders, or paused by staff: none is sent. */
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
      const { rows } = await app.db.query<Candidate>(candidatesSql(funnel.length, 'due'), [
        ...stateAndSteps(funnel),
        new Date(now.getTime() - REMINDED_FOR_DAYS * DAY_MS),
        new Date(now.getTime() - firstDelay),
        funnel.flatMap((step, index) => (schedule.steps.includes(step.step) ? [index] : [])),
      ]);
      let reminded = 0;
      for (const driver of rows) {
        const due = dueOf(driver, funnel, now);
        if (due === undefined) continue;
        if (isQuiet(hourIn(zoneOfState(driver.state), now), schedule.quietHours)) continue;
        const won = await app.db.transaction(async (tx) => {
          const claimed = await claim(tx, driver.id, funnel[driver.next]!.step, due, now);
          // Another server sent this one (its row came first): nothing more here.
          if (!claimed.includes(due)) return false;
          await send(tx, driver, funnel[driver.next]!.step);
          return true;
        });
        if (won) reminded += 1;
      }
      return reminded;
    }

    /** The reminders' query's first values: the state answer, and the funnel's steps as progress_steps names them. */
    const stateAndSteps = (funnel: FunnelStep[]) => [schedule.stateAnswer.step, schedule.stateAnswer.field, funnel.map((step) => step.recordedAs)];

    /** The latest reminder due to the driver now, if not sent; those before it that never went (the servers were down) are skipped, not sent late. */
    const dueOf = (driver: Candidate, funnel: FunnelStep[], now: Date) =>
      remindersAhead(
        schedule,
        { next: funnel[driver.next]!.step, lastProgress: driver.last_progress, signedUpAt: driver.signed_up_at, sent: driver.sent, excluded: false },
        now,
      ).find((ahead) => ahead.at <= now)?.reminder;

    /** Records the reminders up to `due` as sent within `tx`; answers those this call wrote (another server may have written some first). */
    async function claim(tx: Queryable, driverId: string, step: string, due: number, now: Date): Promise<number[]> {
      const { rows } = await tx.query<{ reminder: number }>(
        `INSERT INTO reminders_sent (driver_id, step, reminder, sent_at)
         SELECT $1, $2, index, $4 FROM generate_series(0, $3::int) AS index
         ON CONFLICT DO NOTHING RETURNING reminder`,
        [driverId, step, due, now],
      );
      return rows.map((row) => row.reminder);
    }

    /** Records the reminder of `step` to the driver within `tx`, in their language. */
    async function send(tx: Queryable, driver: Candidate, step: string) {
      const locale = isLocale(driver.locale) ? driver.locale : DEFAULT_LOCALE;
      const stepName = app.callReader.flowIn(locale).steps[step]?.journey ?? step;
      const url = unsubscribeUrl(driver.id);
      await app.messaging.notify(
        tx,
        driver.id,
        'reminder',
        { step: stepName, unsubscribeUrl: url },
        { emailHeaders: { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' }, smsNeedsConsent: true, step },
      );
    }

    async function remindNow(driverId: string): Promise<void> {
      const now = app.now();
      const funnel = funnelSteps(app.callReader.flow);
      const { rows } = await app.db.query<Candidate>(candidatesSql(funnel.length, 'one'), [...stateAndSteps(funnel), driverId]);
      const driver = rows[0];
      if (!driver) throw refusal(404, 'staff.unknownDriver');
      if (driver.stopped) throw refusal(409, 'staff.remindUnsubscribed');
      if (driver.paused) throw refusal(409, 'staff.remindPaused');
      if (driver.status === 'rejected') throw refusal(409, 'staff.remindRejected');
      const step = funnel[driver.next]?.step;
      if (step === undefined || !schedule.steps.includes(step)) throw refusal(409, 'staff.remindNoStep');
      const zone = zoneOfState(driver.state);
      if (isQuiet(hourIn(zone, now), schedule.quietHours)) {
        const hour = (h: number) => `${String(h).padStart(2, '0')}:00`;
        throw refusal(409, 'staff.remindQuietHours', { from: hour(schedule.quietHours.from), until: hour(schedule.quietHours.until), zone });
      }
      const { rows: recent } = await app.db.query("SELECT FROM outgoing_notices WHERE driver_id = $1 AND notice = 'reminder' AND created_at > $2 LIMIT 1", [
        driver.id,
        new Date(now.getTime() - HOUR_MS),
      ]);
      if (recent.length > 0) throw refusal(409, 'staff.remindedRecently');
      const due = dueOf(driver, funnel, now);
      await app.db.transaction(async (tx) => {
        // Counted as the reminder due now, if one is: the pass does not send it again.
        if (due !== undefined) await claim(tx, driver.id, step, due, now);
        await send(tx, driver, step);
      });
    }

    everyInterval(app, { name: 'reminders', intervalMs: REMINDER_INTERVAL_MS, run: remindDue });
    app.decorate('reminders', { remindDue, unsubscribeUrl, remindNow } satisfies Reminders);
  },
  { name: 'onramp-reminders', decorators: { fastify: ['callReader', 'cipher', 'db', 'messaging', 'now'] } },
);
