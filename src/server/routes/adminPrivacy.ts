/**
 * Data-access requests and erasure, for staff with the privacy-officer role
 * who signed in at most 5 minutes ago (plugins/staffAuth.ts; a key never is fresh):
 *
 * - GET /admin/drivers/:id/export: everything the server keeps of one driver, as a zip for the
 *   driver: their account, their answers in clear (sensitive ones opened: it is their own data),
 *   their photos and documents, the review decisions, the notices sent, the notes staff wrote
 *   about them and the subscription.
 * - POST /admin/drivers/:id/erase `{ "confirm": "<the driver's email>" }`: the driver's rows,
 *   files, sessions, codes and lockouts, and their Firebase account, are removed. Payment records
 *   are kept, detached from the person (retained_payment_records, migration 008), as tax and
 *   accounting rules require.
 *
 * - GET /admin/privacy/lookup?q=<email or phone>: the driver a request is about, by their whole
 *   email or phone number (exactly: a privacy officer has no list to browse). Every lookup is in the
 *   audit record, with whether someone was found, never what was asked.
 *
 * Export and erasure are recorded in privacy_requests and the audit record with who did it (the staff member)
 * and counts, never anything of the person.
 *
 * Over 300 lines on purpose: the export and the erasure read the same list of a driver's tables
 * (DRIVER_TABLES) and must change together when a migration adds one; apart, a new table could be
 * erased but not exported, or the other way round.
 */
import { HttpError } from '@fastify/sensible';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import { fileAnswer } from '../lib/routeSchemas.js';
import { strToU8, zipSync, type Zippable } from 'fflate';
import { isUuid, type Queryable } from '../db/db.js';
import type { EraseBody, PrivacyLookup, PrivacyLookupQuery, ReviewStatus } from '../../shared/review.js';
import { answersOf, openAnswers, type StoredAnswers } from '../lib/answers.js';
import { checkBodiesBySchema } from '../lib/bodySchemas.js';
import type { Channel } from '../messaging/delivery.js';
import { subjectsOf } from '../plugins/otpCodes.js';
import type { AuditActor } from '../lib/auditRecord.js';
import { queueFileRemovals, removeQueuedFiles } from '../lib/fileRemovals.js';
import { searchOf } from './people.js';
import { ADMIN_PREFIX, type RouteTable } from '../lib/routeTable.js';
import { refusal } from '../serverMessages.js';

/** A driver's data, exported and erased (lib/routeTable.ts). */
export const ADMIN_PRIVACY_ROUTES = {
  export: { method: 'GET', url: `${ADMIN_PREFIX}/drivers/:id/export` },
  erase: { method: 'POST', url: `${ADMIN_PREFIX}/drivers/:id/erase` },
  lookup: { method: 'GET', url: `${ADMIN_PREFIX}/privacy/lookup` },
} as const satisfies RouteTable;

/**
 * Every table that holds rows of a driver (each has a driver_id, or a subject naming the driver):
 * after an erasure they are rewritten, so the deleted rows leave the database's files too and not
 * only its answers. Each has a primary key `<table>_pkey` to rewrite it by.
 */
const DRIVER_TABLES = [
  'drivers',
  'sessions',
  'otp_codes',
  'code_lockouts',
  'vehicles',
  'uploads',
  'step_answers',
  'review_fixes',
  'driver_reviews',
  'outgoing_notices',
  'reminders_sent',
  'document_notices_sent',
  'driver_progress',
  'subscriptions',
  'driver_notes',
] as const;

/** The extension a stored document gets in an export: the server re-encodes every upload as one of these. */
export function extensionOf(mime: string): string {
  switch (mime) {
    case 'image/jpeg':
      return 'jpg';
    case 'image/png':
      return 'png';
    case 'image/webp':
      return 'webp';
    default:
      return 'bin';
  }
}

/** A step or field name as a path segment of the zip: names come from the flow, but a path is never built from anything else. */
const segment = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, '_') || '_';

interface DriverRow {
  id: string;
  email: string;
  phone: string | null;
  provider: string;
  firebase_uid: string;
  status: string;
  rejection_reason: string | null;
  referral_code: string | null;
  signup_ip: string | null;
  is_session_complete: boolean;
  is_subscription_paid: boolean;
  terms_accepted_at: Date | null;
  sms_consent_at: Date | null;
  email_verified_at: Date | null;
  phone_verified_at: Date | null;
  profile_completed_at: Date | null;
  submitted_at: Date | null;
  reviewed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

interface UploadRow {
  id: string;
  step: string;
  field: string;
  storage_name: string;
  mime: string;
  size: number;
  created_at: Date;
}

/** What the database keeps of a driver, read in one snapshot. */
async function recordsOf(tx: Queryable, driverId: string) {
  const driver = (
    await tx.query<DriverRow>(
      `SELECT id, email, phone, provider, firebase_uid, status, rejection_reason, referral_code, signup_ip, is_session_complete,
         is_subscription_paid, terms_accepted_at, sms_consent_at, email_verified_at, phone_verified_at, profile_completed_at,
         submitted_at, reviewed_at, created_at, updated_at
       FROM drivers WHERE id = $1`,
      [driverId],
    )
  ).rows[0];
  if (!driver) return null;
  const rows = async <T>(sql: string) => (await tx.query<T>(sql, [driverId])).rows;
  return {
    driver,
    answers: await answersOf(tx, driverId),
    uploads: await rows<UploadRow>(
      'SELECT id, step, field, storage_name, mime, size, created_at FROM uploads WHERE driver_id = $1 ORDER BY step, field, created_at',
    ),
    vehicles: await rows<{ id: string; submitted_at: Date | null; created_at: Date }>(
      'SELECT id, submitted_at, created_at FROM vehicles WHERE driver_id = $1 ORDER BY created_at',
    ),
    sessions: await rows<{ kind: string; created_at: Date; last_seen_at: Date; expires_at: Date }>(
      'SELECT kind, created_at, last_seen_at, expires_at FROM sessions WHERE driver_id = $1 ORDER BY created_at',
    ),
    reviews: await rows<{ decision: string; reason: string | null; reviewed_by: string; reviewed_at: Date }>(
      'SELECT decision, reason, reviewed_by, reviewed_at FROM driver_reviews WHERE driver_id = $1 ORDER BY reviewed_at, id',
    ),
    fixes: await rows<{ step: string; field: string; reason: string }>(
      'SELECT step, field, reason FROM review_fixes WHERE driver_id = $1 ORDER BY step, field',
    ),
    notices: await rows<{ notice: string; channel: string; status: string; created_at: Date; sent_at: Date | null }>(
      'SELECT notice, channel, status, created_at, sent_at FROM outgoing_notices WHERE driver_id = $1 ORDER BY created_at',
    ),
    notes: await rows<{ author: string; body: string; created_at: Date }>(
      'SELECT author, body, created_at FROM driver_notes WHERE driver_id = $1 ORDER BY created_at, id',
    ),
    subscription:
      (
        await rows<{
          customer_id: string | null;
          subscription_id: string | null;
          payment_intent_id: string | null;
          status: string;
          claimed_at: Date;
          updated_at: Date;
        }>('SELECT customer_id, subscription_id, payment_intent_id, status, claimed_at, updated_at FROM subscriptions WHERE driver_id = $1')
      )[0] ?? null,
  };
}

const jsonFile = (value: unknown): [Uint8Array, { level: 6 }] => [strToU8(`${JSON.stringify(value, null, 2)}\n`), { level: 6 }];

export async function adminPrivacyRoutes(app: FastifyInstance, options: { embeddedDatabase: boolean }) {
  app.addHook('onRequest', app.requireStaff);
  checkBodiesBySchema(app);
  const privacyOfficers = { config: { staffRoles: ['privacy-officer'] as const, freshSignIn: true } };

  // No fresh sign-in: a lookup finds whom a request is about; what is done with them asks for one.
  app.get<{ Querystring: PrivacyLookupQuery }>(
    ADMIN_PRIVACY_ROUTES.lookup.url,
    {
      config: { staffRoles: ['privacy-officer'] as const },
      schema: { querystring: { $ref: 'review#/$defs/privacyLookupQuery' }, response: { 200: { $ref: 'review#/$defs/privacyLookup' } } },
    },
    async (request): Promise<PrivacyLookup> => {
      const search = searchOf(request.query.q.trim());
      if ('text' in search) throw refusal(400, 'staff.wholeEmailOrPhone');
      const { rows } = await app.db.query<{ id: string; email: string; phone: string | null; name: string | null; status: ReviewStatus; created_at: Date }>(
        `SELECT id, email, phone, review_name AS name, status, created_at FROM drivers WHERE ${'email' in search ? 'email' : 'phone'} = $1 ORDER BY created_at, id`,
        ['email' in search ? search.email : search.phone],
      );
      await app.audit.record(request, { action: 'driver.lookup', details: { by: 'email' in search ? 'email' : 'phone', found: rows.length } });
      return {
        drivers: rows.map((row) => ({
          id: row.id,
          email: row.email,
          phone: row.phone,
          name: row.name,
          status: row.status,
          signedUpAt: row.created_at.toISOString(),
        })),
      };
    },
  );

  const exported = { schema: { response: { 200: fileAnswer('The driver’s data, as a ZIP archive.', 'application/zip') } } };
  app.get<{ Params: { id: string } }>(ADMIN_PRIVACY_ROUTES.export.url, { ...privacyOfficers, ...exported }, async (request, reply) => {
    const driverId = request.params.id;
    if (!isUuid(driverId)) throw refusal(404, 'staff.unknownDriver');
    // One consistent snapshot of the rows; the files are read after it (the store may be slow,
    // and a transaction must not wait on it).
    const records = await app.db.transaction(async (tx) => {
      await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
      return recordsOf(tx, driverId);
    });
    if (!records) throw refusal(404, 'staff.unknownDriver');
    const { driver } = records;
    const id = driver.id;

    const zip: Zippable = {};
    const taken = new Set<string>();
    /** Zip path of each upload (by id); images are compressed already, so they are stored as they are. */
    const pathOfUpload = new Map<string, string>();
    const missingFiles: { step: string; field: string }[] = [];
    for (const upload of records.uploads) {
      const bytes = await app.uploads.read(upload.storage_name);
      if (!bytes) {
        request.log.error({ uploadId: upload.id }, 'An upload row names a document the store does not have');
        missingFiles.push({ step: upload.step, field: upload.field });
        continue;
      }
      const base = `files/${segment(upload.step)}/${segment(upload.field)}`;
      const ext = extensionOf(upload.mime);
      let path = `${base}.${ext}`;
      for (let n = 2; taken.has(path); n++) path = `${base}-${n}.${ext}`;
      taken.add(path);
      pathOfUpload.set(upload.id, path);
      zip[path] = [new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), { level: 0 }];
    }
    const filesOf = (files: Record<string, string>) =>
      Object.fromEntries(Object.entries(files).map(([field, uploadId]) => [field, pathOfUpload.get(uploadId) ?? null]));
    const opened = (step: string, answers: StoredAnswers) => openAnswers(app.cipher, id, step, answers);

    zip['driver.json'] = jsonFile({
      id,
      email: driver.email,
      phone: driver.phone,
      provider: driver.provider,
      firebaseUid: driver.firebase_uid,
      status: driver.status,
      rejectionReason: driver.rejection_reason,
      referralCode: driver.referral_code,
      signupIp: driver.signup_ip,
      isSessionComplete: driver.is_session_complete,
      isSubscriptionPaid: driver.is_subscription_paid,
      termsAcceptedAt: driver.terms_accepted_at,
      smsConsentAt: driver.sms_consent_at,
      emailVerifiedAt: driver.email_verified_at,
      phoneVerifiedAt: driver.phone_verified_at,
      profileCompletedAt: driver.profile_completed_at,
      submittedAt: driver.submitted_at,
      reviewedAt: driver.reviewed_at,
      createdAt: driver.created_at,
      updatedAt: driver.updated_at,
      vehicles: records.vehicles.map((vehicle) => ({ id: vehicle.id, submittedAt: vehicle.submitted_at, createdAt: vehicle.created_at })),
      // When the driver was signed in; never the tokens or their hashes.
      sessions: records.sessions.map((session) => ({
        kind: session.kind,
        createdAt: session.created_at,
        lastSeenAt: session.last_seen_at,
        expiresAt: session.expires_at,
      })),
    });
    for (const step of records.answers) {
      zip[`answers/${segment(step.step)}.json`] = jsonFile({
        step: step.step,
        schemaName: step.schemaName,
        schemaVersion: step.schemaVersion,
        submittedAt: step.submittedAt,
        answers: opened(step.step, step.answers),
        files: filesOf(step.files),
        // What the last review decision saw, when there was one.
        reviewed: step.reviewed ? { answers: opened(step.step, step.reviewed.answers), files: filesOf(step.reviewed.files) } : null,
      });
    }
    zip['reviews.json'] = jsonFile({
      decisions: records.reviews.map((review) => ({
        decision: review.decision,
        reason: review.reason,
        reviewedBy: review.reviewed_by,
        reviewedAt: review.reviewed_at,
      })),
      fixesAsked: records.fixes,
    });
    zip['notices.json'] = jsonFile(
      records.notices.map((notice) => ({
        notice: notice.notice,
        channel: notice.channel,
        status: notice.status,
        createdAt: notice.created_at,
        sentAt: notice.sent_at,
      })),
    );
    zip['notes.json'] = jsonFile(records.notes.map((note) => ({ author: note.author, text: note.body, createdAt: note.created_at })));
    const subscription = records.subscription;
    zip['payments.json'] = jsonFile({
      subscription: subscription && {
        customerId: subscription.customer_id,
        subscriptionId: subscription.subscription_id,
        paymentIntentId: subscription.payment_intent_id,
        status: subscription.status,
        startedAt: subscription.claimed_at,
        updatedAt: subscription.updated_at,
      },
    });
    const exportedAt = app.now();
    zip['export.json'] = jsonFile({ driverId: id, exportedAt, missingFiles });
    const bytes = zipSync(zip, { mtime: exportedAt });

    const details = { answers: records.answers.length, files: pathOfUpload.size, missingFiles: missingFiles.length };
    await recordRequest(app, app.db, privacyActor(app, request), id, 'export', details);
    request.log.info({ driverId: id, doneBy: request.staff!.id, ...details }, 'Driver data exported');
    return reply
      .header('content-type', 'application/zip')
      .header('content-disposition', `attachment; filename="onramp-driver-${id}.zip"`)
      .header('cache-control', 'private, no-store')
      .send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  });

  app.post<{ Params: { id: string }; Body: EraseBody }>(
    ADMIN_PRIVACY_ROUTES.erase.url,
    { ...privacyOfficers, schema: { body: { $ref: 'review#/$defs/eraseBody' }, response: { 200: { $ref: 'api#/$defs/erased' } } } },
    async (request) => {
      // The body was checked by the route's schema first: a bad request is a bad request whoever it names.
      const confirm = request.body.confirm.trim();
      const driverId = request.params.id;
      if (!isUuid(driverId)) throw refusal(404, 'staff.unknownDriver');
      const found = (await app.db.query<{ email: string; firebase_uid: string }>('SELECT email, firebase_uid FROM drivers WHERE id = $1', [driverId])).rows[0];
      if (!found) throw refusal(404, 'staff.unknownDriver');
      // A guard against erasing the wrong id: whoever erases names the person too.
      if (confirm.toLowerCase() !== found.email.toLowerCase()) throw refusal(400, 'staff.confirmMismatch');

      const details = await eraseDriver(app, { id: driverId, firebaseUid: found.firebase_uid }, privacyActor(app, request), request.log);
      // Erased by another request meanwhile.
      if (!details) throw refusal(404, 'staff.unknownDriver');
      await purgeDeletedRows(app, request.log, options.embeddedDatabase);
      return { success: true, erased: { answers: details.answers, files: details.files, sessions: details.sessions } };
    },
  );
}

/** Who exports or erases: a privacy officer (named by email), or the retention pass (plugins/retention.ts). */
export type PrivacyActor = AuditActor & { actor: string };

const privacyActor = (app: FastifyInstance, request: FastifyRequest): PrivacyActor => ({ ...app.audit.actorOf(request), actor: request.staff!.email });

/** An export or erasure, in privacy_requests and the audit record: who did it and counts, never anything of the person. */
async function recordRequest(
  app: FastifyInstance,
  db: Queryable,
  by: PrivacyActor,
  driverId: string,
  action: 'export' | 'erase',
  details: Record<string, number>,
) {
  await db.query('INSERT INTO privacy_requests (driver_id, action, done_by, done_at, details) VALUES ($1, $2, $3, $4, $5)', [
    driverId,
    action,
    by.actor,
    app.now(),
    JSON.stringify(details),
  ]);
  await app.audit.recordAs(by, { action: action === 'export' ? 'driver.export' : 'driver.erase', driverId, details }, db);
}

/** What an erasure removed and kept, by count. */
export type Erased = {
  answers: number;
  sessions: number;
  codes: number;
  notices: number;
  reviews: number;
  vehicles: number;
  files: number;
  lockouts: number;
  paymentRecordsKept: number;
};

/**
 * Erases a driver: their Firebase account, then their rows (everything hangs on the driver's row),
 * their code lockouts and their documents, keeping their payment records apart from the person;
 * recorded in privacy_requests and the audit record, and told to webhooks (driver.erased). A
 * privacy officer's erasure and the retention pass's are this one. Answers null when the driver
 * is gone already (erased meanwhile). Deleted rows stay in the database's files until
 * purgeDeletedRows runs.
 */
export async function eraseDriver(
  app: FastifyInstance,
  driver: { id: string; firebaseUid: string },
  by: PrivacyActor,
  log: FastifyBaseLogger,
): Promise<Erased | null> {
  // The sign-in account first: if Firebase can't be reached nothing is erased and the erasure can
  // be tried again; if the database then fails, trying again finds the account gone (done) and
  // erases the rest. The other order could leave an account nobody knows about any more.
  try {
    await app.identity.deleteUser(driver.firebaseUid);
  } catch (error) {
    if (error instanceof HttpError && error.statusCode === 503) throw refusal(503, 'staff.eraseIdentityUnavailable');
    throw error;
  }

  const now = app.now();
  const erased = await app.db.transaction(async (tx) => {
    // Locked: a request of the driver still running can add no row (a file, a code) from here on.
    const found = (
      await tx.query<{ id: string; email: string; phone: string | null }>('SELECT id, email, phone FROM drivers WHERE id = $1 FOR UPDATE', [driver.id])
    ).rows[0];
    if (!found) return null;
    const id = found.id;
    const storageNames = (await tx.query<{ storage_name: string }>('SELECT storage_name FROM uploads WHERE driver_id = $1', [id])).rows.map(
      (row) => row.storage_name,
    );
    const counts = (
      await tx.query<{ answers: number; sessions: number; codes: number; notices: number; reviews: number; vehicles: number }>(
        `SELECT (SELECT count(*) FROM step_answers WHERE driver_id = $1)::int AS answers,
              (SELECT count(*) FROM sessions WHERE driver_id = $1)::int AS sessions,
              (SELECT count(*) FROM otp_codes WHERE driver_id = $1)::int AS codes,
              (SELECT count(*) FROM outgoing_notices WHERE driver_id = $1)::int AS notices,
              (SELECT count(*) FROM driver_reviews WHERE driver_id = $1)::int AS reviews,
              (SELECT count(*) FROM vehicles WHERE driver_id = $1)::int AS vehicles`,
        [id],
      )
    ).rows[0]!;
    // Code lockouts are keyed by a subject, not a driver_id (plugins/otpCodes.ts): the driver's
    // account on each channel, and each address the driver was sent codes at (an address is
    // the driver's data even after a change of phone).
    const { rows: targets } = await tx.query<{ channel: Channel; destination: string }>(
      'SELECT DISTINCT channel, destination FROM otp_codes WHERE driver_id = $1',
      [id],
    );
    targets.push({ channel: 'email', destination: found.email });
    if (found.phone) targets.push({ channel: 'sms', destination: found.phone });
    const subjects = [
      ...new Set(targets.flatMap((target) => subjectsOf({ driverId: id, channel: target.channel, destination: target.destination, purpose: 'verify' }))),
    ];
    const lockouts = await tx.query('DELETE FROM code_lockouts WHERE subject = ANY($1::text[]) RETURNING subject', [subjects]);
    // The payment records the law keeps, without the person (subscriptions go with the driver).
    const kept = await tx.query(
      `INSERT INTO retained_payment_records (driver_ref, customer_id, subscription_id, payment_intent_id, status, kept_at)
     SELECT driver_id, customer_id, subscription_id, payment_intent_id, status, $2 FROM subscriptions
     WHERE driver_id = $1 AND (customer_id IS NOT NULL OR subscription_id IS NOT NULL) RETURNING id`,
      [id, now],
    );
    const details: Erased = { ...counts, files: storageNames.length, lockouts: lockouts.rows.length, paymentRecordsKept: kept.rows.length };
    await recordRequest(app, tx, by, id, 'erase', details);
    await app.webhooks.forget(tx, id);
    // The files no row will name any more, written down before the rows go.
    await queueFileRemovals(tx, storageNames, now);
    // Everything else of the driver goes with the row (ON DELETE CASCADE, migrations 001-007).
    await tx.query('DELETE FROM drivers WHERE id = $1', [id]);
    return { storageNames, details };
  });
  if (!erased) return null;

  // Committed: the files. One that can't be removed now stays written down, for the next retention pass.
  const { left } = await removeQueuedFiles(app.db, app.uploads, erased.storageNames);
  if (left > 0) log.warn({ driverId: driver.id, notRemoved: left }, 'Files of an erased driver could not be removed now: the next retention pass removes them');
  log.info({ driverId: driver.id, doneBy: by.staffId ?? by.actor, ...erased.details }, 'Driver erased');
  return erased.details;
}

/**
 * A deleted row stays in the table's pages until they are rewritten, and in the write-ahead log
 * until its segments go: the database would still hold the erased driver's email and name in its
 * files. Each of the driver's tables is rewritten without the dead rows, after the commit (neither
 * command can run inside a transaction; each locks its table for the moment it takes).
 *
 * CLUSTER rather than VACUUM FULL: both rewrite the table and its indexes and TOAST with the live
 * rows only, but in PGlite (0.3) a second VACUUM FULL of a table with a column added with a default
 * (drivers.review_version, sessions.kind, otp_codes.purpose) fails with "tuple concurrently deleted"
 * until the process restarts (VACUUM FULL clears the column's stored default and leaves a stale
 * catalog cache behind), and CLUSTER does not (tests/server/routes/adminPrivacy.test.ts erases several times).
 *
 * The embedded database (PGlite, in DATA_DIR) then starts a new WAL segment and checkpoints with
 * recycling off, so the segments that held the rows are deleted, not kept for reuse. On a
 * PostgreSQL server the WAL, its archive and backups are the database's own retention (docs/operations.md, "Data-access requests and erasure").
 * Best effort: a failure is logged, and the erasure stands.
 */
export async function purgeDeletedRows(app: FastifyInstance, log: FastifyBaseLogger, embeddedDatabase: boolean): Promise<void> {
  for (const table of DRIVER_TABLES) {
    try {
      await app.db.query(`CLUSTER ${table} USING ${table}_pkey`);
    } catch (error) {
      log.warn({ table, error: (error as Error).message }, 'Rewriting a table after an erasure failed: deleted rows stay in its pages until the next erasure');
    }
  }
  if (!embeddedDatabase) return;
  try {
    await app.db.query('SET wal_recycle = off');
    await app.db.query('SELECT pg_switch_wal()');
    await app.db.query('CHECKPOINT');
  } catch (error) {
    log.warn({ error: (error as Error).message }, 'The write-ahead log could not be cleared after an erasure');
  } finally {
    await app.db
      .query('RESET wal_recycle')
      .catch((error: unknown) => log.warn({ error: (error as Error).message }, 'wal_recycle could not be reset after an erasure'));
  }
}
