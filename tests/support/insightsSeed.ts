/**
 * A set of drivers for the insights, written straight into the database with chosen
 * times, and their figures computed here, in plain TypeScript, from the same description: what
 * GET /admin/insights must answer, found without its SQL.
 */
import type { Db } from '../../src/server/db/db.js';

/** The funnel as the shipped flow has it, in its order. */
export const FUNNEL = [
  'signup',
  'verifyEmail',
  'verifyPhone',
  'completeProfile',
  'uploadVehicleImages',
  'addVehicle',
  'profileApproved',
  'success',
  'addBank',
] as const;

const HOUR_MS = 3600 * 1000;
const DAY_MS = 24 * HOUR_MS;

export interface SeedDriver {
  provider: string;
  locale: 'en' | 'es';
  /** When each funnel step was passed, as many as the driver got through. */
  passed: Date[];
  decision: { decision: 'approved' | 'rejected'; at: Date; fixes: string[] } | null;
}

const REASONS = ['Blurry photo', 'Blurry photo', ' blurry photo ', 'Plate not readable', 'Plate not readable', 'Insurance card expired'];

/** 24 drivers from `base` on: each gets through 1 to 9 steps, hours apart, some decided. */
export function seedDrivers(base: Date): SeedDriver[] {
  return Array.from({ length: 24 }, (_, i) => {
    const reached = 1 + ((i * 7) % 9);
    const passed: Date[] = [new Date(base.getTime() + i * HOUR_MS)];
    for (let step = 1; step < reached; step++) {
      // The decision is its own step: it comes after the submission, as below.
      passed.push(new Date(passed[step - 1]!.getTime() + ((i % 5) + 1) * (step + 1) * HOUR_MS));
    }
    const submitted = reached >= 6 ? passed[5]! : null;
    let decision: SeedDriver['decision'] = null;
    if (reached >= 7) decision = { decision: 'approved', at: passed[6]!, fixes: [] };
    else if (submitted && i % 2 === 0)
      decision = {
        decision: 'rejected',
        at: new Date(submitted.getTime() + (i + 1) * HOUR_MS),
        fixes: [REASONS[i % REASONS.length]!, REASONS[(i + 3) % REASONS.length]!],
      };
    return { provider: i % 3 === 0 ? 'google.com' : 'password', locale: i % 4 === 0 ? 'es' : 'en', passed, decision };
  });
}

/** The drivers into the database, as the server would have recorded them. */
export async function writeSeed(db: Db, drivers: SeedDriver[], tag: string): Promise<void> {
  for (const [i, driver] of drivers.entries()) {
    const at = (step: (typeof FUNNEL)[number]) => driver.passed[FUNNEL.indexOf(step)] ?? null;
    const [created, emailVerified, phoneVerified, profile, images, vehicle, subscribed, bank] = (
      ['signup', 'verifyEmail', 'verifyPhone', 'completeProfile', 'uploadVehicleImages', 'addVehicle', 'success', 'addBank'] as const
    ).map(at);
    const status = driver.decision?.decision ?? 'pending';
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO drivers (email, firebase_uid, provider, locale, status, rejection_reason, email_verified_at, phone_verified_at,
         submitted_at, is_session_complete, reviewed_at, reviewed_by, is_subscription_paid, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::timestamptz, $9::timestamptz IS NOT NULL, $10, $11, $12, $13, $13) RETURNING id`,
      [
        `insights-${tag}-${i}@example.com`,
        `insights-${tag}-${i}`,
        driver.provider,
        driver.locale,
        status,
        status === 'rejected' ? 'Please fix' : null,
        emailVerified,
        phoneVerified,
        vehicle,
        driver.decision?.at ?? null,
        driver.decision ? 'reviewer@example.com' : null,
        subscribed !== null,
        created,
      ],
    );
    const id = rows[0]!.id;
    for (const [step, at] of [
      ['completeProfile', profile],
      ['uploadVehicleImages', images],
      ['addVehicle', vehicle],
      ['addBank', bank],
    ] as const) {
      if (at)
        await db.query(`INSERT INTO step_answers (driver_id, step, schema_name, schema_version, answers, submitted_at) VALUES ($1, $2, $2, 'seed', '{}', $3)`, [
          id,
          step,
          at,
        ]);
    }
    if (subscribed) await db.query(`INSERT INTO subscriptions (driver_id, status, claimed_at, updated_at) VALUES ($1, 'active', $2, $2)`, [id, subscribed]);
    if (driver.decision) {
      await db.query(
        `INSERT INTO driver_reviews (driver_id, decision, reason, reviewed_by, reviewed_at, sent_at, fixes) VALUES ($1, $2, $3, 'reviewer@example.com', $4, $5, $6)`,
        [
          id,
          driver.decision.decision,
          driver.decision.decision === 'rejected' ? 'Please fix' : null,
          driver.decision.at,
          vehicle,
          JSON.stringify(driver.decision.fixes.map((reason) => ({ step: 'addVehicle', field: 'plateNumber', reason }))),
        ],
      );
    }
  }
}

/** PostgreSQL's percentile_cont: linear between the two nearest of the sorted values. */
export function percentile(values: number[], fraction: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const position = fraction * (sorted.length - 1);
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}

const hours = (ms: number | null) => (ms === null ? null : Math.round((ms / HOUR_MS) * 100) / 100);
const share = (part: number, whole: number) => (whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000);

export interface ExpectedFilter {
  from: Date;
  /** The day after the last day of the range. */
  until: Date;
  method: string | null;
  language: string | null;
  stalledDays: number;
  now: Date;
}

/** The figures of the seed, computed one driver at a time. */
export function expectedFigures(drivers: SeedDriver[], filter: ExpectedFilter) {
  const matches = (driver: SeedDriver) =>
    (filter.method === null || driver.provider === filter.method) && (filter.language === null || driver.locale === filter.language);
  const cohort = drivers.filter((driver) => matches(driver) && driver.passed[0]! >= filter.from && driver.passed[0]! < filter.until);
  const stalledBefore = filter.now.getTime() - filter.stalledDays * DAY_MS;
  const steps = FUNNEL.map((step, index) => {
    const completed = cohort.filter((driver) => driver.passed.length > index).length;
    const before = cohort.filter((driver) => driver.passed.length > index - 1).length;
    const durations = cohort
      .filter((driver) => driver.passed.length > index && index > 0)
      .map((driver) => driver.passed[index]!.getTime() - driver.passed[index - 1]!.getTime());
    const stalled = cohort.filter((driver) => driver.passed.length === index && driver.passed[index - 1]!.getTime() < stalledBefore).length;
    return {
      step,
      completed,
      conversion: index === 0 ? null : share(completed, before),
      medianHours: hours(percentile(durations, 0.5)),
      p90Hours: hours(percentile(durations, 0.9)),
      stalled: index === 0 ? null : stalled,
    };
  });
  const decisions = drivers.filter((driver) => matches(driver) && driver.decision && driver.decision.at >= filter.from && driver.decision.at < filter.until);
  const turnaround = (driver: SeedDriver) => driver.decision!.at.getTime() - driver.passed[5]!.getTime();
  const days = new Map<string, number[]>();
  for (const driver of decisions) {
    const day = driver.decision!.at.toISOString().slice(0, 10);
    days.set(day, [...(days.get(day) ?? []), turnaround(driver)]);
  }
  const reasons = new Map<string, string[]>();
  for (const driver of decisions) {
    for (const reason of driver.decision!.fixes) reasons.set(reason.trim().toLowerCase(), [...(reasons.get(reason.trim().toLowerCase()) ?? []), reason.trim()]);
  }
  // Ties go to the first in code-unit order, as PostgreSQL's mode() and the "C" collation have them.
  const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const mostCommon = (spellings: string[]) =>
    [...new Set(spellings)].sort((a, b) => spellings.filter((s) => s === b).length - spellings.filter((s) => s === a).length || byCodeUnits(a, b))[0]!;
  const approved = decisions.filter((driver) => driver.decision!.decision === 'approved').length;
  return {
    drivers: cohort.length,
    steps,
    review: {
      decisions: decisions.length,
      approved,
      approvalRate: share(approved, decisions.length),
      medianHours: hours(percentile(decisions.map(turnaround), 0.5)),
      p90Hours: hours(percentile(decisions.map(turnaround), 0.9)),
      byDay: [...days.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([day, values]) => ({ day, decisions: values.length, medianHours: hours(percentile(values, 0.5))! })),
      fixReasons: [...reasons.values()]
        .map((spellings) => ({ reason: mostCommon(spellings), count: spellings.length }))
        .sort((a, b) => b.count - a.count || byCodeUnits(a.reason.toLowerCase(), b.reason.toLowerCase()))
        .slice(0, 10),
    },
  };
}
