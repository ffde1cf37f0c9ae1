/**
 * The admin API (issue 3; the spec leaves approval out, but without it nobody gets past the
 * wait): the review queue with each driver's profile, vehicle and documents, approve, reject
 * with a reason, and a resume link. Everything here needs ADMIN_TOKEN (plugins/adminAuth.ts).
 *
 * Only the SSN's last four digits leave the server, as everywhere (DESIGN §5).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerConfig } from '../config.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { isUuid } from '../db/db.js';
import { findUpload, sendUpload } from '../lib/uploadFiles.js';

/** Where the admin API lives; the browser page is exactly /admin (see lib/apiPaths.ts). */
export const ADMIN_PREFIX = '/admin';

/**
 * Resume links carry a token in an address, which ends up in chats and histories: it lives 15
 * minutes, is no session, and is good for one GET /driver/status/:id, which trades it for a
 * session (plugins/sessions.ts).
 */
export const RESUME_LINK_LIFETIME_MS = 15 * 60 * 1000;

export const MAX_REJECTION_REASON_LENGTH = 500;

export const REVIEW_STATUSES = ['pending', 'approved', 'rejected'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

export const ADMIN_MESSAGES = {
  badStatus: `status must be one of: ${REVIEW_STATUSES.join(', ')}.`,
  unknownQuery: 'Unknown query parameter: ',
  unknownDriver: 'There is no driver with this id.',
  notSubmitted: 'This driver has not sent their vehicle for approval yet.',
  bodyNotObject: 'The request body must be a JSON object.',
  unknownField: 'Unknown field: ',
  reasonRequired: 'Please give a reason for the rejection.',
  reasonNotText: 'The reason must be text.',
  reasonTooLong: `The reason must be at most ${MAX_REJECTION_REASON_LENGTH} characters.`,
  reasonControl: 'The reason must be plain text.',
  versionRequired: 'reviewVersion must be the reviewVersion of the driver as listed (a whole number).',
  emailNotVerified: 'This driver has not verified their email yet: they can finish signing up, or sign in, at the sign-up page.',
  changedSince: 'This driver changed their details after you opened them. Reload the list to review what they sent.',
  noHost: 'The request has no usable Host header: set PUBLIC_URL so resume links have an address.',
} as const;

interface ListedRow {
  id: string;
  email: string;
  phone: string | null;
  provider: string;
  status: ReviewStatus;
  rejection_reason: string | null;
  review_version: number;
  is_session_complete: boolean;
  is_subscription_paid: boolean;
  created_at: Date;
  profile_completed_at: Date | null;
  first_name: string | null;
  last_name: string | null;
  middle_initial: string | null;
  suffix: string | null;
  date_of_birth: string | null;
  gender: string | null;
  ssn_last4: string | null;
  driver_license_number: string | null;
  street: string | null;
  city: string | null;
  state: string | null;
  zip_code: string | null;
  vehicle_id: string | null;
  make: string | null;
  model: string | null;
  year: number | null;
  plate: string | null;
  wheelchair: boolean | null;
  driver_license_expiry: string | null;
  registration_expiry: string | null;
  insurance_expiry: string | null;
  submitted_at: Date | null;
  bank_holder: string | null;
  bank_last4: string | null;
  bank_routing: string | null;
}

interface UploadRow {
  id: string;
  driver_id: string;
  vehicle_id: string | null;
  field: string;
  mime: string;
  size: number;
}

/**
 * The drivers in one review state with the vehicle they last sent. "pending" is the review
 * queue: only drivers who sent their vehicle (the others are still filling in forms), oldest
 * submission first. Decided drivers come most recently decided first. Dates are formatted in
 * SQL so no time zone can shift a date of birth.
 */
const LIST_SQL = `
  SELECT d.id, d.email, d.phone, d.provider, d.status, d.rejection_reason, d.review_version, d.is_session_complete, d.is_subscription_paid,
    d.created_at, d.profile_completed_at, d.first_name, d.last_name, d.middle_initial, d.suffix,
    to_char(d.date_of_birth, 'YYYY-MM-DD') AS date_of_birth, d.gender, d.ssn_last4, d.driver_license_number,
    d.street, d.city, d.state, d.zip_code,
    v.id AS vehicle_id, v.make, v.model, v.year, v.plate, v.wheelchair,
    to_char(v.driver_license_expiry, 'YYYY-MM-DD') AS driver_license_expiry,
    to_char(v.registration_expiry, 'YYYY-MM-DD') AS registration_expiry,
    to_char(v.insurance_expiry, 'YYYY-MM-DD') AS insurance_expiry, v.submitted_at,
    b.account_holder_name AS bank_holder, b.account_number_last4 AS bank_last4, b.routing_number AS bank_routing
  FROM drivers d
  LEFT JOIN bank_accounts b ON b.driver_id = d.id
  LEFT JOIN LATERAL (
    SELECT * FROM vehicles WHERE driver_id = d.id AND submitted_at IS NOT NULL ORDER BY submitted_at DESC LIMIT 1
  ) v ON true
  WHERE ($2::uuid IS NULL AND d.status = $1::text AND ($1::text <> 'pending' OR d.is_session_complete)) OR d.id = $2::uuid
  ORDER BY CASE WHEN $1::text = 'pending' THEN v.submitted_at END ASC, d.reviewed_at DESC NULLS LAST, d.created_at ASC`;

function listedDriver(row: ListedRow, uploads: UploadRow[]) {
  return {
    id: row.id,
    email: row.email,
    phone: row.phone,
    provider: row.provider,
    status: row.status,
    rejectionReason: row.rejection_reason,
    // What a decision must name: the data the reviewer saw (routes/driver.ts moves it on every change).
    reviewVersion: row.review_version,
    isSessionComplete: row.is_session_complete,
    isSubscriptionPaid: row.is_subscription_paid,
    createdAt: row.created_at,
    profile: row.profile_completed_at
      ? {
          firstName: row.first_name,
          lastName: row.last_name,
          MI: row.middle_initial,
          suffix: row.suffix,
          dateOfBirth: row.date_of_birth,
          gender: row.gender,
          ssnMasked: row.ssn_last4 ? `***-**-${row.ssn_last4}` : null,
          driverLicenseNumber: row.driver_license_number,
          street: row.street,
          city: row.city,
          state: row.state,
          zipCode: row.zip_code,
        }
      : null,
    vehicle: row.vehicle_id
      ? {
          id: row.vehicle_id,
          make: row.make,
          model: row.model,
          year: row.year,
          plate: row.plate,
          wheelchair: row.wheelchair === true,
          driverLicenseExpiry: row.driver_license_expiry,
          registrationExpiry: row.registration_expiry,
          insuranceExpiry: row.insurance_expiry,
          submittedAt: row.submitted_at,
        }
      : null,
    // The payout account: never its number, which only the payout itself may decrypt.
    bank: row.bank_last4
      ? { accountHolderName: row.bank_holder, accountNumberMasked: `••••${row.bank_last4}`, routingNumber: row.bank_routing }
      : null,
    // The profile's files and the sent vehicle's; photos of vehicles never sent are not under review.
    documents: uploads
      .filter((upload) => upload.driver_id === row.id && (upload.vehicle_id === null || upload.vehicle_id === row.vehicle_id))
      .map((upload) => ({ id: upload.id, field: upload.field, mime: upload.mime, size: upload.size, url: `${ADMIN_PREFIX}/uploads/${upload.id}` })),
  };
}

function reviewStatusOf(query: unknown): ReviewStatus {
  const params = (query ?? {}) as Record<string, unknown>;
  const unknown = Object.keys(params).find((key) => key !== 'status');
  if (unknown !== undefined) throw badRequest(`${ADMIN_MESSAGES.unknownQuery}${unknown}`);
  const status = params.status ?? 'pending';
  if (typeof status !== 'string' || !(REVIEW_STATUSES as readonly string[]).includes(status)) throw badRequest(ADMIN_MESSAGES.badStatus);
  return status as ReviewStatus;
}

// C0 controls other than tab and newline, and DEL: a reason is shown to the driver as text.
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f]/;

/** What a decision names: the driver's review version as listed, and for a rejection the reason. */
export interface DecisionBody {
  reviewVersion: number;
  reason: string | null;
}

/**
 * The body of a decision: `{ reviewVersion }` to approve, `{ reviewVersion, reason }` to reject
 * (the reason required, trimmed, 1–500 characters).
 */
export function decisionBodyOf(body: unknown, decision: 'approved' | 'rejected'): DecisionBody {
  const payload = body ?? {};
  if (typeof payload !== 'object' || Array.isArray(payload)) throw badRequest(ADMIN_MESSAGES.bodyNotObject);
  const allowed = decision === 'rejected' ? ['reason', 'reviewVersion'] : ['reviewVersion'];
  const unknown = Object.keys(payload).find((key) => !allowed.includes(key));
  if (unknown !== undefined) throw badRequest(`${ADMIN_MESSAGES.unknownField}${unknown}`);
  const { reason, reviewVersion } = payload as { reason?: unknown; reviewVersion?: unknown };
  let trimmed: string | null = null;
  if (decision === 'rejected') {
    if (reason === undefined || reason === null) throw badRequest(ADMIN_MESSAGES.reasonRequired);
    if (typeof reason !== 'string') throw badRequest(ADMIN_MESSAGES.reasonNotText);
    trimmed = reason.trim();
    if (trimmed === '') throw badRequest(ADMIN_MESSAGES.reasonRequired);
    // Characters as a person counts them, not UTF-16 units.
    if ([...trimmed].length > MAX_REJECTION_REASON_LENGTH) throw badRequest(ADMIN_MESSAGES.reasonTooLong);
    if (CONTROL_CHARACTERS.test(trimmed)) throw badRequest(ADMIN_MESSAGES.reasonControl);
  }
  if (typeof reviewVersion !== 'number' || !Number.isSafeInteger(reviewVersion) || reviewVersion < 0) throw badRequest(ADMIN_MESSAGES.versionRequired);
  return { reviewVersion, reason: trimmed };
}

/** What a host may look like (name, IPv4, [IPv6], optional port): it is put into a link. */
const HOST_PATTERN = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** Where drivers open the app: PUBLIC_URL, or the origin this request came to. */
function publicOriginOf(config: ServerConfig, request: FastifyRequest): string {
  if (config.publicUrl) return config.publicUrl;
  const host = request.host;
  if (typeof host !== 'string' || !HOST_PATTERN.test(host)) throw badRequest(ADMIN_MESSAGES.noHost);
  return `${request.protocol}://${host}`;
}

type DriverParams = { Params: { id: string } };

export async function adminRoutes(app: FastifyInstance, options: { config: ServerConfig }) {
  app.addHook('onRequest', app.requireAdmin);

  /** The driver's review facts, or a 404 for an id that names nobody. */
  async function reviewedDriver(id: string): Promise<{ id: string; isSessionComplete: boolean; isEmailVerified: boolean }> {
    if (!isUuid(id)) throw notFound(ADMIN_MESSAGES.unknownDriver);
    const { rows } = await app.db.query<{ id: string; is_session_complete: boolean; email_verified: boolean }>(
      'SELECT id, is_session_complete, email_verified_at IS NOT NULL AS email_verified FROM drivers WHERE id = $1',
      [id],
    );
    const row = rows[0];
    if (!row) throw notFound(ADMIN_MESSAGES.unknownDriver);
    return { id: row.id, isSessionComplete: row.is_session_complete, isEmailVerified: row.email_verified };
  }

  /**
   * Records a decision on the driver and in the review history, in one transaction, provided the
   * driver's data is still the version the reviewer saw.
   */
  async function decide(id: string, decision: 'approved' | 'rejected', body: unknown) {
    // The body is checked first: a bad request is a bad request whoever it names.
    const { reviewVersion, reason } = decisionBodyOf(body, decision);
    const driver = await reviewedDriver(id);
    // Nothing to judge before the vehicle and its documents were sent.
    if (!driver.isSessionComplete) throw conflict(ADMIN_MESSAGES.notSubmitted);
    const now = app.now();
    await app.db.transaction(async (tx) => {
      const decided = await tx.query(
        `UPDATE drivers SET status = $2, rejection_reason = $3, reviewed_at = $4, reviewed_by = $5, updated_at = $4
         WHERE id = $1 AND review_version = $6 RETURNING id`,
        [driver.id, decision, reason, now, app.adminReviewer, reviewVersion],
      );
      if (decided.rows.length === 0) throw conflict(ADMIN_MESSAGES.changedSince);
      await tx.query('INSERT INTO driver_reviews (driver_id, decision, reason, reviewed_by, reviewed_at) VALUES ($1, $2, $3, $4, $5)', [
        driver.id,
        decision,
        reason,
        app.adminReviewer,
        now,
      ]);
      // The driver is told with the decision: both stand or neither does.
      if (decision === 'approved') await app.messaging.notify(tx, driver.id, 'approved', {});
      else await app.messaging.notify(tx, driver.id, 'rejected', { reason: reason ?? '' });
    });
    return { success: true, status: decision };
  }

  /** The drivers of the list rows, each with their documents. */
  async function listed(rows: ListedRow[]) {
    const ids = rows.map((row) => row.id);
    const uploads = ids.length
      ? (
          await app.db.query<UploadRow>(
            'SELECT id, driver_id, vehicle_id, field, mime, size FROM uploads WHERE driver_id = ANY($1::uuid[]) ORDER BY created_at, field',
            [ids],
          )
        ).rows
      : [];
    return rows.map((row) => listedDriver(row, uploads));
  }

  app.get('/drivers', async (request) => {
    const status = reviewStatusOf(request.query);
    const { rows } = await app.db.query<ListedRow>(LIST_SQL, [status, null]);
    return { drivers: await listed(rows) };
  });

  /** One driver as the list shows them, whatever their state (the admin command reads the review version here). */
  app.get<DriverParams>('/drivers/:id', async (request) => {
    const driver = await reviewedDriver(request.params.id);
    const { rows } = await app.db.query<ListedRow>(LIST_SQL, [null, driver.id]);
    const [found] = await listed(rows);
    if (!found) throw notFound(ADMIN_MESSAGES.unknownDriver);
    return found;
  });

  app.post<DriverParams>('/drivers/:id/approve', async (request) => decide(request.params.id, 'approved', request.body));

  app.post<DriverParams>('/drivers/:id/reject', async (request) => decide(request.params.id, 'rejected', request.body));

  app.post<DriverParams>('/drivers/:id/resume-link', async (request) => {
    const driver = await reviewedDriver(request.params.id);
    // A link gives a session, and a session is what a verified email code gives: never before it.
    if (!driver.isEmailVerified) throw conflict(ADMIN_MESSAGES.emailNotVerified);
    const origin = publicOriginOf(options.config, request);
    const { token, expiresAt } = await app.sessions.issueResume(driver.id, RESUME_LINK_LIFETIME_MS);
    // The resume screen's route, /:id/:token (spec §2): the token URL-encoded.
    return { url: `${origin}/${driver.id}/${encodeURIComponent(token)}`, expiresAt: expiresAt.toISOString() };
  });

  app.get<{ Params: { uploadId: string } }>('/uploads/:uploadId', async (request, reply) => {
    const upload = await findUpload(app, request.params.uploadId);
    return sendUpload(app, reply, upload);
  });
}
