/**
 * Every driver, for reviewers and owners: GET /admin/people lists them whatever step they are on
 * (the review queue, routes/admin.ts, lists only those who sent everything), filtered, searched and
 * paged; GET /admin/people/:id/timeline is what happened to one of them, in time order, and the
 * reminders still due. Contracts: review.schema.json#/$defs/peopleQuery, peoplePage, timelinePage.
 *
 * Where a driver stopped is read from driver_progress, where it is kept with their times (migrations 013,
 * 027) by the funnel the insights read (lib/insights.ts): the step of the funnel after the last one
 * they passed, since they passed that one; indexed, so a filter by it reads only the drivers it holds. So the list filtered by a step, a sign-up range, a method, a language and stalledDays holds
 * exactly the drivers the insights count as stalled at that step. Each reading is in the audit record.
 *
 * Staff act on drivers from the list: GET /admin/people/download is the list as CSV (owners);
 * POST /admin/people/:id/… sends the link back to their step (resume-link), a reminder now
 * (remind), pauses or resumes their reminders (reminders), adds a note for colleagues (notes);
 * POST /admin/people/bulk does one of these to each of up to BULK_SIZE drivers (owners), at most
 * BULK_REQUESTS_PER_MINUTE times a minute. Each action on each driver is in the audit record.
 */
import { HttpError } from '@fastify/sensible';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AUDIT_ACTION_WORDS } from '../../shared/auditWords.js';
import { isLocale } from '../../shared/locales.js';
import { NOTICE_TITLES, type NoticeName } from '../../shared/notices.js';
import type {
  AuditAction,
  BulkAnswer,
  BulkBody,
  NoteBody,
  PeopleAction,
  PeopleDownloadQuery,
  PeopleDriver,
  PeoplePage,
  PeopleQuery,
  PeopleStatus,
  RemindersBody,
  ResumeLinkBody,
  TimelineEvent,
  TimelinePage,
} from '../../shared/review.js';
import { loadNotices } from '../../node/projectFiles.js';
import type { ServerConfig } from '../config.js';
import { isUuid } from '../db/db.js';
import { checkBodiesBySchema } from '../lib/bodySchemas.js';
import { fileAnswer } from '../lib/routeSchemas.js';
import { sharedLimitStore } from '../plugins/rateLimitStore.js';
import { DRIVER_EVENT_WORDS } from '../plugins/webhooks.js';
import { addDays } from '../lib/expiries.js';
import { endOfDayRange, funnelSteps } from '../lib/insights.js';
import { ADMIN_PREFIX, type RouteTable } from '../lib/routeTable.js';
import { remindersAhead } from '../plugins/reminders.js';
import { refusal } from '../serverMessages.js';
import { cursorOf, DEFAULT_PAGE_SIZE, readCursor, RESUME_LINK_LIFETIME_MS } from './admin.js';
import { csvField } from './staff.js';

/** The list of every driver and a driver's timeline (lib/routeTable.ts). */
export const PEOPLE_ROUTES = {
  people: { method: 'GET', url: `${ADMIN_PREFIX}/people` },
  timeline: { method: 'GET', url: `${ADMIN_PREFIX}/people/:id/timeline` },
  download: { method: 'GET', url: `${ADMIN_PREFIX}/people/download` },
  resumeLink: { method: 'POST', url: `${ADMIN_PREFIX}/people/:id/resume-link` },
  remind: { method: 'POST', url: `${ADMIN_PREFIX}/people/:id/remind` },
  reminders: { method: 'POST', url: `${ADMIN_PREFIX}/people/:id/reminders` },
  note: { method: 'POST', url: `${ADMIN_PREFIX}/people/:id/notes` },
  bulk: { method: 'POST', url: `${ADMIN_PREFIX}/people/bulk` },
} as const satisfies RouteTable;

/** The most drivers one bulk request acts on (bulkBody's maxItems): the admin page sends a longer list in parts of this size. */
export const BULK_SIZE = 50;
/** Bulk requests a staff member may make a minute: at most BULK_SIZE times this many actions a minute, on every server together. */
export const BULK_REQUESTS_PER_MINUTE = 20;

/** The CSV's columns: who the driver is and where they stand, never their answers (no SSN, bank or document data). */
const CSV_COLUMNS = ['id', 'name', 'email', 'phone', 'status', 'stoppedAt', 'since', 'signedUpAt', 'lastActivityAt', 'provider', 'language', 'state'] as const;

/** Each decision as the timeline says it. */
const DECISION_WORDS: Record<string, string> = { approved: 'Approved', rejected: 'Asked for changes' };

const DAY_MS = 24 * 3600 * 1000;
/**
 * The list counts the drivers that match up to this many, newest first, as the first page reads them
 * (by the sign-up index): each counted is read (where they stand is computed from their progress),
 * and a million read would take seconds; past it the page says "1000+".
 */
const COUNTED_AT_MOST = 1_000;

/** A driver's row, as the list's SQL answers it. */
interface PeopleRow {
  id: string;
  name: string | null;
  email: string;
  phone: string | null;
  provider: string;
  locale: string;
  state: string | null;
  status: PeopleStatus;
  signed_up_at: Date;
  last_activity_at: Date;
  /** The index in the funnel of the last step passed. */
  last: number;
  since: Date;
  sort_key: string;
}

/** Each sort: the column it orders by, and whether the newest come first. */
const SORTS = {
  newest: { column: 'signed_up_at', descending: true },
  oldest: { column: 'signed_up_at', descending: false },
  recentActivity: { column: 'last_activity_at', descending: true },
  oldestActivity: { column: 'last_activity_at', descending: false },
} as const;

/** A search: an email or a phone matches exactly, anything else a name (any part, any case) or an external id (exactly). */
export function searchOf(q: string): { email: string } | { phone: string } | { text: string } {
  if (q.includes('@')) return { email: q.toLowerCase() };
  const digits = q.replace(/\D/g, '');
  // Phones are kept in E.164 with the +1 prefix (migration 001).
  if (/^\+?[\d\s().-]+$/.test(q) && (digits.length === 10 || (digits.length === 11 && digits.startsWith('1')))) return { phone: `+1${digits.slice(-10)}` };
  return { text: q };
}

/**
 * Each status as a condition on the columns it comes from: the driver's decision, whether they sent
 * everything, and the last funnel step they passed. A filter by status is this condition, which the
 * indexes of those columns answer (drivers_review_idx, driver_progress_stopped_after_idx), and a
 * row's status is the one whose condition it meets.
 */
const STATUS_CONDITIONS: Record<PeopleStatus, string> = {
  approved: "decision = 'approved'",
  rejected: "decision = 'rejected'",
  waitingReview: "decision = 'pending' AND complete",
  signedUp: "decision = 'pending' AND NOT complete AND (last IS NULL OR last = 0)",
  inProgress: "decision = 'pending' AND NOT complete AND last > 0",
};
const STATUS_OF_ROW = `CASE ${Object.entries(STATUS_CONDITIONS)
  .map(([status, condition]) => `WHEN ${condition} THEN '${status}'`)
  .join(' ')} END`;

/** The drivers' columns, where they are and since when, that meet `filters` (conditions on those columns); `value` takes each value the statement needs. */
function peopleSql(funnelNames: string[], value: (v: unknown) => string, filters: string[]): string {
  const times = funnelNames.map((name, index) => `p.passed[(SELECT s.id FROM progress_steps s WHERE s.step = ${value(name)})] AS t${index}`);
  const { stateAnswer } = loadNotices().reminders;
  return `
  SELECT *, ${STATUS_OF_ROW} AS status FROM (
    SELECT d.id, d.review_name AS name, d.email, d.phone, p.provider, p.locale, p.signed_up_at, d.external_id,
      (SELECT a.answers ->> ${value(stateAnswer.field)} FROM step_answers a WHERE a.driver_id = d.id AND a.step = ${value(stateAnswer.step)}) AS state,
      p.stopped_after AS last, p.stopped_since AS since,
      p.signed_up_at + greatest(${funnelNames.map((_, index) => `t${index}`).join(', ')}, 0) * interval '1 second' AS last_activity_at,
      d.status AS decision, d.is_session_complete AS complete
    FROM (SELECT p.driver_id, p.signed_up_at, p.provider, p.locale, p.stopped_after, p.stopped_since, ${times.join(', ')} FROM driver_progress p) p
    JOIN drivers d ON d.id = p.driver_id
  ) people
  ${filters.length > 0 ? `WHERE ${filters.join(' AND ')}` : ''}`;
}

export async function peopleRoutes(app: FastifyInstance, options: { publicOrigin: string; counters: ServerConfig['sharedCounters'] }) {
  const readers = { config: { staffRoles: ['reviewer', 'owner'] as const }, onRequest: app.requireStaff };
  const owners = { config: { staffRoles: ['owner'] as const }, onRequest: app.requireStaff };
  await app.register(rateLimit, {
    global: false,
    ...(await sharedLimitStore(app, options.counters)),
    // After the staff check: counted by the staff member, whatever address they come from.
    hook: 'preHandler',
    keyGenerator: (request) => `people-bulk:${request.staff?.id ?? request.ip}`,
    errorResponseBuilder: () => refusal(429, 'staff.bulkTooFast'),
  });
  const { expiries, reminders: schedule } = loadNotices();
  const flow = () => app.callReader.flow;
  checkBodiesBySchema(app);

  /**
   * The list's SQL and values for `query`: the filters as conditions on the drivers' rows, and for a
   * page, the cursor's place and the order (every match in that order when its limit is null). Only
   * the filters asked for are in the statement.
   */
  function statement(query: PeopleQuery, page: { limit: number | null } | null) {
    const values: unknown[] = [];
    const value = (v: unknown) => {
      values.push(v);
      return `$${values.length}`;
    };
    const funnel = funnelSteps(flow());
    const filters: string[] = [];
    const now = app.now();
    if (query.from) filters.push(`signed_up_at >= ${value(new Date(`${query.from}T00:00:00Z`))}`);
    if (query.to) filters.push(`signed_up_at < ${value(endOfDayRange(query.to))}`);
    if (query.method) filters.push(`provider = ${value(query.method)}`);
    if (query.language) filters.push(`locale = ${value(query.language)}`);
    if (query.status) filters.push(STATUS_CONDITIONS[query.status]);
    if (query.step) filters.push(`last = ${value(funnel.findIndex((step) => step.step === query.step) - 1)}`);
    // Stalled: no step passed since the cutoff, and a step still ahead (as the insights count them).
    if (query.stalledDays) filters.push(`since < ${value(new Date(now.getTime() - query.stalledDays * DAY_MS))} AND last < ${funnel.length - 1}`);
    if (query.state) filters.push(`state = ${value(query.state)}`);
    if (query.expiringDays !== undefined) {
      filters.push(`EXISTS (SELECT FROM step_answers a, unnest(${value(expiries.documents.map((document) => document.step))}::text[],
          ${value(expiries.documents.map((document) => document.date))}::text[]) AS doc (step, field)
        WHERE a.driver_id = people.id AND a.step = doc.step AND a.answers ->> doc.field ~ '^\\d{4}-\\d{2}-\\d{2}$'
          AND a.answers ->> doc.field <= ${value(addDays(now.toISOString().slice(0, 10), query.expiringDays))})`);
    }
    const q = query.q?.trim();
    if (q) {
      const search = searchOf(q);
      if ('email' in search) filters.push(`email = ${value(search.email)}`);
      else if ('phone' in search) filters.push(`phone = ${value(search.phone)}`);
      else filters.push(`(name ILIKE ${value(`%${search.text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`)} OR external_id = ${value(search.text)})`);
    }
    if (page === null)
      return {
        sql: `SELECT count(*)::int AS total FROM (SELECT FROM (${peopleSql(
          funnel.map((step) => step.recordedAs),
          value,
          filters,
        )}) matched ORDER BY signed_up_at DESC LIMIT ${value(COUNTED_AT_MOST + 1)}) counted`,
        values,
      };
    const sort = SORTS[query.sort ?? 'newest'];
    const direction = sort.descending ? 'DESC' : 'ASC';
    if (query.after) {
      const after = readCursor(query.after);
      filters.push(`(${sort.column}, id) ${sort.descending ? '<' : '>'} (${value(after.at)}::timestamptz, ${value(after.id)}::uuid)`);
    }
    const sql = `SELECT *, to_char(${sort.column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS sort_key
      FROM (${peopleSql(
        funnel.map((step) => step.recordedAs),
        value,
        filters,
      )}) matched ORDER BY ${sort.column} ${direction}, id ${direction}${page.limit === null ? '' : ` LIMIT ${value(page.limit + 1)}`}`;
    return { sql, values };
  }

  /** The query's parts that depend on the flow and the app: its step, method and language, and the range's order. */
  function checkQuery(query: PeopleQuery): void {
    const steps = funnelSteps(flow()).map((step) => step.step);
    if (query.step && !steps.includes(query.step)) throw refusal(400, 'staff.unknownStep', { steps: steps.join(', ') });
    if (query.from && query.to && query.to < query.from) throw refusal(400, 'staff.rangeReversed');
    const methods = ['password', ...(flow().social?.providers.map((provider) => provider.id) ?? [])];
    if (query.method && !methods.includes(query.method)) throw refusal(400, 'staff.badMethod', { providers: methods.slice(1).join(', ') });
    if (query.language && !isLocale(query.language)) throw refusal(400, 'staff.badLanguage');
  }

  const rowOf = (row: PeopleRow): PeopleDriver => {
    const funnel = funnelSteps(flow());
    const ahead = funnel[row.last + 1];
    return {
      id: row.id,
      name: row.name,
      email: row.email,
      phone: row.phone,
      provider: row.provider,
      language: row.locale,
      state: row.state,
      status: row.status,
      signedUpAt: row.signed_up_at.toISOString(),
      lastActivityAt: row.last_activity_at.toISOString(),
      stoppedAt: ahead?.label ?? null,
      since: ahead ? row.since.toISOString() : null,
    };
  };

  app.get<{ Querystring: PeopleQuery }>(
    PEOPLE_ROUTES.people.url,
    { ...readers, schema: { querystring: { $ref: 'review#/$defs/peopleQuery' }, response: { 200: { $ref: 'review#/$defs/peoplePage' } } } },
    async (request): Promise<PeoplePage> => {
      const { query } = request;
      checkQuery(query);
      const limit = query.limit ?? DEFAULT_PAGE_SIZE;
      const page = statement(query, { limit });
      const count = statement(query, null);
      const [{ rows }, counted] = await Promise.all([app.db.query<PeopleRow>(page.sql, page.values), app.db.query<{ total: number }>(count.sql, count.values)]);
      const { limit: _limit, after: _after, ...filter } = query;
      await app.audit.record(request, { action: 'people.list', details: { ...filter, ...(filter.q && { q: 'given' }) } });
      const shown = rows.slice(0, limit);
      const total = counted.rows[0]!.total;
      return {
        drivers: shown.map(rowOf),
        total: Math.min(total, COUNTED_AT_MOST),
        totalAtLeast: total > COUNTED_AT_MOST,
        next: rows.length > limit ? cursorOf(shown[shown.length - 1]!.sort_key, shown[shown.length - 1]!.id) : null,
      };
    },
  );

  /** The refusal of a driver that isn't there. */
  const unknownDriver = () => refusal(404, 'staff.unknownDriver');

  /** One driver's row of the list, or a 404. */
  async function personOf(id: string): Promise<PeopleRow> {
    const notFound = unknownDriver();
    if (!isUuid(id)) throw notFound;
    const values: unknown[] = [];
    const value = (v: unknown) => {
      values.push(v);
      return `$${values.length}`;
    };
    const sql = peopleSql(
      funnelSteps(flow()).map((step) => step.recordedAs),
      value,
      [],
    );
    const { rows } = await app.db.query<PeopleRow>(`${sql} WHERE id = ${value(id)}`, values);
    if (!rows[0]) throw notFound;
    return rows[0];
  }

  /** What happened to the driver: each source table's events, in time order; and the steps they passed. */
  async function eventsOf(driverId: string): Promise<{ events: TimelineEvent[]; passed: string[] }> {
    const funnel = funnelSteps(flow());
    const labels = new Map(funnel.map((step) => [step.recordedAs, step.label]));
    const verified = new Map<string, 'email' | 'sms'>([
      ['driver.emailVerified', 'email'],
      ['driver.phoneVerified', 'sms'],
    ]);
    const [steps, codes, notices, documentNotices, decisions, staff, answers, webhooks, notes] = await Promise.all([
      app.db.query<{ step: string; passed_at: Date }>('SELECT step, passed_at FROM driver_steps_passed(ARRAY[$1]::uuid[])', [driverId]),
      app.db.query<{ channel: 'email' | 'sms'; created_at: Date }>('SELECT channel, created_at FROM otp_codes WHERE driver_id = $1', [driverId]),
      app.db.query<{ notice: NoticeName; step: string | null; channel: 'email' | 'sms'; status: 'pending' | 'sent' | 'failed'; created_at: Date }>(
        // Email before text for one notice: its two messages have one time.
        'SELECT notice, step, channel, status, created_at FROM outgoing_notices WHERE driver_id = $1 ORDER BY created_at, channel',
        [driverId],
      ),
      app.db.query<{ document: string; notice: string; sent_at: Date }>('SELECT document, notice, sent_at FROM document_notices_sent WHERE driver_id = $1', [
        driverId,
      ]),
      app.db.query<{ decision: string; reviewed_by: string; reviewed_at: Date }>(
        'SELECT decision, reviewed_by, reviewed_at FROM driver_reviews WHERE driver_id = $1',
        [driverId],
      ),
      app.db.query<{ action: AuditAction; actor: string | null; at: Date }>('SELECT action, actor, at FROM audit_events WHERE driver_id = $1', [driverId]),
      app.db.query<{ step: string; answers: Record<string, unknown> }>(
        'SELECT step, answers FROM step_answers WHERE driver_id = $1 AND step = ANY($2::text[])',
        [driverId, expiries.documents.map((document) => document.step)],
      ),
      // Each event sent (queued for at least one endpoint), and how its deliveries went.
      app.db.query<{ type: string; created_at: Date; delivery: 'pending' | 'sent' | 'failed' }>(
        `SELECT e.type, e.created_at,
           CASE WHEN bool_or(d.status = 'failed') THEN 'failed' WHEN bool_and(d.status = 'delivered') THEN 'sent' ELSE 'pending' END AS delivery
         FROM webhook_events e JOIN webhook_deliveries d ON d.event_id = e.id WHERE e.driver_id = $1 GROUP BY e.id`,
        [driverId],
      ),
      app.db.query<{ author: string; body: string; created_at: Date }>('SELECT author, body, created_at FROM driver_notes WHERE driver_id = $1', [driverId]),
    ]);
    const verifiedBy = new Map([...verified].map(([step, channel]) => [channel, step]));
    const documentName = (key: string) => expiries.documents.find((document) => `${document.step}.${document.date}` === key)?.name ?? key;
    const stepTitle = (step: string) => labels.get(step) ?? flow().steps[step]?.title ?? null;
    const events: TimelineEvent[] = [
      ...steps.rows.flatMap((row): TimelineEvent[] => {
        const channel = verified.get(row.step);
        if (channel) return [{ at: row.passed_at.toISOString(), kind: 'codeVerified', label: stepTitle(row.step) ?? row.step, channel }];
        const title = stepTitle(row.step);
        return title === null ? [] : [{ at: row.passed_at.toISOString(), kind: 'step', label: title }];
      }),
      // A code is named by the step it verifies.
      ...codes.rows.map(
        (row): TimelineEvent => ({
          at: row.created_at.toISOString(),
          kind: 'codeSent',
          label: stepTitle(verifiedBy.get(row.channel)!) ?? row.channel,
          channel: row.channel,
        }),
      ),
      // A reminder is named by the step it was about (reminders before that was kept: by what it is).
      ...notices.rows.map(
        (row): TimelineEvent => ({
          at: row.created_at.toISOString(),
          ...(row.notice === 'reminder'
            ? { kind: 'reminder', label: (row.step && stepTitle(row.step)) ?? NOTICE_TITLES.reminder }
            : { kind: 'notice', label: NOTICE_TITLES[row.notice] }),
          channel: row.channel,
          delivery: row.status,
        }),
      ),
      ...documentNotices.rows.map(
        (row): TimelineEvent => ({
          at: row.sent_at.toISOString(),
          kind: 'documentNotice',
          label: `${NOTICE_TITLES[row.notice as NoticeName] ?? row.notice}: ${documentName(row.document)}`,
        }),
      ),
      ...decisions.rows.map(
        (row): TimelineEvent => ({
          at: row.reviewed_at.toISOString(),
          kind: 'decision',
          label: DECISION_WORDS[row.decision] ?? row.decision,
          by: row.reviewed_by,
        }),
      ),
      ...staff.rows.map(
        (row): TimelineEvent => ({ at: row.at.toISOString(), kind: 'staff', label: AUDIT_ACTION_WORDS[row.action], ...(row.actor && { by: row.actor }) }),
      ),
      ...webhooks.rows.map(
        (row): TimelineEvent => ({
          at: row.created_at.toISOString(),
          kind: 'webhook',
          label: DRIVER_EVENT_WORDS.get(row.type) ?? row.type,
          delivery: row.delivery,
        }),
      ),
      ...notes.rows.map((row): TimelineEvent => ({ at: row.created_at.toISOString(), kind: 'note', label: row.body, by: row.author })),
      ...expiries.documents.flatMap((document): TimelineEvent[] => {
        const date = answers.rows.find((row) => row.step === document.step)?.answers[document.date];
        return typeof date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(date)
          ? [{ at: new Date(`${date}T00:00:00Z`).toISOString(), kind: 'documentExpiry', label: document.name }]
          : [];
      }),
    ];
    return { events: events.sort((a, b) => a.at.localeCompare(b.at)), passed: steps.rows.map((row) => row.step) };
  }

  app.get<{ Params: { id: string } }>(
    PEOPLE_ROUTES.timeline.url,
    { ...readers, schema: { response: { 200: { $ref: 'review#/$defs/timelinePage' } } } },
    async (request): Promise<TimelinePage> => {
      const { id } = request.params;
      // Every part read at once, each on a connection of its own (one after another, their round trips added up).
      if (!isUuid(id)) throw unknownDriver();
      const [row, { events, passed }, { rows: state }] = await Promise.all([
        personOf(id),
        eventsOf(id),
        app.db.query<{ stopped: boolean; paused: boolean; sent: string[] }>(
          `SELECT d.reminders_stopped_at IS NOT NULL AS stopped, d.reminders_paused_at IS NOT NULL AS paused,
             coalesce((SELECT array_agg(r.step || ':' || r.reminder) FROM reminders_sent r WHERE r.driver_id = d.id), '{}') AS sent
           FROM drivers d WHERE d.id = $1`,
          [id],
        ),
      ]);
      // The reminders' next step is the first of the funnel not passed (plugins/reminders.ts), after their latest progress.
      const next = funnelSteps(flow()).find((step) => !passed.includes(step.recordedAs));
      const due = next
        ? remindersAhead(
            schedule,
            {
              next: next.step,
              lastProgress: row.last_activity_at,
              signedUpAt: row.signed_up_at,
              sent: state[0]!.sent,
              excluded: state[0]!.stopped || state[0]!.paused || row.status === 'rejected',
            },
            app.now(),
          ).map((ahead): TimelineEvent => ({ at: ahead.at.toISOString(), kind: 'reminderDue', label: next.label }))
        : [];
      await app.audit.record(request, { action: 'driver.timeline', driverId: row.id });
      return { driver: rowOf(row), events, due, reminders: state[0]!.stopped ? 'unsubscribed' : state[0]!.paused ? 'paused' : 'on' };
    },
  );

  app.get<{ Querystring: PeopleDownloadQuery }>(
    PEOPLE_ROUTES.download.url,
    {
      ...owners,
      schema: { querystring: { $ref: 'review#/$defs/peopleDownloadQuery' }, response: { 200: fileAnswer('The drivers that match, as CSV.', 'text/csv') } },
    },
    async (request, reply) => {
      const { query } = request;
      checkQuery(query);
      const { sql, values } = statement(query, { limit: null });
      const { rows } = await app.db.query<PeopleRow>(sql, values);
      await app.audit.record(request, { action: 'people.download', details: { ...query, ...(query.q && { q: 'given' }), rows: rows.length } });
      const lines = rows.map((row) => {
        const driver = rowOf(row);
        return CSV_COLUMNS.map((column) => csvField(driver[column])).join(',');
      });
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="onramp-drivers-${app.now().toISOString().slice(0, 10)}.csv"`)
        .send(`${[CSV_COLUMNS.join(','), ...lines].join('\r\n')}\r\n`);
    },
  );

  /** Each action on one driver (whose row is known to exist): done, and in the audit record, or a refusal that says why not. */
  const act: { [Kind in PeopleAction['kind']]: (request: FastifyRequest, driverId: string, action: Extract<PeopleAction, { kind: Kind }>) => Promise<void> } = {
    async resumeLink(request, driverId, { channel }) {
      const { rows } = await app.db.query<{ email_verified: boolean; textable: boolean }>(
        `SELECT email_verified_at IS NOT NULL AS email_verified, phone_verified_at IS NOT NULL AND sms_opted_out_at IS NULL AS textable
         FROM drivers WHERE id = $1`,
        [driverId],
      );
      // A link gives a session, and a session is what a verified email code gives: never before it (routes/admin.ts).
      if (!rows[0]!.email_verified) throw refusal(409, 'staff.driverEmailNotVerified');
      if (channel === 'sms' && !rows[0]!.textable) throw refusal(409, 'staff.noTextNumber');
      const { token, expiresAt } = await app.sessions.issueResume(driverId, RESUME_LINK_LIFETIME_MS);
      await app.db.transaction(async (tx) => {
        // The resume screen's route, /:id/:token, as the link a reviewer makes (routes/admin.ts): it signs them in once and takes them to their step.
        const resumeUrl = `${options.publicOrigin}/${driverId}/${encodeURIComponent(token)}`;
        await app.messaging.notify(tx, driverId, 'resumeLink', { resumeUrl, minutes: String(RESUME_LINK_LIFETIME_MS / 60_000) }, { channels: [channel] });
        await app.audit.record(request, { action: 'driver.resume-link-sent', driverId, details: { channel, expiresAt: expiresAt.toISOString() } }, tx);
      });
    },
    async remind(request, driverId) {
      await app.reminders.remindNow(driverId);
      await app.audit.record(request, { action: 'driver.remind', driverId });
    },
    pauseReminders: (request, driverId) => pause(request, driverId, true),
    resumeReminders: (request, driverId) => pause(request, driverId, false),
    async note(request, driverId, { text }) {
      await app.db.transaction(async (tx) => {
        await tx.query('INSERT INTO driver_notes (driver_id, staff_id, author, body, created_at) VALUES ($1, $2, $3, $4, $5)', [
          driverId,
          request.staff!.id,
          request.staff!.email,
          text.trim(),
          app.now(),
        ]);
        // That a note was added, never what it says.
        await app.audit.record(request, { action: 'driver.note', driverId }, tx);
      });
    },
  };

  async function pause(request: FastifyRequest, driverId: string, paused: boolean) {
    await app.db.transaction(async (tx) => {
      await tx.query('UPDATE drivers SET reminders_paused_at = CASE WHEN $2 THEN coalesce(reminders_paused_at, $3) END WHERE id = $1', [
        driverId,
        paused,
        app.now(),
      ]);
      // Resumed, the reminders pass looks at them at its next run (it stopped looking at a paused driver).
      if (!paused) await tx.query("UPDATE driver_progress SET remind_check_at = '-infinity' WHERE driver_id = $1", [driverId]);
      await app.audit.record(request, { action: paused ? 'driver.reminders-pause' : 'driver.reminders-resume', driverId }, tx);
    });
  }

  /** Does `action` to the driver `id` names, after checking there is one (404). */
  async function actOn(request: FastifyRequest, id: string, action: PeopleAction): Promise<void> {
    const row = await personOf(id);
    await (act[action.kind] as (request: FastifyRequest, driverId: string, action: PeopleAction) => Promise<void>)(request, row.id, action);
  }

  type OnDriver<Body = undefined> = { Params: { id: string } } & (Body extends undefined ? object : { Body: Body });
  const done = { 200: { $ref: 'api#/$defs/done' } };
  app.post<OnDriver<ResumeLinkBody>>(
    PEOPLE_ROUTES.resumeLink.url,
    { ...readers, schema: { body: { $ref: 'review#/$defs/resumeLinkBody' }, response: done } },
    async (request) => {
      await actOn(request, request.params.id, { kind: 'resumeLink', channel: request.body.channel });
      return { success: true };
    },
  );
  app.post<OnDriver>(PEOPLE_ROUTES.remind.url, { ...readers, schema: { response: done } }, async (request) => {
    await actOn(request, request.params.id, { kind: 'remind' });
    return { success: true };
  });
  app.post<OnDriver<RemindersBody>>(
    PEOPLE_ROUTES.reminders.url,
    { ...readers, schema: { body: { $ref: 'review#/$defs/remindersBody' }, response: done } },
    async (request) => {
      await actOn(request, request.params.id, { kind: request.body.paused ? 'pauseReminders' : 'resumeReminders' });
      return { success: true };
    },
  );
  app.post<OnDriver<NoteBody>>(
    PEOPLE_ROUTES.note.url,
    { ...readers, schema: { body: { $ref: 'review#/$defs/noteBody' }, response: done } },
    async (request) => {
      await actOn(request, request.params.id, { kind: 'note', text: request.body.text });
      return { success: true };
    },
  );

  app.post<{ Body: BulkBody }>(
    PEOPLE_ROUTES.bulk.url,
    {
      ...owners,
      config: { ...owners.config, rateLimit: { max: BULK_REQUESTS_PER_MINUTE, timeWindow: 60_000 } },
      schema: { body: { $ref: 'review#/$defs/bulkBody' }, response: { 200: { $ref: 'review#/$defs/bulkAnswer' } } },
    },
    async (request): Promise<BulkAnswer> => {
      const results: BulkAnswer['results'] = [];
      // One driver after another: a bulk request is no more load than its drivers' actions one by one.
      for (const id of request.body.ids) {
        try {
          await actOn(request, id, request.body.action);
          results.push({ id, done: true });
        } catch (error) {
          // A refusal is this driver's answer; anything else is the server's fault, and the request's.
          if (!(error instanceof HttpError) || error.statusCode >= 500) throw error;
          results.push({ id, done: false, message: error.message });
        }
      }
      return { results };
    },
  );
}
