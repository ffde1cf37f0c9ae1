/**
 * Where a driver stands (spec §3 "Driver status"), as GET /driver/status/:id, the resume link and
 * the sign-in answer it. The spec's three fields, the rejection reason, and the facts the flow's
 * resume table needs to send a returning driver to a step they can finish (or an approved one to
 * a document they may replace).
 */
import type { Flow } from '../../shared/flow.js';
import type { DriverStatus, ReviewStatus } from '../../shared/review.js';
import type { Queryable } from '../db/db.js';
import { loadNotices } from '../../node/projectFiles.js';
import { renewableDocuments } from './expiries.js';
import { fieldTitle } from './reviewView.js';

/** What a returning driver's browser keeps besides the status: who they are and where codes go. */
export interface ReturningDriver {
  driverId: string;
  email: string;
  phone: string | null;
  data: DriverStatus;
}

/** A driver's standing as one row: what the status is made of. */
export interface StatusRow {
  email: string;
  phone: string | null;
  provider: string;
  status: ReviewStatus;
  rejection_reason: string | null;
  is_session_complete: boolean;
  is_subscription_paid: boolean;
  email_verified: boolean;
  phone_verified: boolean;
  profile_complete: boolean;
  vehicle_id: string | null;
}

/**
 * The columns of a StatusRow, read from `drivers` as `d`: the session lookup selects them with the
 * token, so the status poll (every few seconds per waiting driver) is one query.
 */
export const STATUS_COLUMNS = `d.email, d.phone, d.provider, d.status, d.rejection_reason, d.is_session_complete, d.is_subscription_paid,
       d.email_verified_at IS NOT NULL AS email_verified, d.phone_verified_at IS NOT NULL AS phone_verified,
       d.profile_completed_at IS NOT NULL AS profile_complete, (SELECT v.id FROM vehicles v WHERE v.driver_id = d.id) AS vehicle_id`;

/**
 * An approved driver's first step, in the flow's order, holding a document they may replace at `now`
 * (lib/expiries.ts; the server's clock, which the notices read too), by its day in UTC: the resume
 * table sends them there once they sign in.
 */
async function renewalStep(db: Queryable, driverId: string, flow: Flow, now: Date): Promise<string | undefined> {
  const { expiries } = loadNotices();
  const steps = [...new Set(expiries.documents.map((document) => document.step))];
  if (steps.length === 0) return undefined;
  const { rows } = await db.query<{ step: string; answers: Record<string, unknown> }>(
    'SELECT step, answers FROM step_answers WHERE driver_id = $1 AND step = ANY($2::text[])',
    [driverId, steps],
  );
  const today = now.toISOString().slice(0, 10);
  const order = Object.keys(flow.steps);
  return rows
    .filter((row) => renewableDocuments(expiries, row.step, row.answers, today).length > 0)
    .map((row) => row.step)
    .sort((a, b) => order.indexOf(a) - order.indexOf(b))[0];
}

/** The driver's status and contact details at `now`, or null for an id that names nobody. `flow` orders the fixes. */
export async function returningDriver(db: Queryable, driverId: string, flow: Flow, now: Date): Promise<ReturningDriver | null> {
  const { rows } = await db.query<StatusRow>(`SELECT ${STATUS_COLUMNS} FROM drivers d WHERE d.id = $1`, [driverId]);
  const row = rows[0];
  return row ? driverFromRow(db, driverId, row, flow, now) : null;
}

/** The status at `now` of a driver whose row was read; a rejected driver's fixes are read beside it. */
export async function driverFromRow(db: Queryable, driverId: string, row: StatusRow, flow: Flow, now: Date): Promise<ReturningDriver> {
  const data: DriverStatus = {
    status: row.status,
    isSessionComplete: row.is_session_complete,
    isSubscriptionPaid: row.is_subscription_paid,
    isEmailVerified: row.email_verified,
    isPhoneVerified: row.phone_verified,
    isProfileComplete: row.profile_complete,
    isSocial: row.provider !== 'password',
  };
  if (row.vehicle_id) data.vehicleId = row.vehicle_id;
  if (row.status === 'approved') {
    const renewal = await renewalStep(db, driverId, flow, now);
    if (renewal) data.renewal = renewal;
  }
  if (row.status === 'rejected') {
    data.rejectionReason = row.rejection_reason ?? '';
    const fixes = await db.query<{ step: string; field: string; reason: string; schema_name: string }>(
      `SELECT f.step, f.field, f.reason, a.schema_name FROM review_fixes f
       JOIN step_answers a ON a.driver_id = f.driver_id AND a.step = f.step WHERE f.driver_id = $1`,
      [driverId],
    );
    if (fixes.rows.length > 0) {
      const order = Object.keys(flow.steps);
      const sorted = fixes.rows.sort((a, b) => order.indexOf(a.step) - order.indexOf(b.step));
      data.fixes = sorted.map((fix) => ({ step: fix.step, field: fix.field, title: fieldTitle(fix.schema_name, fix.field), reason: fix.reason }));
      data.nextFix = sorted[0]!.step;
    }
  }
  return { driverId, email: row.email, phone: row.phone, data };
}
