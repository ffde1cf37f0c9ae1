/**
 * The driver's own onboarding data (spec §3, §7). Every route acts on the driver of the bearer
 * token only; ids in the path or body are checked against it. Server-set fields (status, the
 * paid and complete flags) are never read from a body: no call maps them, so a body that sends
 * them is refused as an unknown field.
 */
import type { FastifyInstance } from 'fastify';
import { forbidden, unauthorized } from '../errors.js';
import type { Queryable } from '../db/db.js';
import type { UploadedFile } from '../lib/callPayload.js';
import { isUuid, vehicleIdExtra } from '../lib/extras.js';
import { findUpload, sendUpload } from '../lib/uploadFiles.js';
import { SESSION_EXPIRED } from '../plugins/sessions.js';

export const DRIVER_MESSAGES = {
  profileSaved: 'Your personal profile is saved.',
  profileFirst: 'Please complete your profile first.',
  phoneFirst: 'Please verify your phone number first.',
  vehicleSent: 'Your profile and vehicle were sent for approval.',
  notYourVehicle: 'This vehicle does not belong to your account. Please upload your vehicle images again.',
  notYourStatus: 'You can only see your own status.',
  notYourFile: 'You can only see your own photos and documents.',
} as const;

/** GET /driver/status/:id's `data`. */
interface DriverStatus {
  status: string;
  isSessionComplete: boolean;
  isSubscriptionPaid: boolean;
  rejectionReason?: string;
}

interface DriverRow {
  provider: string;
  phone: string | null;
  phone_verified_at: Date | null;
  profile_completed_at: Date | null;
}

/**
 * Stores uploaded files (encrypted, random names) and their rows together with `work`, replacing
 * the driver's earlier files of the same fields. Files written for a failed request are removed.
 */
async function saveWithFiles(
  app: FastifyInstance,
  owner: { driverId: string; vehicleId: string | null },
  files: Record<string, UploadedFile>,
  work: (tx: Queryable) => Promise<void>,
): Promise<void> {
  const saved: { field: string; storageName: string; mime: string; size: number }[] = [];
  try {
    for (const [field, file] of Object.entries(files)) {
      saved.push({ field, storageName: await app.uploads.save(file.bytes), mime: file.mime, size: file.bytes.length });
    }
    const replaced = await app.db.transaction(async (tx) => {
      await work(tx);
      const old: string[] = [];
      for (const upload of saved) {
        const removed = await tx.query<{ storage_name: string }>(
          'DELETE FROM uploads WHERE driver_id = $1 AND vehicle_id IS NOT DISTINCT FROM $2::uuid AND field = $3 RETURNING storage_name',
          [owner.driverId, owner.vehicleId, upload.field],
        );
        old.push(...removed.rows.map((row) => row.storage_name));
        await tx.query('INSERT INTO uploads (driver_id, vehicle_id, field, storage_name, mime, size) VALUES ($1, $2, $3, $4, $5, $6)', [
          owner.driverId,
          owner.vehicleId,
          upload.field,
          upload.storageName,
          upload.mime,
          upload.size,
        ]);
      }
      return old;
    });
    await Promise.all(replaced.map((name) => app.uploads.remove(name)));
  } catch (error) {
    await Promise.all(saved.map((upload) => app.uploads.remove(upload.storageName).catch(() => undefined)));
    throw error;
  }
}

export async function driverRoutes(app: FastifyInstance) {
  const reader = app.callReader;
  app.addHook('preHandler', app.requireDriver);

  async function driverRow(driverId: string): Promise<DriverRow> {
    const { rows } = await app.db.query<DriverRow>('SELECT provider, phone, phone_verified_at, profile_completed_at FROM drivers WHERE id = $1', [driverId]);
    // A session outlives nothing: drivers are deleted with their sessions (ON DELETE CASCADE).
    if (!rows[0]) throw forbidden(DRIVER_MESSAGES.notYourStatus);
    return rows[0];
  }

  app.post(reader.routePath('completeProfile'), async (request) => {
    const driverId = request.driverId;
    const driver = await driverRow(driverId);
    // Social sign-ups have no phone yet: their profile variant asks for it (flow: storage.isSocial).
    const social = driver.provider !== 'password';
    // Steps in order (spec §4): an email sign-up verifies the phone before the profile.
    if (!social && !driver.phone_verified_at) throw forbidden(DRIVER_MESSAGES.phoneFirst);
    const { form, files } = await reader.multipart('completeProfile', request, social ? 'profile-social' : 'profile');
    const text = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : null);
    const ssn = String(form.SSN);
    const now = app.now();
    await saveWithFiles(app, { driverId, vehicleId: null }, files, async (tx) => {
      await tx.query(
        `UPDATE drivers SET first_name = $2, last_name = $3, middle_initial = $4, suffix = $5, date_of_birth = $6::date,
           gender = $7, ssn_ciphertext = $8, ssn_last4 = $9, driver_license_number = $10, street = $11, city = $12,
           state = $13, zip_code = $14, profile_completed_at = $15, updated_at = $15
         WHERE id = $1`,
        [
          driverId,
          text('firstName'),
          text('lastName'),
          text('MI'),
          text('suffix'),
          text('dateOfBirth'),
          text('gender'),
          app.cipher.encrypt(ssn, `ssn:${driverId}`),
          ssn.slice(-4),
          text('driverLicenseNumber'),
          text('street'),
          text('city'),
          text('state'),
          text('zipCode'),
          now,
        ],
      );
      if (social) {
        const phone = `+1${String(form.phoneNo)}`;
        // A changed phone must be verified again.
        await tx.query(
          `UPDATE drivers SET phone = $2, referral_code = $3,
             phone_verified_at = CASE WHEN phone = $2 THEN phone_verified_at END WHERE id = $1`,
          [driverId, phone, text('referalCode')],
        );
      }
    });
    return { success: true, message: DRIVER_MESSAGES.profileSaved };
  });

  app.post(reader.routePath('completeVehicleDocs'), async (request) => {
    const driverId = request.driverId;
    const driver = await driverRow(driverId);
    if (!driver.profile_completed_at) throw forbidden(DRIVER_MESSAGES.profileFirst);
    // Both orders of spec §4 verify the phone before the vehicle photos.
    if (!driver.phone_verified_at) throw forbidden(DRIVER_MESSAGES.phoneFirst);
    const { files } = await reader.multipart('completeVehicleDocs', request);
    const vehicle = await app.db.query<{ id: string }>('INSERT INTO vehicles (driver_id, created_at, updated_at) VALUES ($1, $2, $2) RETURNING id', [
      driverId,
      app.now(),
    ]);
    const vehicleId = vehicle.rows[0]!.id;
    try {
      await saveWithFiles(app, { driverId, vehicleId }, files, async () => undefined);
    } catch (error) {
      await app.db.query('DELETE FROM vehicles WHERE id = $1', [vehicleId]);
      throw error;
    }
    return { success: true, data: { vehicle: { id: vehicleId } } };
  });

  app.post(reader.routePath('completeVehicle'), async (request) => {
    const driverId = request.driverId;
    const { form, files, extras } = await reader.multipart('completeVehicle', request);
    const vehicleId = vehicleIdExtra(extras.vehicleId);
    const owned = isUuid(vehicleId)
      ? await app.db.query('SELECT 1 FROM vehicles WHERE id = $1 AND driver_id = $2', [vehicleId, driverId])
      : { rows: [] };
    // Someone else's vehicle and no vehicle at all answer alike.
    if (owned.rows.length === 0) throw forbidden(DRIVER_MESSAGES.notYourVehicle);
    const now = app.now();
    await saveWithFiles(app, { driverId, vehicleId }, files, async (tx) => {
      await tx.query(
        `UPDATE vehicles SET make = $2, model = $3, year = $4, plate = $5, wheelchair = $6, driver_license_expiry = $7::date,
           registration_expiry = $8::date, insurance_expiry = $9::date, submitted_at = $10, updated_at = $10
         WHERE id = $1`,
        [
          vehicleId,
          form.vehicleMake,
          form.vehicleName,
          Number(form.modelYear),
          form.plateNumber,
          form.isWheelChairAccessible === true,
          form.driverLicenseExpiryDate,
          form.vehicleRegistrationExpiryDate,
          form.proofInsuranceExpiryDate,
          now,
        ],
      );
      // Sending the vehicle again is how a rejected driver asks for another review: pending again,
      // the old reason gone. An approved driver stays approved; a pending one stays pending.
      // (Every right-hand side reads the row as it was, so both CASEs see the old status.)
      await tx.query(
        `UPDATE drivers SET is_session_complete = true,
           status = CASE WHEN status = 'rejected' THEN 'pending' ELSE status END,
           rejection_reason = CASE WHEN status = 'rejected' THEN NULL ELSE rejection_reason END,
           updated_at = $2
         WHERE id = $1`,
        [driverId, now],
      );
    });
    return { success: true, message: DRIVER_MESSAGES.vehicleSent };
  });

  /** The driver's status (spec §3), with the rejection reason beyond the spec's three fields. */
  async function statusOf(db: Queryable, driverId: string): Promise<DriverStatus> {
    const { rows } = await db.query<{ status: string; is_session_complete: boolean; is_subscription_paid: boolean; rejection_reason: string | null }>(
      'SELECT status, is_session_complete, is_subscription_paid, rejection_reason FROM drivers WHERE id = $1',
      [driverId],
    );
    const row = rows[0];
    if (!row) throw forbidden(DRIVER_MESSAGES.notYourStatus);
    const data: DriverStatus = {
      status: row.status,
      isSessionComplete: row.is_session_complete,
      isSubscriptionPaid: row.is_subscription_paid,
    };
    // A rejected driver is told what to fix.
    if (row.status === 'rejected') data.rejectionReason = row.rejection_reason ?? '';
    return data;
  }

  // The one route that takes a resume link's token (plugins/sessions.ts): it answers the status
  // and, in the same transaction that deletes the link's token, a new session token beside
  // `data`. A session's request gets `data` alone.
  app.get<{ Params: { id: string } }>(reader.routePath('driverStatus'), { config: { acceptsResumeToken: true } }, async (request) => {
    // Another driver's id is refused before anything else, and does not use up a resume token.
    if (request.params.id !== request.driverId) throw forbidden(DRIVER_MESSAGES.notYourStatus);
    const resumeToken = request.resumeToken;
    if (resumeToken === null) return { data: await statusOf(app.db, request.driverId) };
    const exchanged = await app.db.transaction(async (tx) => {
      const token = await app.sessions.exchangeResume(tx, resumeToken, request.driverId);
      return token === null ? null : { data: await statusOf(tx, request.driverId), token };
    });
    // Used meanwhile (a second tab, a concurrent request) or expired since the preHandler looked.
    if (!exchanged) throw unauthorized(SESSION_EXPIRED);
    return exchanged;
  });

  /** The driver's own photos and documents (the admin API serves anyone's). */
  app.get<{ Params: { uploadId: string } }>('/driver/uploads/:uploadId', async (request, reply) => {
    const upload = await findUpload(app, request.params.uploadId);
    if (upload.driverId !== request.driverId) throw forbidden(DRIVER_MESSAGES.notYourFile);
    return sendUpload(app, reply, upload);
  });
}
