/**
 * Drivers at scale, written straight into a PostgreSQL database the app's migrations made, in bulk
 * (one INSERT … SELECT a table from generate_series): `npm run bench -- --only scale` seeds a
 * million, tests/server/scalePlans.test.ts a few thousand. Their sign-ups spread over two years up
 * to `now`, each driver got as far as a step of the funnel, hours to days apart; those who sent
 * everything were decided on or wait in the queue; approved drivers' documents expire from three
 * months ago to two and a half years on (those past sent the driver back to renew them); the
 * reminders, expiry notices, codes, notices and webhook events they were sent are recorded as
 * delivered. Each table's triggers and foreign keys are off while it is written (the session's
 * replication role): the progress rows and running totals the triggers keep are written here, as
 * they would have been.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { addStaff } from '../src/server/lib/staffMembers.js';
import { cursorOf } from '../src/server/routes/admin.js';
import { awake } from '../src/server/plugins/expiries.js';
import { zoneOfState } from '../src/server/lib/stateZones.js';
import { loadNotices } from '../src/node/projectFiles.js';
import { foldRunningTotals } from '../src/server/lib/insights.js';

/** The one driver with this last name: a search for it must find one among them all. */
export const RARE_LAST_NAME = 'Zwicky';

/** The funnel as progress_steps records it (shared/funnel.ts), numbered in this order. */
const PROGRESS_STEPS = [
  'driver.signedUp',
  'driver.emailVerified',
  'driver.phoneVerified',
  'completeProfile',
  'uploadVehicleImages',
  'addVehicle',
  'driver.approved',
  'driver.subscribed',
  'addBank',
];

/** The funnel's step names, by the index of the step a driver is at (the first not passed). */
const STEP_NAMES = ['signup', 'verifyEmail', 'verifyPhone', 'completeProfile', 'uploadVehicleImages', 'addVehicle', 'profileApproved', 'success', 'addBank'];

/** The states drivers live in, in turn. */
const STATES = ['TX', 'CA', 'NY', 'FL', 'IL', 'WA', 'AZ', 'GA', 'HI', 'AK'];

/** The steps reminded of (flows/notices.json), by index, and the reminders' delays in hours. */
const REMINDED = [1, 2, 3, 4, 5, 8];
const REMINDER_HOURS = [24, 72];

const SEED_SQL = (drivers: number) => [
  // Per driver: sign-up time, a random-looking draw (h) for each choice, and the seconds after
  // sign-up each later step was passed at (o1 … o8), kept only up to the step they reached.
  `CREATE UNLOGGED TABLE scale_seed AS
   SELECT g, gen_random_uuid() AS id, at, h,
     CASE WHEN h % 5 = 0 THEN 'google.com' ELSE 'password' END AS provider,
     CASE WHEN h % 4 = 0 THEN 'es' ELSE 'en' END AS locale,
     reached,
     CASE WHEN reached >= 7 AND least(e1, e2, e3) < $2::date THEN 'rejected'
       WHEN reached >= 7 THEN 'approved' WHEN reached = 6 AND h % 5 = 1 AND o6 <= age THEN 'rejected' ELSE 'pending' END AS status,
     o1, o2, o3, o4, o5, o6, o7, o8, e1, e2, e3
   FROM (
     SELECT *, least(target, 1 + (o1 <= age)::int + (o2 <= age)::int + (o3 <= age)::int + (o4 <= age)::int + (o5 <= age)::int
       + (o6 <= age)::int + (o7 <= age)::int + (o8 <= age)::int) AS reached
     FROM (
       SELECT g, at, h, target, age, o1, o2, o3, o4, o5, o6, o7, o8,
         $2::date - 90 + abs(hashint4(g * 13)) % 1000 AS e1, $2::date - 90 + abs(hashint4(g * 17)) % 1000 AS e2,
         $2::date - 90 + abs(hashint4(g * 19)) % 1000 AS e3
       FROM (
         SELECT g, at, h, extract(epoch FROM $1::timestamptz - at)::int AS age,
           CASE WHEN h % 100 < 8 THEN 1 WHEN h % 100 < 15 THEN 2 WHEN h % 100 < 22 THEN 3 WHEN h % 100 < 32 THEN 4
             WHEN h % 100 < 38 THEN 5 WHEN h % 100 < 50 THEN 6 WHEN h % 100 < 60 THEN 7 WHEN h % 100 < 70 THEN 8 ELSE 9 END AS target,
           o1, o2, o3, o4, o5, o6, o7, o8
         FROM generate_series(1, ${drivers}) AS g,
           LATERAL (SELECT $1::timestamptz - (${drivers} - g) * (interval '730 days' / ${drivers}) AS at, abs(hashint4(g)) AS h) draw,
           LATERAL (SELECT 300 + abs(hashint4(g * 3)) % 7200 AS o1) s1,
           LATERAL (SELECT o1 + 60 + abs(hashint4(g * 5)) % 3600 AS o2) s2,
           LATERAL (SELECT o2 + abs(hashint4(g * 7)) % 259200 AS o3) s3,
           LATERAL (SELECT o3 + 600 + abs(hashint4(g * 11)) % 172800 AS o4) s4,
           LATERAL (SELECT o4 + 60 + abs(hashint4(g * 23)) % 86400 AS o5) s5,
           LATERAL (SELECT o5 + 3600 + abs(hashint4(g * 29)) % 172800 AS o6) s6,
           LATERAL (SELECT o6 + abs(hashint4(g * 31)) % 259200 AS o7) s7,
           LATERAL (SELECT o7 + abs(hashint4(g * 37)) % 259200 AS o8) s8
       ) drawn
     ) timed
   ) reached`,
  `INSERT INTO drivers (id, email, firebase_uid, provider, locale, phone, sms_consent_at, email_verified_at, phone_verified_at, status,
     rejection_reason, is_session_complete, submitted_at, reviewed_at, reviewed_by, review_name, is_subscription_paid, renewing,
     reminders_stopped_at, created_at, updated_at)
   SELECT id, 'driver-' || g || '@scale.example', 'scale-' || g, provider, locale, '+1' || (2000000000 + g)::text,
     CASE WHEN h % 10 < 6 THEN at END,
     CASE WHEN reached > 1 THEN at + o1 * interval '1 second' END, CASE WHEN reached > 2 THEN at + o2 * interval '1 second' END, status,
     CASE WHEN status = 'rejected' AND reached = 6 THEN 'Please fix' END, reached >= 6,
     CASE WHEN reached >= 6 THEN at + o5 * interval '1 second' END,
     CASE WHEN reached >= 7 OR status = 'rejected' THEN at + o6 * interval '1 second' END,
     CASE WHEN reached >= 7 OR status = 'rejected' THEN 'reviewer@scale.example' END,
     CASE WHEN reached > 3 THEN (ARRAY['Ada', 'Grace', 'Alan', 'Katherine', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Radia'])[1 + g % 10]
       || ' ' || (ARRAY['Lovelace', 'Hopper', 'Turing', 'Johnson', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Thompson', 'Perlman', 'Ritchie'])[1 + g % 11] END,
     reached >= 8, reached >= 7 AND status = 'rejected', CASE WHEN h % 50 = 7 THEN at + o1 * interval '1 second' END, at,
     at + CASE reached WHEN 1 THEN 0 WHEN 2 THEN o1 WHEN 3 THEN o2 WHEN 4 THEN o3 WHEN 5 THEN o4 WHEN 6 THEN o5 WHEN 7 THEN o6 WHEN 8 THEN o7 ELSE o8 END * interval '1 second'
   FROM scale_seed ORDER BY g`,
  // The rare name: a driver waiting in the review queue, a hundredth of the way from its newest end.
  `UPDATE drivers SET review_name = 'Ada ${RARE_LAST_NAME}' WHERE id = (SELECT id FROM drivers WHERE status = 'pending' AND submitted_at IS NOT NULL
     ORDER BY submitted_at DESC LIMIT 1 OFFSET ${Math.floor(drivers / 100)})`,
  `INSERT INTO step_answers (driver_id, step, schema_name, schema_version, answers, submitted_at)
   SELECT id, step, schema_name, 'scale', answers, at + seconds * interval '1 second'
   FROM scale_seed, LATERAL (VALUES
     (3, 'completeProfile', CASE WHEN provider = 'password' THEN 'profile' ELSE 'profile-social' END, o3, jsonb_build_object('firstName', 'Seeded', 'lastName', 'Driver',
       'state', ($7::text[])[1 + h % 10], 'city', 'Springfield')),
     (4, 'uploadVehicleImages', 'vehicle-images', o4, '{}'::jsonb),
     (5, 'addVehicle', 'vehicle', o5, jsonb_build_object('plateNumber', 'SC' || g, 'driverLicenseExpiryDate', to_char(e1, 'YYYY-MM-DD'),
       'proofInsuranceExpiryDate', to_char(e2, 'YYYY-MM-DD'), 'vehicleRegistrationExpiryDate', to_char(e3, 'YYYY-MM-DD'))),
     (8, 'addBank', 'bank', o8, '{}'::jsonb)) AS step (passed, step, schema_name, seconds, answers)
   WHERE reached > passed`,
  `INSERT INTO subscriptions (driver_id, customer_id, subscription_id, status, claimed_at, updated_at)
   SELECT id, 'cus_' || g, 'sub_' || g, 'active', at + o7 * interval '1 second', at + o7 * interval '1 second' FROM scale_seed WHERE reached >= 8`,
  `INSERT INTO driver_reviews (driver_id, decision, reason, reviewed_by, reviewed_at, sent_at, fixes)
   SELECT id, CASE WHEN reached >= 7 THEN 'approved' ELSE 'rejected' END, CASE WHEN reached = 6 THEN 'Please fix' END, 'reviewer@scale.example',
     at + o6 * interval '1 second', at + o5 * interval '1 second',
     CASE WHEN reached = 6 THEN jsonb_build_array(jsonb_build_object('step', 'addVehicle', 'field', 'plateNumber',
       'reason', (ARRAY['The plate is not readable', 'Blurry photo', 'Insurance card expired'])[1 + h % 3])) ELSE '[]' END
   FROM scale_seed WHERE reached >= 7 OR (reached = 6 AND status = 'rejected')`,
  // As the server writes the funnel's order at start (lib/funnelOrder.ts), if it has not yet.
  `INSERT INTO progress_steps (step, funnel_index) SELECT step, n - 1 FROM unnest($3::text[]) WITH ORDINALITY AS s (step, n) ORDER BY n
   ON CONFLICT (step) DO NOTHING`,
  // When the reminder and expiry passes look at each driver next, as they left it: when their next
  // reminder falls due, and the first hour their documents' next notice can go, in their state (migration 025).
  // Where each stopped, as record_driver_progress writes it (migration 027).
  `INSERT INTO driver_progress (driver_id, signed_up_at, provider, locale, passed, stopped_after, stopped_since, remind_check_at, expiry_check_at)
   SELECT id, at, provider, locale, times.passed, stop.stopped_after, stop.stopped_since,
     (SELECT min(last + hours * interval '1 hour') FROM unnest($6::int[]) AS hours
      WHERE reached = ANY ($5::int[]) AND status <> 'rejected' AND h % 50 <> 7
        AND last + hours * interval '1 hour' > $1 AND last + hours * interval '1 hour' < at + interval '90 days'),
     CASE WHEN reached >= 7 THEN (SELECT min(expires_on - before + $9::time) AT TIME ZONE ($8::text[])[1 + h % 10] FROM unnest(ARRAY[e1, e2, e3]) AS expires_on, unnest(ARRAY[30, 7, -1]) AS before
       WHERE expires_on - before > $2) END
   FROM scale_seed, LATERAL (SELECT at + CASE reached WHEN 1 THEN 0 WHEN 2 THEN o1 WHEN 3 THEN o2 WHEN 4 THEN o3 WHEN 5 THEN o4 ELSE o7 END
     * interval '1 second' AS last) progress,
     LATERAL (SELECT ARRAY[0, CASE WHEN reached > 1 THEN o1 END, CASE WHEN reached > 2 THEN o2 END, CASE WHEN reached > 3 THEN o3 END,
       CASE WHEN reached > 4 THEN o4 END, CASE WHEN reached > 5 THEN o5 END, CASE WHEN reached > 6 AND status = 'approved' THEN o6 END,
       CASE WHEN reached > 7 THEN o7 END, CASE WHEN reached > 8 THEN o8 END] AS passed) times,
     LATERAL funnel_stop(at, times.passed) stop`,
  // Each reminder that fell due while the driver stood at a reminded step, sent then (never past 90 days after sign-up).
  `INSERT INTO reminders_sent (driver_id, step, reminder, sent_at)
   SELECT id, ($4::text[])[reached + 1], reminder - 1, due
   FROM scale_seed, LATERAL (SELECT at + CASE reached WHEN 1 THEN 0 WHEN 2 THEN o1 WHEN 3 THEN o2 WHEN 4 THEN o3 WHEN 5 THEN o4 ELSE o7 END
       * interval '1 second' AS last) progress,
     unnest($6::int[]) WITH ORDINALITY AS r (hours, reminder), LATERAL (SELECT last + hours * interval '1 hour' AS due) due
   WHERE reached = ANY ($5::int[]) AND status <> 'rejected' AND due <= $1 AND due < at + interval '90 days'`,
  // The notices of each document that expires within 30 days or expired: sent on their day.
  `INSERT INTO document_notices_sent (driver_id, document, expires_on, notice, sent_at)
   SELECT id, 'addVehicle.' || field, to_char(expires_on, 'YYYY-MM-DD'), notice, (expires_on - before)::timestamptz
   FROM scale_seed, LATERAL (VALUES ('driverLicenseExpiryDate', e1), ('proofInsuranceExpiryDate', e2), ('vehicleRegistrationExpiryDate', e3)) AS doc (field, expires_on),
     LATERAL (VALUES ('before-30', 30), ('before-7', 7), ('expired', -1)) AS n (notice, before)
   WHERE reached >= 7 AND expires_on - before <= $2::date`,
  `INSERT INTO outgoing_notices (id, driver_id, notice, channel, sealed, status, attempts, next_attempt_at, created_at, sent_at)
   SELECT gen_random_uuid(), driver_id, notice, 'email', decode(repeat('5a', 160), 'hex'), 'sent', 1, sent_at, sent_at, sent_at
   FROM (SELECT driver_id, 'reminder' AS notice, sent_at FROM reminders_sent
     UNION ALL SELECT driver_id, CASE WHEN notice = 'expired' THEN 'documentExpired' ELSE 'documentExpiring' END, sent_at FROM document_notices_sent
     UNION ALL SELECT driver_id, 'driver' || initcap(decision), reviewed_at FROM driver_reviews) sent`,
  `INSERT INTO otp_codes (driver_id, channel, destination, code_hash, expires_at, consumed_at, created_at)
   SELECT id, channel, destination, md5(id::text || channel), at + (seconds + 600) * interval '1 second', at + seconds * interval '1 second',
     at + (seconds - 60) * interval '1 second'
   FROM scale_seed, LATERAL (VALUES (1, 'email', 'driver-' || g || '@scale.example', o1), (2, 'sms', '+1' || (2000000000 + g)::text, o2)) AS code (passed, channel, destination, seconds)
   WHERE reached > passed`,
  `INSERT INTO audit_events (at, actor, action, driver_id, details)
   SELECT reviewed_at, reviewed_by, 'driver.' || decision, driver_id, '{}' FROM driver_reviews`,
  // Turned off by its owner: its history stays, and nothing new goes to it (its secret is no sealed one).
  `INSERT INTO webhook_endpoints (url, secret, created_at, updated_at, disabled_at, disabled_reason)
   VALUES ('https://hooks.scale.example/onramp', '\\x00', $1::timestamptz - interval '731 days', $1, $1, 'owner')`,
  `INSERT INTO webhook_events (id, driver_id, type, sequence, payload, created_at)
   SELECT 'msg_scale_' || g || '_' || event.sequence, id, event.type, event.sequence, event.payload, at + seconds * interval '1 second'
   FROM scale_seed, LATERAL (VALUES (1, 'driver.signed_up', jsonb_build_object('provider', provider), 0),
     (2, 'driver.submitted', '{}'::jsonb, o5), (3, 'driver.' || status, '{}'::jsonb, o6)) AS event (sequence, type, payload, seconds)
   WHERE event.sequence = 1 OR (event.sequence = 2 AND reached >= 6) OR (event.sequence = 3 AND (reached >= 7 OR status = 'rejected'))`,
  `INSERT INTO webhook_sequences (driver_id, last_sequence) SELECT driver_id, max(sequence) FROM webhook_events GROUP BY driver_id`,
  `INSERT INTO webhook_deliveries (event_id, endpoint_id, status, attempts, next_attempt_at, last_attempt_at, last_status_code, queued_at, delivered_at)
   SELECT e.id, w.id, 'delivered', 1, e.created_at, e.created_at, 204, e.created_at, e.created_at FROM webhook_events e, webhook_endpoints w`,
  'DROP TABLE scale_seed',
  // The running totals the triggers would have kept (migration 032).
  'SELECT rebuild_funnel_totals(), rebuild_review_totals()',
];

/**
 * Seeds `drivers` drivers as of `now` into the database at `client` (a connection of its own: its
 * replication role is changed for the load). Then VACUUM ANALYZE, as autovacuum would after a bulk
 * load. Returns the seconds each part took.
 */
export async function seedScale(client: pg.Client, drivers: number, now: Date): Promise<{ seed: number; vacuum: number }> {
  const started = performance.now();
  // The drivers' times are arrays numbered as PROGRESS_STEPS: none numbered yet, or numbered so (as a server started on an empty database numbers them).
  const { rows } = await client.query<{ id: number; step: string }>('SELECT id, step FROM progress_steps ORDER BY id');
  if (rows.some((row, index) => row.id !== index + 1 || row.step !== PROGRESS_STEPS[index]))
    throw new Error('The scale seed numbers progress_steps itself: it needs a database with no progress recorded yet.');
  // The statements' constants, written in (each statement takes only some of them).
  const texts = (values: string[]) => `ARRAY[${values.map((value) => `'${value}'`).join(', ')}]`;
  const constants: Record<string, string> = {
    $1: `'${now.toISOString()}'::timestamptz`,
    $2: `'${now.toISOString().slice(0, 10)}'::date`,
    $3: texts(PROGRESS_STEPS),
    $4: texts(STEP_NAMES),
    $5: `ARRAY[${REMINDED.join(', ')}]`,
    $6: `ARRAY[${REMINDER_HOURS.join(', ')}]`,
    $7: texts(STATES),
    $8: texts(STATES.map(zoneOfState)),
    // The hour of the day an expiry notice can first go: the same every day.
    $9: `'${awake('2000-01-01', 0, loadNotices().reminders.quietHours).slice(11)}'::time`,
  };
  await client.query("SET session_replication_role = 'replica'");
  await client.query("SET work_mem = '128MB'");
  await client.query("SET maintenance_work_mem = '512MB'");
  // One transaction: a server's background passes on the database see the drivers whole or not at
  // all (a reminder pass between the progress rows and the reminders sent would send one again).
  await client.query('BEGIN');
  try {
    for (const sql of SEED_SQL(drivers)) {
      const t = performance.now();
      await client.query(sql.replace(/\$\d/g, (name) => constants[name]!));
      if (process.env.SCALE_TRACE) console.log(((performance.now() - t) / 1000).toFixed(1), sql.slice(0, 60).replace(/\s+/g, ' '));
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    await client.query('RESET session_replication_role');
  }
  const seeded = performance.now();
  await client.query('VACUUM ANALYZE');
  return { seed: (seeded - started) / 1000, vacuum: (performance.now() - seeded) / 1000 };
}

/** Readings of each figure: the median of this many, after one warm-up. */
const RUNS = 9;
const DAY_MS = 24 * 3600 * 1000;

async function medianTime(call: () => Promise<unknown>): Promise<number> {
  await call();
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await call();
    samples.push(performance.now() - started);
  }
  return samples.sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
}

/**
 * What staff and the background passes read on the seeded drivers, through `app` (on the database
 * `client` is connected to), in milliseconds: the review queue (its first page, a page 50,000
 * drivers deep, a search by name, by email and by a phone's digits), the insights for last month and
 * for all time, one driver's review page and timeline, the Drivers list (its first page, drivers
 * stalled at a step, a search), and a pass of each background job with nothing due (the seeded
 * history sent what was due; the first pass's sends are counted apart).
 */
export async function readAtScale(app: FastifyInstance, client: pg.Client) {
  const actor = { staffId: null, actor: 'npm run bench', ip: null };
  const reviewer = await addStaff(app, { email: `bench-${randomUUID()}@onramp.local`, roles: ['reviewer'], firebaseUid: `bench-${randomUUID()}` }, actor);
  const headers = { authorization: `Bearer ${(await app.staffAuth.createKey(reviewer, 'npm run bench')).key}` };
  // A page that fails (the database's time limit passed) has no time: NaN.
  const page = (url: string) =>
    medianTime(async () => {
      const response = await app.inject({ method: 'GET', url, headers });
      if (response.statusCode !== 200) throw new Error(`GET ${url}: ${response.statusCode} ${response.body}`);
    }).catch(() => Number.NaN);
  // A driver waiting 50,000 deep in the queue (half-way down a shorter one): the deep page's cursor, and whom the searches and the driver's pages look for.
  const { rows } = await client.query<{ key: string; id: string; email: string; phone: string }>(
    `SELECT to_char(submitted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS key, id, email, phone FROM drivers
     WHERE status = 'pending' AND submitted_at IS NOT NULL ORDER BY submitted_at, id
     OFFSET least(50000, (SELECT count(*) / 2 FROM drivers WHERE status = 'pending' AND submitted_at IS NOT NULL)) LIMIT 1`,
  );
  const deep = rows[0]!;
  const now = app.now();
  const lastMonthEnd = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 0));
  const day = (at: Date) => at.toISOString().slice(0, 10);
  const figures = {
    queue: {
      first: await page('/admin/drivers'),
      deep: await page(`/admin/drivers?after=${cursorOf(deep.key, deep.id)}`),
      name: await page(`/admin/drivers?q=${RARE_LAST_NAME.toLowerCase()}`),
      email: await page(`/admin/drivers?q=${encodeURIComponent(deep.email)}`),
      phone: await page(`/admin/drivers?q=${deep.phone.slice(2)}`),
    },
    insights: {
      month: await page(`/admin/insights?from=${day(lastMonthEnd).slice(0, 8)}01&to=${day(lastMonthEnd)}`),
      all: await page(`/admin/insights?from=${day(new Date(now.getTime() - 731 * DAY_MS))}&to=${day(now)}`),
    },
    driver: { review: await page(`/admin/drivers/${deep.id}`), timeline: await page(`/admin/people/${deep.id}/timeline`) },
    people: {
      first: await page('/admin/people'),
      stalled: await page('/admin/people?step=completeProfile&stalledDays=7'),
      search: await page(`/admin/people?q=${RARE_LAST_NAME.toLowerCase()}`),
    },
    passes: [] as { name: string; first: { sent: number; ms: number }; idle: number }[],
  };
  const passes = {
    reminders: app.reminders.remindDue,
    'document expiries': app.expiries.noticeDue,
    'notice delivery': app.messaging.deliverDue,
    'webhook delivery': app.webhooks.deliverDue,
    'running totals': () => foldRunningTotals(app.db).then(() => 0),
  };
  for (const [name, pass] of Object.entries(passes)) {
    const started = performance.now();
    const first = { sent: await pass(), ms: performance.now() - started };
    figures.passes.push({ name, first, idle: await medianTime(pass) });
  }
  return figures;
}
