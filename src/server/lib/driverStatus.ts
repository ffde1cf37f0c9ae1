/**
 * Where a driver stands (spec §3 "Driver status"), as GET /driver/status/:id, the resume link and
 * the sign-in answer it. The spec's three fields, the rejection reason, and the facts the flow's
 * resume table needs to send a returning driver to a step they can finish.
 */
import type { Flow } from '../../shared/flow.js';
import type { DriverStatus, ReviewStatus } from '../../shared/review.js';
import type { Queryable } from '../db/db.js';
import { fieldTitle } from './reviewView.js';

/** What a returning driver's browser keeps besides the status: who they are and where codes go. */
export interface ReturningDriver {
  driverId: string;
  email: string;
  phone: string | null;
  data: DriverStatus;
}

interface StatusRow {
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

/** The driver's status and contact details, or null for an id that names nobody. `flow` orders the fixes. */
export async function returningDriver(db: Queryable, driverId: string, flow: Flow): Promise<ReturningDriver | null> {
  const { rows } = await db.query<StatusRow>(
    `SELECT email, phone, provider, status, rejection_reason, is_session_complete, is_subscription_paid,
       email_verified_at IS NOT NULL AS email_verified, phone_verified_at IS NOT NULL AS phone_verified,
       profile_completed_at IS NOT NULL AS profile_complete, (SELECT id FROM vehicles WHERE driver_id = $1) AS vehicle_id
     FROM drivers WHERE id = $1`,
    [driverId],
  );
  const row = rows[0];
  if (!row) return null;
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
