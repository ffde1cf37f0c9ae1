/**
 * The operator's figures: how far the drivers who signed up in a date range got, how
 * long each step took them, where they stalled, and how long reviews took and what they asked to
 * fix. The funnel is one pass over driver_progress (migration 013: each driver's step times, kept
 * up to date as they move on, indexed by sign-up time), the review figures one over the decisions
 * of the range (driver_reviews_reviewed_at_idx), so they stay fast however many drivers there are.
 *
 * Over a range longer than EXACT_UP_TO_DAYS both read running totals instead (migration 032): the
 * drivers who signed up in each whole month of it and the decisions of each day, counted by the
 * bucket of their time, so the median and p90 are within 1 % of the exact ones (as a DDSketch keeps
 * them) and a range of years costs a few hundred milliseconds at a million drivers. The drivers of
 * the days at either end that make no whole month are read one by one and counted into the same
 * buckets.
 *
 * The funnel's steps are the flow's (flows/onboarding.flow.json), in its order: every form step a
 * driver sends (its answers are kept under the step's name, and so is its time in driver_progress,
 * so a step added to the flow shows up with no change here), and the steps whose passing the server
 * records on the driver itself (the flow's "milestones"). A screen that records nothing (the landing
 * page, the summary) has no figure and is left out.
 */
import type { Insights, InsightsStep } from '../../shared/review.js';
import type { Flow } from '../../shared/flow.js';
import { funnelSteps } from '../../shared/funnel.js';

// The funnel is the flow's: the admin page lists its steps too.
export { funnelSteps, type FunnelStep } from '../../shared/funnel.js';
import type { Queryable } from '../db/db.js';

export interface InsightsQuery {
  /** The first and last day of the range (UTC), both included. */
  from: string;
  to: string;
  /** Firebase's sign-in provider ("password" for an email sign-up); null: every method. */
  method: string | null;
  language: string | null;
  stalledDays: number;
}

const HOUR_S = 3600;
const DAY_MS = 24 * 3600 * 1000;
/** The last moment node-postgres writes with a four-digit year, which PostgreSQL reads (year 10000 it refuses). */
const LAST_MOMENT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Where a range of days that ends on `day` (YYYY-MM-DD) stops: the next day's start, or the last moment there is after 9999-12-31. */
export const endOfDayRange = (day: string): Date => new Date(Math.min(Date.parse(`${day}T00:00:00Z`) + DAY_MS, LAST_MOMENT));
/** Hours to two decimals, shares to four: what the page and the CSV show. */
const hours = (seconds: number | null) => (seconds === null ? null : Math.round((seconds / HOUR_S) * 100) / 100);
const share = (part: number, whole: number) => (whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000);

/** The filtered drivers' progress: signed up in [$1, $2), $3 the method, $4 the language. */
const IN_COHORT = 'p.signed_up_at >= $1 AND p.signed_up_at < $2 AND ($3::text IS NULL OR p.provider = $3) AND ($4::text IS NULL OR p.locale = $4)';

/**
 * The value `fraction` of the way through `sorted` (an ascending int[] SQL expression; NULL: none),
 * as percentile_cont computes it: interpolated, in float8, between the two values around position
 * fraction × (count − 1), with the same operations in the same order, so the figure is the same.
 */
const percentileOf = (
  sorted: string,
  fraction: number,
) => `(SELECT ${sorted}[floor(at)::int + 1] + (at - floor(at)) * (${sorted}[ceil(at)::int + 1] - ${sorted}[floor(at)::int + 1])
      FROM (SELECT ${fraction}::float8 * (cardinality(${sorted}) - 1) AS at) position)`;

/**
 * One row per driver of the cohort, a column per funnel step (`t0`, `t1`…: when they passed it, in
 * seconds after sign-up; the names progress_steps records them by are $6, $7… in order) and the
 * funnel step they stalled after (`stalled_after`: the last they passed, if they passed it before $5;
 * migration 027 keeps where each driver stopped, in the funnel's order), then one pass over them: the
 * drivers, and per step how many passed it, the times since passing the step before (for those who
 * passed both) in ascending order (`d1`, `d2`…), and how many stalled at it; the median and p90 are
 * read from the sorted times.
 * The times are sorted as integers, not as percentile_cont's float8: PGlite is a 32-bit build, where
 * a float8 is passed by reference and every one sorted is copied into memory of its own; an integer
 * is sorted in place (a few per cent less CPU for the whole pass at 100,000 drivers).
 * The cohort is a subquery the planner keeps apart (OFFSET 0), so each step's time is read from the
 * array once per driver and handed straight to the aggregates: a MATERIALIZED cohort wrote every
 * driver to a tuplestore first (5 MB spilled to disk at 100,000 drivers) and cost a third of the pass.
 */
function funnelSql(steps: unknown[]): string {
  const figures = steps.map((_, index) =>
    index === 0
      ? 'count(t0) AS c0'
      : `count(t${index}) AS c${index},
      array_agg(greatest(t${index} - t${index - 1}, 0) ORDER BY greatest(t${index} - t${index - 1}, 0))
        FILTER (WHERE t${index} IS NOT NULL AND t${index - 1} IS NOT NULL) AS d${index},
      count(*) FILTER (WHERE stalled_after = ${index - 1}) AS s${index}`,
  );
  return `
  SELECT drivers, json_build_array(${steps
    .map((_, index) =>
      index === 0
        ? "json_build_object('completed', c0)"
        : `json_build_object('completed', c${index},
        'percentiles', CASE WHEN d${index} IS NOT NULL THEN json_build_array(${percentileOf(`d${index}`, 0.5)}, ${percentileOf(`d${index}`, 0.9)}) END,
        'stalled', s${index})`,
    )
    .join(', ')}) AS steps
  FROM (
    SELECT count(*)::int AS drivers, ${figures.join(', ')}
    FROM (
      SELECT CASE WHEN p.stopped_since < $5 THEN p.stopped_after END AS stalled_after${steps
        .map((_, index) => `, p.passed[(SELECT s.id FROM progress_steps s WHERE s.step = $${6 + index})] AS t${index}`)
        .join('')}
      FROM driver_progress p WHERE ${IN_COHORT}
      OFFSET 0
    ) cohort
  ) figures`;
}

/** Ranges up to this many days are read driver by driver; longer ones from the running totals. */
export const EXACT_UP_TO_DAYS = 62;

/** How often a server adds the changes recorded to the running totals into them (migration 032). */
export const FOLD_INTERVAL_MS = 60_000;

/** The changes recorded to the running totals, added into them. */
export async function foldRunningTotals(db: Queryable): Promise<void> {
  await db.query('SELECT fold_running_totals()');
}

/** The funnel's figures, however read: the drivers, and per step how many passed it, the median and p90 of its time in seconds, how many stalled after the step before. */
interface FunnelFigures {
  drivers: number;
  steps: { completed: number; percentiles?: [number, number] | null; stalled?: number }[];
}

/** Counts by time: the value each bucket stands for (ascending) and how many fell in it. */
type Buckets = { value: number; count: number }[];

/**
 * The value `fraction` of the way through the times counted in `buckets`, as percentile_cont reads
 * it from the times themselves (interpolated between the two around position fraction × (count − 1)),
 * each time taken as its bucket's value. Null when none is counted.
 */
export function percentileOfBuckets(buckets: Buckets, fraction: number): number | null {
  const total = buckets.reduce((sum, bucket) => sum + bucket.count, 0);
  if (total === 0) return null;
  const at = fraction * (total - 1);
  const valueAt = (position: number) => {
    let seen = 0;
    for (const bucket of buckets) {
      seen += bucket.count;
      if (position < seen) return bucket.value;
    }
    return buckets[buckets.length - 1]!.value;
  };
  const below = valueAt(Math.floor(at));
  return below + (at - Math.floor(at)) * (valueAt(Math.ceil(at)) - below);
}

const startOfMonth = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
const nextMonth = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));

/**
 * The whole months of sign-ups in [from, to): from the first month starting at or after `from` to the
 * last ending at or before `to`, and the months `from` and `to` fall in too when no driver of that
 * month signed up outside the range (an all-time range starts before the first driver and ends
 * today). Null: no whole month.
 */
async function wholeMonthsOf(db: Queryable, from: Date, to: Date) {
  const { rows } = await db.query<{ before: boolean; after: boolean }>(
    `SELECT EXISTS (SELECT FROM driver_progress WHERE signed_up_at >= $1 AND signed_up_at < $2) AS before,
       EXISTS (SELECT FROM driver_progress WHERE signed_up_at >= $3 AND signed_up_at < $4) AS after`,
    [startOfMonth(from), from, to, nextMonth(to)],
  );
  const first = rows[0]!.before ? nextMonth(from) : startOfMonth(from);
  const end = rows[0]!.after || to.getTime() === startOfMonth(to).getTime() ? startOfMonth(to) : nextMonth(to);
  return first < end ? { first, end } : null;
}

/**
 * The funnel's counts from the running totals of the whole months [$5, $6) (those folded in and the
 * changes not yet: migration 032) and the drivers of the
 * days around them ([$1, $5) and [$6, $2)) bucketed as the totals are (funnel_rows, migration 032),
 * filtered by $3 and $4: per step (NULL: the drivers) and bucket (NULL: no time), how many, and the
 * value the bucket stands for.
 */
const FUNNEL_TOTALS_SQL = `
  SELECT step, bucket, time_bucket_value(bucket) AS value, sum(drivers)::int AS drivers FROM (
    SELECT step, bucket, drivers FROM (SELECT * FROM funnel_totals UNION ALL SELECT * FROM funnel_changes) counted_so_far
    WHERE month >= ($5::timestamptz AT TIME ZONE 'UTC')::date AND month < ($6::timestamptz AT TIME ZONE 'UTC')::date
      AND ($3::text IS NULL OR provider = $3) AND ($4::text IS NULL OR locale = $4)
    UNION ALL
    SELECT f.step, f.bucket, 1 FROM driver_progress p, LATERAL funnel_rows(p) f
    WHERE (p.signed_up_at >= $1 AND p.signed_up_at < $5 OR p.signed_up_at >= $6 AND p.signed_up_at < $2)
      AND ($3::text IS NULL OR p.provider = $3) AND ($4::text IS NULL OR p.locale = $4)
  ) counted
  GROUP BY step, bucket HAVING sum(drivers) <> 0 ORDER BY step, bucket`;

/** How many of the filtered drivers ($1 … $4) stalled after each funnel step: their last, passed before $5 (read from an index alone). */
const STALLED_SQL = `SELECT stopped_after, count(*)::int AS stalled FROM driver_progress p WHERE ${IN_COHORT} AND p.stopped_since < $5 GROUP BY stopped_after`;

/** The funnel of a long range from the running totals; null when it holds no whole month. */
async function funnelFromTotals(db: Queryable, stepCount: number, filter: unknown[], stalledBefore: Date): Promise<FunnelFigures | null> {
  const [from, to] = filter as [Date, Date];
  const months = await wholeMonthsOf(db, from, to);
  if (!months) return null;
  const [counts, stalled] = await Promise.all([
    db.query<{ step: number | null; bucket: number | null; value: number; drivers: number }>(FUNNEL_TOTALS_SQL, [...filter, months.first, months.end]),
    db.query<{ stopped_after: number | null; stalled: number }>(STALLED_SQL, [...filter, stalledBefore]),
  ]);
  const stalledAfter = new Map(stalled.rows.map((row) => [row.stopped_after, row.stalled]));
  const countsOf = (step: number | null) => counts.rows.filter((row) => row.step === step);
  return {
    drivers: countsOf(null).reduce((sum, row) => sum + row.drivers, 0),
    steps: Array.from({ length: stepCount }, (_, index) => {
      const rows = countsOf(index);
      const buckets = rows.filter((row) => row.bucket !== null).map((row) => ({ value: row.value, count: row.drivers }));
      const median = percentileOfBuckets(buckets, 0.5);
      return {
        completed: rows.reduce((sum, row) => sum + row.drivers, 0),
        percentiles: median === null ? null : [median, percentileOfBuckets(buckets, 0.9)!],
        stalled: stalledAfter.get(index - 1) ?? 0,
      };
    }),
  };
}

/** The decisions made in [$1, $2) on the filtered drivers ($3, $4; none: no driver is read). */
const DECISIONS = `
  SELECT r.decision, r.reviewed_at, date_part('epoch', r.reviewed_at - r.sent_at) AS seconds, r.fixes
  FROM driver_reviews r
  WHERE r.reviewed_at >= $1 AND r.reviewed_at < $2
    AND ($3::text IS NULL AND $4::text IS NULL
      OR EXISTS (SELECT FROM driver_progress p WHERE p.driver_id = r.driver_id AND ($3::text IS NULL OR p.provider = $3) AND ($4::text IS NULL OR p.locale = $4)))`;

/**
 * The decisions' figures in one pass: a row for all of them (day NULL) and one per day they were made
 * on (GROUPING SETS), each with its count, the approved among them and the turnaround's median and
 * p90 from one sort (the percentiles array); the day rows count only decisions with a turnaround.
 * Then the most frequent reasons for fixes, from the decisions that asked for some. Each reads the
 * decisions itself (NOT MATERIALIZED): the second wants only those with fixes, and copying all of
 * them into a tuplestore for both cost more than reading the range's index twice.
 */
const REVIEW_SQL = `
  WITH decisions AS NOT MATERIALIZED (${DECISIONS})
  SELECT
    (SELECT json_agg(per_day ORDER BY per_day.day NULLS FIRST) FROM (
       SELECT (reviewed_at AT TIME ZONE 'UTC')::date AS day, count(*) AS decisions, count(*) FILTER (WHERE decision = 'approved') AS approved,
         count(seconds) AS timed, percentile_cont(ARRAY[0.5, 0.9]) WITHIN GROUP (ORDER BY seconds) AS percentiles
       FROM decisions GROUP BY GROUPING SETS ((), ((reviewed_at AT TIME ZONE 'UTC')::date))) per_day) AS days,
    (SELECT coalesce(json_agg(fix_reason ORDER BY fix_reason.count DESC, lower(fix_reason.reason) COLLATE "C"), '[]') FROM (
       SELECT mode() WITHIN GROUP (ORDER BY btrim(f ->> 'reason') COLLATE "C") AS reason, count(*) AS count
       FROM decisions, jsonb_array_elements(fixes) AS f WHERE fixes <> '[]' GROUP BY lower(btrim(f ->> 'reason'))
       ORDER BY count(*) DESC, lower(btrim(f ->> 'reason')) COLLATE "C" LIMIT 10) fix_reason) AS fix_reasons`;

/** A group of decisions: how many, how many approved, how many with a turnaround and its median and p90 in seconds (null: none). */
interface DecisionsFigures {
  decisions: number;
  approved: number;
  timed: number;
  percentiles: [number, number] | null;
}

/** The review's figures, however read: all the decisions first (day NULL), then each day's; the most frequent reasons for fixes. */
interface ReviewFigures {
  days: [DecisionsFigures & { day: null }, ...(DecisionsFigures & { day: string })[]];
  fix_reasons: { reason: string; count: number }[];
}

/**
 * From `table` (review_totals, or review_changes: those not folded in yet) for the days [$1, $2)
 * (whole days: a range is), filtered by $3 and $4: each day's decisions, those approved, and its
 * turnarounds as the values of their buckets and how many in each, in the order of their buckets.
 * Each is read on its own: review_totals is read in the order of its key (day, bucket), adding up
 * each bucket as it goes, with no sort, which reading it beside the changes would need.
 */
const reviewDaysSql = (table: 'review_totals' | 'review_changes') => `
  SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(n)::int AS decisions, coalesce(sum(approved), 0)::int AS approved,
    coalesce(array_agg(time_bucket_value(bucket) ORDER BY bucket) FILTER (WHERE bucket IS NOT NULL), '{}') AS times,
    coalesce(array_agg(n ORDER BY bucket) FILTER (WHERE bucket IS NOT NULL), '{}') AS counts
  FROM (
    SELECT day, bucket, sum(decisions)::int AS n, sum(decisions) FILTER (WHERE decision = 'approved') AS approved FROM ${table}
    WHERE day >= ($1::timestamptz AT TIME ZONE 'UTC')::date AND day < ($2::timestamptz AT TIME ZONE 'UTC')::date
      AND ($3::text IS NULL OR provider = $3) AND ($4::text IS NULL OR locale = $4)
    GROUP BY day, bucket
  ) per_bucket
  GROUP BY day`;

/** The most frequent reasons for fixes as REVIEW_SQL finds them, from the totals and the changes: grouped without regard to case, each under its most frequent spelling. */
const FIX_REASON_TOTALS_SQL = `
  SELECT (array_agg(reason ORDER BY fixes DESC, reason COLLATE "C"))[1] AS reason, sum(fixes)::int AS count FROM (
    SELECT reason, sum(fixes) AS fixes FROM (
      SELECT reason, fixes, day, provider, locale FROM review_fix_totals UNION ALL SELECT reason, fixes, day, provider, locale FROM review_fix_changes
    ) asked
    WHERE day >= ($1::timestamptz AT TIME ZONE 'UTC')::date AND day < ($2::timestamptz AT TIME ZONE 'UTC')::date
      AND ($3::text IS NULL OR provider = $3) AND ($4::text IS NULL OR locale = $4)
    GROUP BY reason HAVING sum(fixes) <> 0
  ) by_spelling
  GROUP BY lower(reason) ORDER BY count DESC, lower(reason) COLLATE "C" LIMIT 10`;

/** A day's decisions as reviewDaysSql reads them. */
interface ReviewDay {
  day: string;
  decisions: number;
  approved: number;
  times: number[];
  counts: number[];
}

/** The review of a long range from the running totals. */
async function reviewFromTotals(db: Queryable, filter: unknown[]): Promise<ReviewFigures> {
  const [folded, changes, fixReasons] = await Promise.all([
    db.query<ReviewDay>(reviewDaysSql('review_totals'), filter),
    db.query<ReviewDay>(reviewDaysSql('review_changes'), filter),
    db.query<{ reason: string; count: number }>(FIX_REASON_TOTALS_SQL, filter),
  ]);
  // Each day's and all the days' counts, by the value of their bucket (the same whichever day, or table, counts it).
  type Counted = { decisions: number; approved: number; buckets: Map<number, number> };
  const counted = (): Counted => ({ decisions: 0, approved: 0, buckets: new Map() });
  const all = counted();
  const days = new Map<string, Counted>();
  for (const row of [...folded.rows, ...changes.rows]) {
    const day = days.get(row.day) ?? counted();
    days.set(row.day, day);
    for (const into of [day, all]) {
      into.decisions += row.decisions;
      into.approved += row.approved;
      for (const [index, value] of row.times.entries()) into.buckets.set(value, (into.buckets.get(value) ?? 0) + row.counts[index]!);
    }
  }
  const figuresOf = ({ decisions, approved, buckets: byValue }: Counted): DecisionsFigures => {
    const buckets = [...byValue]
      .filter(([, count]) => count !== 0)
      .sort(([a], [b]) => a - b)
      .map(([value, count]) => ({ value, count }));
    const median = percentileOfBuckets(buckets, 0.5);
    return {
      decisions,
      approved,
      timed: buckets.reduce((sum, bucket) => sum + bucket.count, 0),
      percentiles: median === null ? null : [median, percentileOfBuckets(buckets, 0.9)!],
    };
  };
  return {
    days: [
      { day: null, ...figuresOf(all) },
      ...[...days]
        .filter(([, day]) => day.decisions !== 0)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([day, figures]) => ({ day, ...figuresOf(figures) })),
    ],
    fix_reasons: fixReasons.rows,
  };
}

export async function insightsOf(db: Queryable, flow: Flow, query: InsightsQuery, now: Date): Promise<Insights> {
  const from = new Date(`${query.from}T00:00:00Z`);
  const to = endOfDayRange(query.to);
  const steps = funnelSteps(flow);
  const filter = [from, to, query.method, query.language];
  const stalledBefore = new Date(now.getTime() - query.stalledDays * DAY_MS);
  const long = (to.getTime() - from.getTime()) / DAY_MS > EXACT_UP_TO_DAYS;
  const readExactly = async () =>
    (await db.query<FunnelFigures>(funnelSql(steps), [...filter, stalledBefore, ...steps.map(({ recordedAs }) => recordedAs)])).rows[0]!;
  const [funnel, review] = await Promise.all([
    (long ? funnelFromTotals(db, steps.length, filter, stalledBefore) : Promise.resolve(null)).then((figures) => figures ?? readExactly()),
    long ? reviewFromTotals(db, filter) : db.query<ReviewFigures>(REVIEW_SQL, filter).then(({ rows }) => rows[0]!),
  ]);
  const figures = funnel.steps;
  const insightsSteps = steps.map(({ step, label }, index): InsightsStep => {
    const row = figures[index]!;
    return {
      step,
      label,
      completed: row.completed,
      conversion: index === 0 ? null : share(row.completed, figures[index - 1]!.completed),
      medianHours: hours(row.percentiles?.[0] ?? null),
      p90Hours: hours(row.percentiles?.[1] ?? null),
      stalled: index === 0 ? null : (row.stalled ?? 0),
    };
  });
  const {
    days: [totals, ...days],
    fix_reasons,
  } = review;
  return {
    from: query.from,
    to: query.to,
    method: query.method,
    language: query.language,
    stalledDays: query.stalledDays,
    timesExact: !long,
    drivers: funnel.drivers,
    steps: insightsSteps,
    review: {
      decisions: totals.decisions,
      approved: totals.approved,
      approvalRate: share(totals.approved, totals.decisions),
      medianHours: hours(totals.percentiles?.[0] ?? null),
      p90Hours: hours(totals.percentiles?.[1] ?? null),
      // A day's turnaround counts the decisions whose sending time is known.
      byDay: days
        .filter((day) => day.timed > 0)
        .map((day) => ({
          day: day.day,
          decisions: day.timed,
          medianHours: hours(day.percentiles![0])!,
        })),
      fixReasons: fix_reasons,
    },
  };
}
