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
import { stageOf } from '../../shared/flow.js';
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
  /** The first step of the funnel the driver has not passed, by its index (null: they passed them all). */
  next: number | null;
  last_progress: Date;
  signed_up_at: Date;
  sent: string[];
  /** Rejected, asked for no more reminders, or paused by staff. */
  excluded: boolean;
  /** When the pass was to look at them, as text: '-infinity' is no JavaScript date. */
  check_at: string;
}

/** Drivers read at a time; a pass reads batch after batch of those it is to look at. */
const BATCH = 500;

/**
 * The drivers the pass is to look at (for `due`: their progress row's remind_check_at, migration
 * 025, is past $(n+3), after the one at ($(n+4), $(n+5)) in that order, a batch at a time; for `one`:
 * the driver $(n+3), whatever they are): where they are (the first step of the funnel they have not
 * passed, whose names in progress_steps are $3… in order) and since when, their state ($1's answer
 * $2), what they were sent, and whether reminders are stopped, paused or refused them. Only these
 * drivers are read, by their index: a pass costs what is due, not how many drivers there are.
 */
function candidatesSql(funnelLength: number, which: 'due' | 'one'): string {
  const times = Array.from({ length: funnelLength }, (_, index) => `t${index}`);
  return `
  WITH progress AS MATERIALIZED (
    SELECT p.driver_id, p.signed_up_at, p.remind_check_at${times.map((time, index) => `, p.passed[(SELECT s.id FROM progress_steps s WHERE s.step = $${3 + index})] AS ${time}`).join('')}
    FROM driver_progress p
    ${
      which === 'due'
        ? `WHERE p.remind_check_at <= $${funnelLength + 3}
             AND ($${funnelLength + 4}::text IS NULL OR (p.remind_check_at, p.driver_id) > ($${funnelLength + 4}::timestamptz, $${funnelLength + 5}::uuid))
           ORDER BY p.remind_check_at, p.driver_id LIMIT ${BATCH}`
        : `WHERE p.driver_id = $${funnelLength + 3}`
    }
  )
  SELECT d.id, d.locale, d.status, d.reminders_stopped_at IS NOT NULL AS stopped, d.reminders_paused_at IS NOT NULL AS paused,
    w.signed_up_at, w.remind_check_at::text AS check_at,
    CASE ${times.map((time, index) => `WHEN ${time} IS NULL THEN ${index}`).join(' ')} END AS next,
    w.signed_up_at + greatest(${times.join(', ')}) * interval '1 second' AS last_progress,
    d.reminders_stopped_at IS NOT NULL OR d.reminders_paused_at IS NOT NULL OR d.status = 'rejected' AS excluded,
    (SELECT a.answers ->> $2 FROM step_answers a WHERE a.driver_id = d.id AND a.step = $1) AS state,
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
      let reminded = 0;
      let after: Candidate | undefined;
      for (;;) {
        const { rows } = await app.db.query<Candidate>(candidatesSql(funnel.length, 'due'), [
          ...stateAndSteps(funnel),
          now,
          after?.check_at ?? null,
          after?.id ?? null,
        ]);
        /** When to look at each driver looked at again (null: not until they change something), unless they changed something meanwhile. */
        const looked: { id: string; at: string | null; seen: string }[] = [];
        for (const driver of rows) {
          const ahead = aheadOf(driver, funnel, now);
          const due = ahead.find((reminder) => reminder.at <= now)?.reminder;
          // In the driver's quiet hours the reminder waits: the next pass looks again.
          if (due !== undefined && isQuiet(hourIn(zoneOfState(driver.state), now), schedule.quietHours)) continue;
          if (due !== undefined) {
            const step = funnel[driver.next!]!.step;
            const won = await app.db.transaction(async (tx) => {
              // Another server sent this one (its row came first): nothing more here.
              if (!(await claim(tx, driver.id, step, due, now)).includes(due)) return false;
              await send(tx, driver, step);
              return true;
            });
            if (won) reminded += 1;
          }
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

    /** The reminders' query's first values: the state answer, and the funnel's steps as progress_steps names them. */
    const stateAndSteps = (funnel: FunnelStep[]) => [schedule.stateAnswer.step, schedule.stateAnswer.field, ...funnel.map((step) => step.recordedAs)];

    /** The reminders still to be sent to the driver and when (none when they passed the funnel or are excluded). */
    const aheadOf = (driver: Candidate, funnel: FunnelStep[], now: Date) => {
      const next = driver.next === null ? undefined : funnel[driver.next];
      return next
        ? remindersAhead(
            schedule,
            { next: next.step, lastProgress: driver.last_progress, signedUpAt: driver.signed_up_at, sent: driver.sent, excluded: driver.excluded },
            now,
          )
        : [];
    };

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
      // The step's stage, as the driver's language names it (a step's own label is the English one).
      const written = app.callReader.flowIn(DEFAULT_LOCALE);
      const stepName = app.callReader.flowIn(locale).journey[stageOf(written, written.steps[step])] ?? step;
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
      const step = driver.next === null ? undefined : funnel[driver.next]?.step;
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
      // The latest reminder due, as the pass would send it, counted as this one.
      const due = remindersAhead(
        schedule,
        { next: step, lastProgress: driver.last_progress, signedUpAt: driver.signed_up_at, sent: driver.sent, excluded: false },
        now,
      ).find((ahead) => ahead.at <= now)?.reminder;
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
