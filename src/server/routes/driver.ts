/**
 * The driver's own onboarding data (spec §3, §7). Every route acts on the driver of the bearer
 * token only; ids in the path or body are checked against it. Server-set fields (status, the
 * paid and complete flags) are never read from a body: no call maps them, so a body that sends
 * them is refused as an unknown field.
 *
 * Review can't be bypassed: once approved, what the reviewer judged (profile, vehicle photos,
 * vehicle) can no longer be changed here (409), and every change before that moves the driver's
 * review version on, so a decision made on an older version is refused (routes/admin.ts).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { StoredFile } from '../plugins/uploads.js';
import { conflict, forbidden, signInAgain } from '../errors.js';
import type { Queryable } from '../db/db.js';
import { storageForStatus } from '../../shared/flow.js';
import { returningDriver } from '../lib/driverStatus.js';
import { findUpload, sendUpload } from '../lib/uploadFiles.js';
import { AUTH_MESSAGES } from './auth.js';

export const DRIVER_MESSAGES = {
  profileSaved: 'Your personal profile is saved.',
  profileFirst: 'Please complete your profile first.',
  phoneFirst: 'Please verify your phone number first.',
  vehicleSent: 'Your profile and vehicle were sent for approval.',
  notYourVehicle: 'This vehicle does not belong to your account. Please upload your vehicle images again.',
  notYourStatus: 'You can only see your own status.',
  notYourFile: 'You can only see your own photos and documents.',
  approvedLocked: 'Your profile and vehicle are approved, so they can no longer be changed here. Please contact support to change them.',
} as const;

interface DriverRow {
  provider: string;
  status: string;
  phone: string | null;
  phone_verified_at: Date | null;
  profile_completed_at: Date | null;
}

/** A change to what a reviewer judges: the next decision must be made on this version. */
const bumpReviewVersion = (tx: Queryable, driverId: string, now: Date) =>
  tx.query('UPDATE drivers SET review_version = review_version + 1, updated_at = $2 WHERE id = $1', [driverId, now]);

/**
 * Writes the rows of a request's stored files together with `work`, in one transaction, replacing
 * the driver's earlier files of the same fields (removed once the new rows are committed). If
 * anything fails, the request's files go with it (plugins/uploads.ts).
 */
async function saveWithFiles(
  app: FastifyInstance,
  request: FastifyRequest,
  owner: { driverId: string; vehicleId: string | null },
  files: Record<string, StoredFile>,
  work: (tx: Queryable) => Promise<void>,
): Promise<void> {
  const replaced = await app.db.transaction(async (tx) => {
    await work(tx);
    const old: string[] = [];
    for (const [field, file] of Object.entries(files)) {
      const removed = await tx.query<{ storage_name: string }>(
        'DELETE FROM uploads WHERE driver_id = $1 AND vehicle_id IS NOT DISTINCT FROM $2::uuid AND field = $3 RETURNING storage_name',
        [owner.driverId, owner.vehicleId, field],
      );
      old.push(...removed.rows.map((row) => row.storage_name));
      await tx.query('INSERT INTO uploads (driver_id, vehicle_id, field, storage_name, mime, size) VALUES ($1, $2, $3, $4, $5, $6)', [
        owner.driverId,
        owner.vehicleId,
        field,
        file.storageName,
        file.mime,
        file.size,
      ]);
    }
    return old;
  });
  // Committed: the new files are the driver's now, and the ones they replace can go.
  request.uncommittedUploads.length = 0;
  await Promise.all(replaced.map((name) => app.uploads.remove(name).catch(() => undefined)));
}

export async function driverRoutes(app: FastifyInstance) {
  const reader = app.callReader;
  app.addHook('preHandler', app.requireDriver);

  /** The driver, whose reviewed data may still change (not approved). */
  async function changeableDriver(driverId: string): Promise<DriverRow> {
    const { rows } = await app.db.query<DriverRow>(
      'SELECT provider, status, phone, phone_verified_at, profile_completed_at FROM drivers WHERE id = $1',
      [driverId],
    );
    // A session outlives nothing: drivers are deleted with their sessions (ON DELETE CASCADE).
    const driver = rows[0];
    if (!driver) throw forbidden(DRIVER_MESSAGES.notYourStatus);
    if (driver.status === 'approved') throw conflict(DRIVER_MESSAGES.approvedLocked);
    return driver;
  }

  app.post(reader.routePath('completeProfile'), async (request) => {
    const driverId = request.driverId;
    const driver = await changeableDriver(driverId);
    const social = driver.provider !== 'password';
    // Steps in order (spec §4): an email sign-up verifies the phone before the profile.
    if (!social && !driver.phone_verified_at) throw forbidden(DRIVER_MESSAGES.phoneFirst);
    // The variant is the flow's own rule, read with what the browser of a driver in this status
    // keeps: a social sign-up's profile asks for the phone (storage.isSocial) until the driver
    // is rejected, when the profile is updated from the approval wait and keeps the phone.
    const status = await returningDriver(app.db, driverId);
    const storage = status ? storageForStatus(reader.flow, { ...status.data }) : {};
    const { form, sent, files } = await reader.multipart('completeProfile', request, { storage });
    const text = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : null);
    const ssn = String(form.SSN);
    const now = app.now();
    // As the flow maps it: with +1.
    const phone = typeof sent.phoneNo === 'string' ? sent.phoneNo : null;
    await saveWithFiles(app, request, { driverId, vehicleId: null }, files, async (tx) => {
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
      if (phone) {
        const claimed = await tx.query('SELECT 1 FROM drivers WHERE phone = $1 AND phone_verified_at IS NOT NULL AND id <> $2', [phone, driverId]);
        if (claimed.rows.length > 0) throw conflict(AUTH_MESSAGES.phoneTaken);
        // A changed phone must be verified again.
        await tx.query(
          `UPDATE drivers SET phone = $2, referral_code = $3,
             phone_verified_at = CASE WHEN phone = $2 THEN phone_verified_at END WHERE id = $1`,
          [driverId, phone, text('referalCode')],
        );
      }
      await bumpReviewVersion(tx, driverId, now);
    });
    return { success: true, message: DRIVER_MESSAGES.profileSaved };
  });

  app.post(reader.routePath('completeVehicleDocs'), async (request) => {
    const driverId = request.driverId;
    const driver = await changeableDriver(driverId);
    if (!driver.profile_completed_at) throw forbidden(DRIVER_MESSAGES.profileFirst);
    // Both orders of spec §4 verify the phone before the vehicle photos.
    if (!driver.phone_verified_at) throw forbidden(DRIVER_MESSAGES.phoneFirst);
    const { files } = await reader.multipart('completeVehicleDocs', request);
    // The vehicle's id is made here, so its row and its photos are written in one transaction.
    const vehicleId = randomUUID();
    const now = app.now();
    await saveWithFiles(app, request, { driverId, vehicleId }, files, async (tx) => {
      await tx.query('INSERT INTO vehicles (id, driver_id, created_at, updated_at) VALUES ($1, $2, $3, $3)', [vehicleId, driverId, now]);
      await bumpReviewVersion(tx, driverId, now);
    });
    return { success: true, data: { vehicle: { id: vehicleId } } };
  });

  app.post(reader.routePath('completeVehicle'), async (request) => {
    const driverId = request.driverId;
    await changeableDriver(driverId);
    const { form, files, context } = await reader.multipart('completeVehicle', request, { expects: ['vehicle_id'] });
    const vehicleId = context.vehicle_id;
    const owned = await app.db.query('SELECT 1 FROM vehicles WHERE id = $1 AND driver_id = $2', [vehicleId, driverId]);
    // Someone else's vehicle and no vehicle at all answer alike.
    if (owned.rows.length === 0) throw forbidden(DRIVER_MESSAGES.notYourVehicle);
    const now = app.now();
    await saveWithFiles(app, request, { driverId, vehicleId }, files, async (tx) => {
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
      // the old reason gone. (Approved drivers were refused above.)
      await tx.query(
        `UPDATE drivers SET is_session_complete = true, status = 'pending', rejection_reason = NULL,
           review_version = review_version + 1, updated_at = $2
         WHERE id = $1`,
        [driverId, now],
      );
    });
    return { success: true, message: DRIVER_MESSAGES.vehicleSent };
  });

  // The one route that takes a resume link's token (plugins/sessions.ts): it answers the status
  // and, in the same transaction that deletes the link's token, a new session token with who the
  // driver is (as a sign-in does). A session's request gets `data` alone.
  app.get<{ Params: { id: string } }>(reader.routePath('driverStatus'), { config: { tokenKinds: ['session', 'resume'] } }, async (request) => {
    // Another driver's id is refused before anything else, and does not use up a resume token.
    if (request.params.id !== request.driverId) throw forbidden(DRIVER_MESSAGES.notYourStatus);
    const token = request.token!;
    if (token.holder.kind === 'session') {
      const driver = await returningDriver(app.db, request.driverId);
      if (!driver) throw forbidden(DRIVER_MESSAGES.notYourStatus);
      return { data: driver.data };
    }
    const exchanged = await app.db.transaction(async (tx) => {
      const session = await app.sessions.exchangeResume(tx, token.value, request.driverId);
      const driver = session && (await returningDriver(tx, request.driverId));
      return session && driver ? { ...driver, token: session.token } : null;
    });
    // Used meanwhile (a second tab, a concurrent request) or expired since the preHandler looked.
    if (!exchanged) throw signInAgain(401, reader.flow.messages.sessionExpired);
    return exchanged;
  });

  /** The driver's own photos and documents (the admin API serves anyone's). */
  app.get<{ Params: { uploadId: string } }>('/driver/uploads/:uploadId', async (request, reply) => {
    const upload = await findUpload(app, request.params.uploadId);
    if (upload.driverId !== request.driverId) throw forbidden(DRIVER_MESSAGES.notYourFile);
    return sendUpload(app, reply, upload);
  });
}
