/**
 * The admin API (the spec leaves approval out, but without it nobody gets past the
 * wait): the review queue, paged and searchable; each driver's answers drawn from the steps'
 * schemas (lib/reviewView.ts) with their documents; approve; reject with a reason and fixes
 * field by field; and a resume link. Everything here is for staff with the reviewer role
 * (plugins/staffAuth.ts), and each opening of a driver or a document, each decision and each
 * resume link is written to the audit record (plugins/audit.ts). The answers' contract is
 * src/shared/review.ts.
 *
 * A team shares the queue: opening a waiting driver claims them for that reviewer for
 * CLAIM_LIFETIME_MS (opening again renews it). While the claim lasts the others see who has them
 * and can't decide on them (409); a decision or POST /drivers/:id/release ends it.
 *
 * Sensitive answers (SSN, account number) leave the server masked, as everywhere
 * (docs/architecture.md, "Security rules the code keeps").
 *
 * Over 300 lines on purpose: the queue (its query, cursor and SQL), the opening of a driver and
 * the decisions all read and write the claim (queue_claims, CLAIM_JOIN), which is what keeps two
 * reviewers from deciding on one driver; kept in one file, a change to the claim is made once.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  type ApproveBody,
  type FixRequest,
  type QueueDriver,
  type QueuePage,
  type QueueQuery,
  type PastDecision,
  type ReviewDriver,
  type RejectBody,
  type ReviewStatus,
} from '../../shared/review.js';
import type { ServerConfig } from '../config.js';
import { isUuid } from '../db/db.js';
import { answersOf } from '../lib/answers.js';
import { checkBodiesBySchema } from '../lib/bodySchemas.js';
import { fieldTitle, reviewedSteps, type ReviewFix } from '../lib/reviewView.js';
import { findUpload, sendUpload, uploadAnswer } from '../lib/uploadFiles.js';
import { expiredByDriver } from './expiries.js';
import { ADMIN_PREFIX, type RouteTable } from '../lib/routeTable.js';
import { refusal } from '../serverMessages.js';

/** The review's routes (lib/routeTable.ts). */
export const ADMIN_ROUTES = {
  queue: { method: 'GET', url: `${ADMIN_PREFIX}/drivers` },
  driver: { method: 'GET', url: `${ADMIN_PREFIX}/drivers/:id` },
  approve: { method: 'POST', url: `${ADMIN_PREFIX}/drivers/:id/approve` },
  reject: { method: 'POST', url: `${ADMIN_PREFIX}/drivers/:id/reject` },
  release: { method: 'POST', url: `${ADMIN_PREFIX}/drivers/:id/release` },
  resumeLink: { method: 'POST', url: `${ADMIN_PREFIX}/drivers/:id/resume-link` },
  upload: { method: 'GET', url: `${ADMIN_PREFIX}/uploads/:uploadId` },
} as const satisfies RouteTable;

/**
 * Resume links carry a token in an address, which ends up in chats and histories: it lives 15
 * minutes, is no session, and is good for one GET /driver/status/:id, which trades it for a
 * session (plugins/sessions.ts).
 */
export const RESUME_LINK_LIFETIME_MS = 15 * 60 * 1000;

/** How long opening a waiting driver keeps them for the reviewer: long enough to look at every document. */
export const CLAIM_LIFETIME_MS = 15 * 60 * 1000;

/** The queue's page size unless asked otherwise (the most a page may hold is the query's contract). */
export const DEFAULT_PAGE_SIZE = 50;

interface QueueRow {
  id: string;
  email: string;
  phone: string | null;
  name: string | null;
  provider: string;
  status: ReviewStatus;
  rejection_reason: string | null;
  review_version: number;
  is_session_complete: boolean;
  is_subscription_paid: boolean;
  created_at: Date;
  submitted_at: Date | null;
  claimed_by: string | null;
  claim_staff_id: string | null;
  claim_expires_at: Date | null;
}

/** A driver's live claim and who holds it ($n: now), joined to a driver row `d`. */
const CLAIM_COLUMNS = 'cs.email AS claimed_by, qc.staff_id AS claim_staff_id, qc.expires_at AS claim_expires_at';
const CLAIM_JOIN = (now: string) => `LEFT JOIN queue_claims qc ON qc.driver_id = d.id AND qc.expires_at > ${now} LEFT JOIN staff cs ON cs.id = qc.staff_id`;

/**
 * A page of drivers in one review state, by submission time: the queue ("pending": those who
 * sent everything, oldest first), or the decided ones, latest first. Keyset paging on
 * (submitted_at, id) reads one index range (drivers_review_queue_idx), whatever the page. A
 * search matches the email or the name (any part, any case) or the phone's digits. The emails' trigram
 * index is no help to a search with an @ in it: its domain's trigrams are every address's at that
 * domain. Such a search looks for an email, not a name: its text before the @ ($8) ends the email's
 * local part (an email has one @), which the index of the local parts reversed finds as a prefix
 * (migration 028); the whole is matched as ILIKE would (lowered), where the trigrams can't be read instead.
 */
export const queueSql = (ascending: boolean) => `
  SELECT d.id, d.email, d.phone, d.provider, d.status, d.rejection_reason, d.review_version, d.is_session_complete,
    d.is_subscription_paid, d.created_at, d.submitted_at, d.review_name AS name,
    to_char(d.submitted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS submitted_key,
    ${CLAIM_COLUMNS}
  FROM drivers d ${CLAIM_JOIN('$7')}
  WHERE d.status = $1 AND d.submitted_at IS NOT NULL
    AND ($3::timestamptz IS NULL OR (d.submitted_at, d.id) ${ascending ? '>' : '<'} ($3::timestamptz, $4::uuid))
    AND ($5::text IS NULL
      OR ($8::text IS NULL AND d.email ILIKE $5)
      OR ($8::text IS NOT NULL AND reverse(split_part(lower(d.email), '@', 1)) LIKE $8 AND lower(d.email) LIKE lower($5))
      OR ($8::text IS NULL AND d.review_name ILIKE $5) OR ($6::text <> '' AND d.phone LIKE $6))
  ORDER BY d.submitted_at ${ascending ? 'ASC' : 'DESC'}, d.id ${ascending ? 'ASC' : 'DESC'}
  LIMIT $2`;

const ONE_DRIVER_SQL = `
  SELECT d.id, d.email, d.phone, d.provider, d.status, d.rejection_reason, d.review_version, d.is_session_complete,
    d.is_subscription_paid, d.created_at, d.submitted_at, d.email_verified_at IS NOT NULL AS email_verified, d.review_name AS name,
    ${CLAIM_COLUMNS}
  FROM drivers d ${CLAIM_JOIN('$2')} WHERE d.id = $1`;

const queueDriver = (row: QueueRow, staffId: string): QueueDriver => ({
  id: row.id,
  email: row.email,
  phone: row.phone,
  name: row.name,
  provider: row.provider,
  status: row.status,
  rejectionReason: row.rejection_reason,
  // What a decision must name: the data the reviewer saw (routes/driver.ts moves it on every change).
  reviewVersion: row.review_version,
  isSessionComplete: row.is_session_complete,
  isSubscriptionPaid: row.is_subscription_paid,
  createdAt: row.created_at.toISOString(),
  submittedAt: row.submitted_at?.toISOString() ?? null,
  ...(row.claimed_by &&
    row.claim_expires_at && {
      claim: { by: row.claimed_by, byMe: row.claim_staff_id === staffId, expiresAt: new Date(row.claim_expires_at).toISOString() },
    }),
});

/**
 * A page's cursor: the last row's time (its submission for the queue) and id, opaque to clients. The time to the
 * microsecond, as PostgreSQL keeps it (a Date's milliseconds would list a row twice, or skip one).
 */
export const cursorOf = (at: string, id: string) => Buffer.from(`${at}|${id}`).toString('base64url');

/** A cursor's time: UTC ISO 8601, a real date (JavaScript reads "1" or February 31 as a date; PostgreSQL refuses them). */
const CURSOR_TIME = /^[1-9]\d{3}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?Z$/;
const isCursorTime = (at: string) =>
  CURSOR_TIME.test(at) && !Number.isNaN(Date.parse(at)) && new Date(Date.parse(at)).toISOString().slice(0, 19) === at.slice(0, 19);

export function readCursor(cursor: string): { at: string; id: string } {
  const [at, id, extra] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (extra !== undefined || !at || !id || !isUuid(id) || !isCursorTime(at)) throw refusal(400, 'staff.badCursor');
  return { at, id };
}

/** A LIKE pattern's text, its wildcards taken literally. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

/**
 * A search as ILIKE/LIKE patterns: the text anywhere, its digits in the phone, and for a search with
 * an @ after some text, that text reversed as the start of the email's local part reversed (null: none).
 */
function searchPatterns(search: string | null): [string | null, string, string | null] {
  if (!search) return [null, '', null];
  const digits = search.replace(/\D/g, '');
  const local = search.split('@')[0]!;
  return [
    `%${likeLiteral(search)}%`,
    digits.length >= 3 ? `%${digits}%` : '',
    search.includes('@') && local ? `${likeLiteral(Array.from(local.toLowerCase()).reverse().join(''))}%` : null,
  ];
}

/** What a host may look like (name, IPv4, [IPv6], optional port): it is put into a link. */
const HOST_PATTERN = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** Where drivers open the app: PUBLIC_URL, or the origin this request came to. */
function publicOriginOf(config: ServerConfig, request: FastifyRequest): string {
  if (config.publicUrl) return config.publicUrl;
  const host = request.host;
  if (typeof host !== 'string' || !HOST_PATTERN.test(host)) throw refusal(400, 'staff.noHost');
  return `${request.protocol}://${host}`;
}

type DriverParams = { Params: { id: string } };

export async function adminRoutes(app: FastifyInstance, options: { config: ServerConfig }) {
  app.addHook('onRequest', app.requireStaff);
  checkBodiesBySchema(app);
  const reviewers = { config: { staffRoles: ['reviewer'] as const } };
  const flow = () => app.callReader.flow;

  /** The driver as the queue lists them (their claim as `request`'s reviewer sees it), or a 404 for an id that names nobody. */
  async function queuedDriver(id: string, request: FastifyRequest): Promise<QueueDriver & { isEmailVerified: boolean }> {
    if (!isUuid(id)) throw refusal(404, 'staff.unknownDriver');
    const { rows } = await app.db.query<QueueRow & { email_verified: boolean }>(ONE_DRIVER_SQL, [id, app.now()]);
    const row = rows[0];
    if (!row) throw refusal(404, 'staff.unknownDriver');
    return { ...queueDriver(row, request.staff!.id), isEmailVerified: row.email_verified };
  }

  /**
   * Claims a waiting driver for the reviewer, or renews their own claim; another reviewer's live
   * claim stays. One statement, so two reviewers opening one driver at once can't both have it.
   */
  async function claim(driverId: string, staffId: string): Promise<void> {
    const now = app.now();
    await app.db.query(
      `INSERT INTO queue_claims (driver_id, staff_id, claimed_at, expires_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (driver_id) DO UPDATE SET staff_id = EXCLUDED.staff_id, claimed_at = EXCLUDED.claimed_at, expires_at = EXCLUDED.expires_at
       WHERE queue_claims.staff_id = EXCLUDED.staff_id OR queue_claims.expires_at <= EXCLUDED.claimed_at`,
      [driverId, staffId, now, new Date(now.getTime() + CLAIM_LIFETIME_MS)],
    );
  }

  /** Every past decision on the driver, with who made it. */
  async function decisionsOf(driverId: string): Promise<PastDecision[]> {
    const { rows } = await app.db.query<{ decision: PastDecision['decision']; reason: string | null; reviewed_by: string; reviewed_at: Date }>(
      'SELECT decision, reason, reviewed_by, reviewed_at FROM driver_reviews WHERE driver_id = $1 ORDER BY reviewed_at, id',
      [driverId],
    );
    return rows.map((row) => ({ decision: row.decision, reason: row.reason, by: row.reviewed_by, at: new Date(row.reviewed_at).toISOString() }));
  }

  /** The fixes asked of the driver and not yet sent. */
  async function fixesOf(driverId: string): Promise<ReviewFix[]> {
    const { rows } = await app.db.query<ReviewFix>('SELECT step, field, reason FROM review_fixes WHERE driver_id = $1 ORDER BY step, field', [driverId]);
    return rows;
  }

  /** Every fix must name a field of a reviewed step the driver sent. Answers each fix as the driver reads it: "Last Name: …". */
  async function checkFixes(driverId: string, fixes: FixRequest[]): Promise<string[]> {
    if (fixes.length === 0) return [];
    const stored = await answersOf(app.db, driverId);
    return fixes.map((fix) => {
      const step = flow().review.steps.includes(fix.step) ? stored.find((candidate) => candidate.step === fix.step) : undefined;
      const sent = step && (Object.hasOwn(step.answers, fix.field) || Object.hasOwn(step.files, fix.field));
      if (!sent) throw refusal(400, 'staff.fixUnknown', { step: fix.step, field: fix.field });
      return `${fieldTitle(step.schemaName, fix.field)}: ${fix.reason}`;
    });
  }

  /**
   * Records a decision on the driver and in the review history, in one transaction, provided the
   * driver's data is still the version the reviewer saw. What the reviewer saw is kept, so the
   * next review shows what changed since.
   */
  async function decide(request: FastifyRequest<DriverParams & { Body: ApproveBody | RejectBody }>, decision: 'approved' | 'rejected') {
    // The body was checked by the route's schema first: a bad request is a bad request whoever it names.
    const body: RejectBody = request.body;
    // A reason as a person types it: trimmed; none when only spaces (the schema asks for a reason or fixes).
    const reason = body.reason?.trim() || null;
    const fixes = (body.fixes ?? []).map((fix) => ({ ...fix, reason: fix.reason.trim() }));
    const { reviewVersion } = body;
    const staff = request.staff!;
    const driver = await queuedDriver(request.params.id, request);
    // Nothing to judge before the vehicle and its documents were sent.
    if (!driver.isSessionComplete) throw refusal(409, 'staff.notSubmitted');
    const fixesTold = await checkFixes(driver.id, fixes);
    const now = app.now();
    // What the driver is told (the notice, the history): the reason and the fixes in words, each
    // field by its title. The status keeps the reason alone: the fixes are listed beside it.
    const told = [reason, ...fixesTold].filter(Boolean).join('\n');
    await app.db.transaction(async (tx) => {
      // Another reviewer's live claim: theirs to decide (locked, so a claim can't be taken meanwhile).
      const { rows: claims } = await tx.query<{ staff_id: string; email: string; expires_at: Date }>(
        `SELECT qc.staff_id, st.email, qc.expires_at FROM queue_claims qc JOIN staff st ON st.id = qc.staff_id
         WHERE qc.driver_id = $1 AND qc.expires_at > $2 FOR UPDATE OF qc`,
        [driver.id, now],
      );
      const held = claims[0];
      if (held && held.staff_id !== staff.id) {
        throw refusal(409, 'staff.claimedBy', { email: held.email, time: new Date(held.expires_at).toISOString().slice(11, 16) });
      }
      const decided = await tx.query(
        `UPDATE drivers SET status = $2, rejection_reason = $3, reviewed_at = $4, reviewed_by = $5, updated_at = $4
         WHERE id = $1 AND review_version = $6 RETURNING id`,
        [driver.id, decision, reason, now, staff.email, reviewVersion],
      );
      if (decided.rows.length === 0) throw refusal(409, 'staff.changedSince');
      await tx.query(
        `INSERT INTO driver_reviews (driver_id, decision, reason, reviewed_by, reviewed_at, sent_at, fixes)
         SELECT $1, $2, $3, $4, $5, submitted_at, $6 FROM drivers WHERE id = $1`,
        [driver.id, decision, decision === 'rejected' ? told : null, staff.email, now, JSON.stringify(fixes)],
      );
      await tx.query('DELETE FROM queue_claims WHERE driver_id = $1', [driver.id]);
      await app.audit.record(
        request,
        {
          action: decision === 'approved' ? 'driver.approve' : 'driver.reject',
          driverId: driver.id,
          details: { reviewVersion, ...(decision === 'rejected' && { reason, fixes: fixes.map((fix) => `${fix.step}.${fix.field}`) }) },
        },
        tx,
      );
      await tx.query("UPDATE step_answers SET reviewed = jsonb_build_object('answers', answers, 'files', files) WHERE driver_id = $1", [driver.id]);
      await tx.query('DELETE FROM review_fixes WHERE driver_id = $1', [driver.id]);
      for (const fix of fixes) {
        await tx.query('INSERT INTO review_fixes (driver_id, step, field, reason) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [
          driver.id,
          fix.step,
          fix.field,
          fix.reason,
        ]);
      }
      await app.webhooks.emit(tx, driver.id, decision === 'approved' ? 'driver.approved' : 'driver.rejected', { reviewVersion });
      if (fixes.length > 0)
        await app.webhooks.emit(tx, driver.id, 'driver.fix.asked', { by: 'reviewer', fixes: fixes.map(({ step, field }) => ({ step, field })) });
      // The driver is told with the decision: both stand or neither does.
      if (decision === 'approved') await app.messaging.notify(tx, driver.id, 'approved', {});
      else await app.messaging.notify(tx, driver.id, 'rejected', { reason: told });
    });
    return { success: true, status: decision };
  }

  app.get<{ Querystring: QueueQuery }>(
    ADMIN_ROUTES.queue.url,
    { ...reviewers, schema: { querystring: { $ref: 'review#/$defs/queueQuery' }, response: { 200: { $ref: 'review#/$defs/queuePage' } } } },
    async (request): Promise<QueuePage> => {
      const { status = 'pending', limit = DEFAULT_PAGE_SIZE, after, q } = request.query;
      const query = { status, limit, after: after ? readCursor(after) : null };
      const [textPattern, digitsPattern, localPattern] = searchPatterns(q?.trim() || null);
      // One more than the page: whether there is a next page, without counting.
      const { rows } = await app.db.query<QueueRow & { submitted_key: string }>(queueSql(query.status === 'pending'), [
        query.status,
        query.limit + 1,
        query.after?.at ?? null,
        query.after?.id ?? null,
        textPattern,
        digitsPattern,
        app.now(),
        localPattern,
      ]);
      const page = rows.slice(0, query.limit);
      const expired = await expiredByDriver(
        app.db,
        page.map((row) => row.id),
        app.now(),
      );
      return {
        drivers: page.map((row) => ({ ...queueDriver(row, request.staff!.id), ...(expired.has(row.id) && { expired: expired.get(row.id) }) })),
        next: rows.length > query.limit ? cursorOf(page[page.length - 1]!.submitted_key, page[page.length - 1]!.id) : null,
      };
    },
  );

  /**
   * One driver with every step they sent, drawn from its schema, their documents and the past
   * decisions (the admin command reads the review version here). A waiting driver is claimed.
   */
  app.get<DriverParams>(
    ADMIN_ROUTES.driver.url,
    { ...reviewers, schema: { response: { 200: { $ref: 'review#/$defs/reviewDriver' } } } },
    async (request): Promise<ReviewDriver> => {
      const found = await queuedDriver(request.params.id, request);
      const waiting = found.status === 'pending' && found.isSessionComplete;
      if (waiting) await claim(found.id, request.staff!.id);
      await app.audit.record(request, { action: 'driver.open', driverId: found.id });
      const { isEmailVerified: _verified, ...driver } = waiting ? await queuedDriver(found.id, request) : found;
      const stored = await answersOf(app.db, driver.id);
      const { rows: uploads } = await app.db.query<{ id: string; mime: string }>('SELECT id, mime FROM uploads WHERE driver_id = $1', [driver.id]);
      const mimes = new Map(uploads.map((upload) => [upload.id, upload.mime]));
      const steps = reviewedSteps(flow(), stored, await fixesOf(driver.id), {
        url: (uploadId) => `${ADMIN_PREFIX}/uploads/${uploadId}`,
        mime: (uploadId) => mimes.get(uploadId) ?? 'application/octet-stream',
      });
      return { ...driver, steps, decisions: await decisionsOf(driver.id) };
    },
  );

  app.post<DriverParams & { Body: ApproveBody }>(
    ADMIN_ROUTES.approve.url,
    { ...reviewers, schema: { body: { $ref: 'review#/$defs/approveBody' }, response: { 200: { $ref: 'api#/$defs/decided' } } } },
    async (request) => decide(request, 'approved'),
  );

  app.post<DriverParams & { Body: RejectBody }>(
    ADMIN_ROUTES.reject.url,
    { ...reviewers, schema: { body: { $ref: 'review#/$defs/rejectBody' }, response: { 200: { $ref: 'api#/$defs/decided' } } } },
    async (request) => decide(request, 'rejected'),
  );

  /** The reviewer lets a driver they opened go back to the team. */
  app.post<DriverParams>(ADMIN_ROUTES.release.url, { ...reviewers, schema: { response: { 200: { $ref: 'api#/$defs/done' } } } }, async (request) => {
    const driver = await queuedDriver(request.params.id, request);
    const { rows } = await app.db.query('DELETE FROM queue_claims WHERE driver_id = $1 AND staff_id = $2 RETURNING driver_id', [driver.id, request.staff!.id]);
    if (rows.length > 0) await app.audit.record(request, { action: 'driver.release', driverId: driver.id });
    return { success: true };
  });

  app.post<DriverParams>(ADMIN_ROUTES.resumeLink.url, { ...reviewers, schema: { response: { 200: { $ref: 'api#/$defs/resumeLink' } } } }, async (request) => {
    const driver = await queuedDriver(request.params.id, request);
    // A link gives a session, and a session is what a verified email code gives: never before it.
    if (!driver.isEmailVerified) throw refusal(409, 'staff.driverEmailNotVerified');
    const origin = publicOriginOf(options.config, request);
    const { token, expiresAt } = await app.sessions.issueResume(driver.id, RESUME_LINK_LIFETIME_MS);
    await app.audit.record(request, { action: 'driver.resume-link', driverId: driver.id, details: { expiresAt: expiresAt.toISOString() } });
    // The resume screen's route, /:id/:token (spec §2): the token URL-encoded.
    return { url: `${origin}/${driver.id}/${encodeURIComponent(token)}`, expiresAt: expiresAt.toISOString() };
  });

  app.get<{ Params: { uploadId: string } }>(ADMIN_ROUTES.upload.url, { ...reviewers, ...uploadAnswer }, async (request, reply) => {
    const upload = await findUpload(app, request.params.uploadId);
    await app.audit.record(request, { action: 'document.open', driverId: upload.driverId, details: { uploadId: upload.id } });
    return sendUpload(app, reply, upload);
  });
}
