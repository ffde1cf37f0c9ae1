/**
 * The driver's own onboarding data (spec §3, §7). Every route acts on the driver of the bearer
 * token only; ids in the path or body are checked against it. Server-set fields (status, the
 * paid and complete flags) are never read from a body: no call maps them, so a body that sends
 * them is refused as an unknown field.
 *
 * Review can't be bypassed: once approved, what the reviewer judged (profile, vehicle photos,
 * vehicle) can no longer be changed here (409), and every change before that moves the driver's
 * review version on, so a decision made on an older version is refused (routes/admin.ts). The one
 * change allowed after approval is a document that expires (flows/notices.json's expiries), from
 * its first notice on: its date and files alone, which sends the driver back to review; until the
 * next approval nothing else changes but the fixes a reviewer asks (lib/expiries.ts).
 */
import { messageIn, refusal } from '../serverMessages.js';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { signInAgain } from '../errors.js';
import { UPLOADS_PATH, type FileAheadAnswer, type StatusAnswer, type StepAnswersAnswer } from '../../shared/review.js';
import { storageForStatus } from '../../shared/flow.js';
import { comparableAnswer, maskedAnswers, sealAnswers, stepAnswersOf } from '../lib/answers.js';
import type { CallValues, ContextName } from '../lib/callReader/checkCall.js';
import { dayInWords, documentFields, renewableDocuments } from '../lib/expiries.js';
import { loadNotices } from '../../node/projectFiles.js';
import type { Locale } from '../../shared/locales.js';
import { FIX_REASON_VALUE } from '../../shared/notices.js';
import { fillPlaceholders } from '../../shared/placeholders.js';
import { driverFromRow, returningDriver } from '../lib/driverStatus.js';
import { keptAnswersOf, saveStep, type FixRound } from '../lib/saveStep.js';
import { findUpload, sendUpload, uploadAnswer } from '../lib/uploadFiles.js';
import { removeUnnamedFiles } from '../lib/uploadStore.js';
import { NOT_TAKEN_BY_ITS_STEP } from '../plugins/uploads.js';
import { paramsSchemaOf, REVIEW_ANSWERS_CALL, type RouteTable, urlOf } from '../lib/routeTable.js';
import { readsItsOwnBody } from '../lib/routeSchemas.js';

/** The driver's routes (lib/routeTable.ts): most at the flow's calls, the photos sent ahead and fetched at paths of their own. */
export const DRIVER_ROUTES = {
  completeProfile: { method: 'POST', call: 'completeProfile' },
  completeVehicleDocs: { method: 'POST', call: 'completeVehicleDocs' },
  completeVehicle: { method: 'POST', call: 'completeVehicle' },
  status: { method: 'GET', call: 'driverStatus', params: ['id'] },
  answers: { method: 'GET', call: REVIEW_ANSWERS_CALL, params: ['step'] },
  fileAhead: { method: 'POST', url: `${UPLOADS_PATH}/:step/:field`, params: ['step', 'field'] },
  upload: { method: 'GET', url: `${UPLOADS_PATH}/:uploadId` },
} as const satisfies RouteTable;

interface DriverRow {
  provider: string;
  status: string;
  phone: string | null;
  phone_verified_at: Date | null;
  profile_completed_at: Date | null;
  renewing: boolean;
}

/** A driver who may change what was reviewed, and, after approval, the only fields of the step they may change. */
type ChangeableDriver = DriverRow & { onlyFields: ReadonlySet<string> | null };

export async function driverRoutes(app: FastifyInstance) {
  const reader = app.callReader;
  const { expiries } = loadNotices();
  app.addHook('preHandler', app.requireDriver);

  /**
   * The driver, whose reviewed data of `step` may still change: not approved, or (approved, or
   * replacing a document since) only the fields of its documents that expire soon or have, and
   * of the fixes a reviewer asked.
   */
  async function changeableDriver(driverId: string, step: string | null): Promise<ChangeableDriver> {
    const { rows } = await app.db.query<DriverRow>(
      'SELECT provider, status, phone, phone_verified_at, profile_completed_at, renewing FROM drivers WHERE id = $1',
      [driverId],
    );
    // A session outlives nothing: drivers are deleted with their sessions (ON DELETE CASCADE).
    const driver = rows[0];
    if (!driver) throw refusal(403, 'driver.notYourStatus');
    const onlyFields = await onlyFieldsOf(driverId, driver, step);
    if (onlyFields?.size === 0) throw refusal(409, 'driver.approvedLocked');
    return { ...driver, onlyFields };
  }

  /** The only fields of `step` the driver may change now (see changeableDriver); null: any. */
  async function onlyFieldsOf(driverId: string, driver: Pick<DriverRow, 'status' | 'renewing'>, step: string | null): Promise<ReadonlySet<string> | null> {
    if (driver.status !== 'approved' && !driver.renewing) return null;
    const stored = step ? await stepAnswersOf(app.db, driverId, step) : null;
    const { rows: fixes } = await app.db.query<{ field: string }>('SELECT field FROM review_fixes WHERE driver_id = $1 AND step = $2', [driverId, step]);
    const today = app.now().toISOString().slice(0, 10);
    const documents = stored && step ? renewableDocuments(expiries, step, stored.answers, today) : [];
    return new Set([...documents.flatMap(documentFields), ...fixes.map((fix) => fix.field)]);
  }

  /** After approval: a step sent with any change beyond the fields the driver may change is refused, whole. */
  async function refuseOtherChanges(driverId: string, driver: ChangeableDriver, values: Omit<CallValues<ContextName>, 'context'>): Promise<void> {
    const { onlyFields } = driver;
    const { step, schema } = values;
    if (!onlyFields || !step || !schema) return;
    const previous = await stepAnswersOf(app.db, driverId, step);
    const fileFields = new Set([...Object.keys(values.files), ...Object.keys(values.keptFiles), ...Object.keys(previous?.files ?? {})]);
    const form = Object.fromEntries(Object.entries(values.form).filter(([field]) => !fileFields.has(field)));
    const sent = sealAnswers(app.cipher, driverId, step, form, schema.sensitive);
    const fields = new Set([...fileFields, ...Object.keys(sent), ...Object.keys(previous?.answers ?? {})]);
    const changed = [...fields].some((field) => {
      if (onlyFields.has(field)) return false;
      if (fileFields.has(field)) return Object.hasOwn(values.files, field) || values.keptFiles[field] !== previous?.files[field];
      return comparableAnswer(sent[field]) !== comparableAnswer(previous?.answers[field]);
    });
    if (changed) throw refusal(409, 'driver.renewalOnly');
  }

  /** A fix sent: the answer carries the driver's status, so the flow's resume table sends them to the next fix or the wait. */
  async function answerAfter(driverId: string, round: FixRound, answer: { success: true; message?: string; data?: Record<string, unknown> }) {
    if (!round.fixing) return answer;
    const status = await returningDriver(app.db, driverId, reader.flow, app.now());
    // The status beside what the call answers anyway (the photos' vehicle id).
    return { ...answer, fixing: true, data: { ...answer.data, ...status?.data } };
  }

  const stepSent = { schema: { response: { 200: { $ref: 'api#/$defs/stepSent' } } } };
  app.post(urlOf(DRIVER_ROUTES.completeProfile, reader.flow), stepSent, async (request) => {
    const driverId = request.driverId;
    const driver = await changeableDriver(driverId, reader.stepOf('completeProfile'));
    const social = driver.provider !== 'password';
    // Steps in order (spec §4): an email sign-up verifies the phone before the profile.
    if (!social && !driver.phone_verified_at) throw refusal(403, 'driver.phoneFirst');
    // The variant is the flow's own rule, read with what the browser of a driver in this status
    // keeps: a social sign-up's profile asks for the phone (storage.isSocial) until the driver
    // is rejected, when the profile is updated from the approval wait and keeps the phone.
    const status = await returningDriver(app.db, driverId, reader.flow, app.now());
    const storage = status ? storageForStatus(reader.flow, { ...status.data }) : {};
    const keep = await keptAnswersOf(app, driverId, reader.stepOf('completeProfile'));
    const values = await reader.multipart('completeProfile', request, { storage, keep });
    await refuseOtherChanges(driverId, driver, values);
    // As the flow maps it: with +1.
    const phone = typeof values.sent.phoneNo === 'string' ? values.sent.phoneNo : null;
    const round = await saveStep(app, request, driverId, values, reader.flow.review.name, async (tx, now) => {
      await tx.query('UPDATE drivers SET profile_completed_at = $2 WHERE id = $1', [driverId, now]);
      if (phone) {
        const claimed = await tx.query('SELECT 1 FROM drivers WHERE phone = $1 AND phone_verified_at IS NOT NULL AND id <> $2', [phone, driverId]);
        if (claimed.rows.length > 0) throw refusal(409, 'auth.phoneTaken');
        // A changed phone must be verified again.
        await tx.query(
          `UPDATE drivers SET phone = $2, referral_code = $3,
             phone_verified_at = CASE WHEN phone = $2 THEN phone_verified_at END WHERE id = $1`,
          [driverId, phone, 'referalCode' in values.form ? (values.form.referalCode ?? null) : null],
        );
      }
    });
    return answerAfter(driverId, round, { success: true, message: messageIn(request.locale, 'driver.profileSaved') });
  });

  app.post(urlOf(DRIVER_ROUTES.completeVehicleDocs, reader.flow), stepSent, async (request) => {
    const driverId = request.driverId;
    const driver = await changeableDriver(driverId, reader.stepOf('completeVehicleDocs'));
    if (!driver.profile_completed_at) throw refusal(403, 'driver.profileFirst');
    // Both orders of spec §4 verify the phone before the vehicle photos.
    if (!driver.phone_verified_at) throw refusal(403, 'driver.phoneFirst');
    const keep = await keptAnswersOf(app, driverId, reader.stepOf('completeVehicleDocs'));
    const values = await reader.multipart('completeVehicleDocs', request, { keep });
    await refuseOtherChanges(driverId, driver, values);
    // One vehicle per driver: its id is made with the first photos, and kept when they are sent again.
    let vehicleId: string = randomUUID();
    const round = await saveStep(app, request, driverId, values, reader.flow.review.name, async (tx, now) => {
      const vehicle = await tx.query<{ id: string }>(
        `INSERT INTO vehicles (id, driver_id, created_at, updated_at) VALUES ($1, $2, $3, $3)
         ON CONFLICT (driver_id) DO UPDATE SET updated_at = EXCLUDED.updated_at RETURNING id`,
        [vehicleId, driverId, now],
      );
      vehicleId = vehicle.rows[0]!.id;
    });
    return answerAfter(driverId, round, { success: true, data: { vehicle: { id: vehicleId } } });
  });

  app.post(urlOf(DRIVER_ROUTES.completeVehicle, reader.flow), stepSent, async (request) => {
    const driverId = request.driverId;
    const driver = await changeableDriver(driverId, reader.stepOf('completeVehicle'));
    const keep = await keptAnswersOf(app, driverId, reader.stepOf('completeVehicle'));
    const values = await reader.multipart('completeVehicle', request, { expects: ['vehicle_id'], keep });
    const vehicleId = values.context.vehicle_id;
    const owned = await app.db.query('SELECT 1 FROM vehicles WHERE id = $1 AND driver_id = $2', [vehicleId, driverId]);
    // Someone else's vehicle and no vehicle at all answer alike.
    if (owned.rows.length === 0) throw refusal(403, 'driver.notYourVehicle');
    await refuseOtherChanges(driverId, driver, values);
    const round = await saveStep(app, request, driverId, values, reader.flow.review.name, async (tx, now) => {
      await tx.query('UPDATE vehicles SET submitted_at = $2, updated_at = $2 WHERE id = $1', [vehicleId, now]);
      // Sending the vehicle is how a driver asks for a review: pending (again), the old reason and
      // any fixes asked gone. (An approved driver gets here only replacing a document that expires.)
      await tx.query('DELETE FROM review_fixes WHERE driver_id = $1', [driverId]);
      await tx.query(
        `UPDATE drivers SET is_session_complete = true, status = 'pending', rejection_reason = NULL, submitted_at = $2, updated_at = $2
         WHERE id = $1`,
        [driverId, now],
      );
    });
    return answerAfter(driverId, round, { success: true, message: messageIn(request.locale, 'driver.vehicleSent') });
  });

  // The one route that takes a resume link's token (plugins/sessions.ts): it answers the status
  // and, in the same transaction that deletes the link's token, a new session token with who the
  // driver is (as a sign-in does). A session's request gets `data` alone.
  const statusRoute = {
    config: { tokenKinds: ['session', 'resume'] },
    schema: { params: paramsSchemaOf(DRIVER_ROUTES.status), response: { 200: { $ref: 'driver#/$defs/statusAnswer' } } },
  } as const;
  app.get<{ Params: { id: string } }>(urlOf(DRIVER_ROUTES.status, reader.flow), statusRoute, async (request): Promise<StatusAnswer> => {
    // Another driver's id is refused before anything else, and does not use up a resume token.
    if (request.params.id !== request.driverId) throw refusal(403, 'driver.notYourStatus');
    const token = request.token!;
    // A session's answer is the standing read with its token: the poll costs one query.
    if (token.holder.kind === 'session') return { data: (await driverFromRow(app.db, request.driverId, token.holder.standing, reader.flow, app.now())).data };
    const exchanged = await app.db.transaction(async (tx) => {
      const session = await app.sessions.exchangeResume(tx, token.value, request.driverId);
      const driver = session && (await returningDriver(tx, request.driverId, reader.flow, app.now()));
      return session && driver ? { ...driver, token: session.token } : null;
    });
    // Used meanwhile (a second tab, a concurrent request) or expired since the preHandler looked.
    if (!exchanged) throw signInAgain(401, reader.flowIn(request.locale).messages.sessionExpired);
    return exchanged;
  });

  /** An approved driver's documents of `step` they may replace now, each field with the words of expiries.renewReason. */
  async function renewalFixes(driverId: string, step: string, answers: Record<string, unknown>, locale: Locale): Promise<{ field: string; reason: string }[]> {
    const { rows } = await app.db.query<{ status: string }>('SELECT status FROM drivers WHERE id = $1', [driverId]);
    if (rows[0]?.status !== 'approved') return [];
    const words = loadNotices(locale).expiries;
    return renewableDocuments(expiries, step, answers, app.now().toISOString().slice(0, 10)).flatMap((document) => {
      const expiresOn = dayInWords(String(answers[document.date]), locale);
      const reason = fillPlaceholders(words.renewReason, { [FIX_REASON_VALUE]: expiresOn });
      return documentFields(document).map((field) => ({ field, reason }));
    });
  }

  /** What the driver sent of a step, to prefill its form: sensitive values masked, files as links, the fixes asked. */
  const answersAnswer = { schema: { params: paramsSchemaOf(DRIVER_ROUTES.answers), response: { 200: { $ref: 'driver#/$defs/stepAnswersAnswer' } } } };
  app.get<{ Params: { step: string } }>(urlOf(DRIVER_ROUTES.answers, reader.flow), answersAnswer, async (request): Promise<StepAnswersAnswer> => {
    const { step } = request.params;
    if (!Object.hasOwn(reader.flow.steps, step)) throw refusal(404, 'driver.noSuchStep');
    const stored = await stepAnswersOf(app.db, request.driverId, step);
    if (!stored) return { answers: null, files: {}, fixes: [] };
    const { rows: uploads } = await app.db.query<{ id: string; field: string; mime: string }>(
      'SELECT id, field, mime FROM uploads WHERE driver_id = $1 AND id = ANY($2::uuid[])',
      [request.driverId, Object.values(stored.files)],
    );
    const { rows: fixes } = await app.db.query<{ field: string; reason: string }>(
      'SELECT field, reason FROM review_fixes WHERE driver_id = $1 AND step = $2 ORDER BY field',
      [request.driverId, step],
    );
    const { rows: drivers } = await app.db.query<Pick<DriverRow, 'status' | 'renewing'>>('SELECT status, renewing FROM drivers WHERE id = $1', [
      request.driverId,
    ]);
    const onlyFields = drivers[0] ? await onlyFieldsOf(request.driverId, drivers[0], step) : null;
    return {
      ...(onlyFields ? { onlyFields: [...onlyFields] } : {}),
      answers: maskedAnswers(stored.answers),
      files: Object.fromEntries(uploads.map((upload) => [upload.field, { id: upload.id, url: `${UPLOADS_PATH}/${upload.id}`, mime: upload.mime }])),
      fixes: [
        ...fixes,
        ...(await renewalFixes(request.driverId, step, stored.answers, request.locale)).filter((each) => !fixes.some((fix) => fix.field === each.field)),
      ],
    };
  });

  /**
   * A photo or document sent ahead of its step, one a request, so that a retry resends only what
   * did not arrive. Kept for this driver, step and field, in place of one sent ahead there before,
   * and answered with its id, which the step's own call then sends as `kept:<id>`. One that no
   * step took is removed a day later (plugins/uploads.ts).
   */
  const fileAhead = {
    schema: {
      params: paramsSchemaOf(DRIVER_ROUTES.fileAhead),
      body: { $ref: 'api#/$defs/fileAheadBody' },
      consumes: ['multipart/form-data'],
      response: { 200: { $ref: 'driver#/$defs/fileAheadAnswer' } },
    },
    // The form is streamed by the call reader (lib/callReader/fileAhead.ts): the schema documents it.
    ...readsItsOwnBody,
  };
  app.post<{ Params: { step: string; field: string } }>(DRIVER_ROUTES.fileAhead.url, fileAhead, async (request): Promise<FileAheadAnswer> => {
    const { step, field } = request.params;
    const driver = await changeableDriver(request.driverId, Object.hasOwn(reader.flow.steps, step) ? step : null);
    if (driver.onlyFields && !driver.onlyFields.has(field)) throw refusal(409, 'driver.renewalOnly');
    const file = await reader.fileAhead(step, field, request);
    const { id, replaced } = await app.db.transaction(async (tx) => {
      // The one sent ahead there before, unless a step's answers hold it.
      const removed = await tx.query<{ storage_name: string }>(
        `DELETE FROM uploads u WHERE u.driver_id = $1 AND u.step = $2 AND u.field = $3 AND ${NOT_TAKEN_BY_ITS_STEP} RETURNING storage_name`,
        [request.driverId, step, field],
      );
      const added = await tx.query<{ id: string }>(
        'INSERT INTO uploads (driver_id, step, field, storage_name, mime, size, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id',
        [request.driverId, step, field, file.storageName, file.mime, file.size, app.now()],
      );
      return { id: added.rows[0]!.id, replaced: removed.rows.map((row) => row.storage_name) };
    });
    request.uncommittedUploads = null;
    await removeUnnamedFiles(app.uploads, replaced, request.log);
    return { id };
  });

  /** The driver's own photos and documents (the admin API serves anyone's). */
  app.get<{ Params: { uploadId: string } }>(DRIVER_ROUTES.upload.url, uploadAnswer, async (request, reply) => {
    const upload = await findUpload(app, request.params.uploadId);
    if (upload.driverId !== request.driverId) throw refusal(403, 'driver.notYourFile');
    return sendUpload(app, reply, upload);
  });
}
