/**
 * How a driver's step is stored (routes/driver.ts): what the driver may keep from its earlier
 * answers, and the one transaction that stores the answers, the files and the review state.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Review } from '../../shared/flow.js';
import type { Queryable } from '../db/db.js';
import { removeUnnamedFiles } from './uploadStore.js';
import { keptSealedValue, openAnswers, saveStepAnswers, stepAnswersOf } from './answers.js';
import type { CallValues, ContextName, KeptAnswers } from './callReader/checkCall.js';

/** A change to what a reviewer judges: the next decision must be made on this version. */
const bumpReviewVersion = (tx: Queryable, driverId: string, now: Date) =>
  tx.query('UPDATE drivers SET review_version = review_version + 1, updated_at = $2 WHERE id = $1', [driverId, now]);

/**
 * What a driver sending a step may keep (lib/callReader/checkCall.ts): a file of the step's earlier answers
 * or one sent ahead of it (POST /driver/uploads/:step/:field), each in its own field; a sensitive
 * value of the earlier answers, sent back as its mask.
 */
export async function keptAnswersOf(app: FastifyInstance, driverId: string, step: string | null): Promise<KeptAnswers | undefined> {
  if (!step) return undefined;
  const previous = await stepAnswersOf(app.db, driverId, step);
  const { rows } = await app.db.query<{ id: string; field: string; mime: string }>('SELECT id, field, mime FROM uploads WHERE driver_id = $1 AND step = $2', [
    driverId,
    step,
  ]);
  const uploads = new Map(rows.map((row) => [row.id, row]));
  let plain: Record<string, unknown> | null = null;
  return {
    file: (field, uploadId) => {
      const upload = uploads.get(uploadId);
      return upload?.field === field ? upload.mime : undefined;
    },
    masked(field, value) {
      if (!previous || keptSealedValue(previous.answers, field, value) === undefined) return undefined;
      plain ??= openAnswers(app.cipher, driverId, previous.step, previous.answers);
      const kept = plain[field];
      return typeof kept === 'string' ? kept : undefined;
    },
  };
}

/** Where a driver stands after sending a step the reviewer asked to fix. */
export interface FixRound {
  /** The driver had fixes to make (the answer then carries the status, for the flow's resume table). */
  fixing: boolean;
}

/**
 * Stores a step's answers and files with `work`, in one transaction: the answers as data
 * (sensitive fields sealed), the new files' rows, and the step's earlier files that were neither
 * kept nor replaced removed once committed. A step the reviewer asked to fix is fixed by sending
 * it; when no fix is left the driver is back in the review queue. If anything fails, the
 * request's files go with it (plugins/uploads.ts).
 */
export async function saveStep(
  app: FastifyInstance,
  request: FastifyRequest,
  driverId: string,
  values: Omit<CallValues<ContextName>, 'context'>,
  reviewName: Review['name'],
  work: (tx: Queryable, now: Date) => Promise<void>,
): Promise<FixRound> {
  const { step, schema } = values;
  if (!step || !schema) throw new Error('saveStep needs a form step');
  const fileFields = new Set([...Object.keys(values.files), ...Object.keys(values.keptFiles)]);
  const form = Object.fromEntries(Object.entries(values.form).filter(([field]) => !fileFields.has(field)));
  const now = app.now();
  const { replaced, fixing } = await app.db.transaction(async (tx) => {
    // The fixes asked of this step are sent with it: counted before `work`, which clears every fix
    // when the step sends everything for review (completeVehicle).
    const fixed = await tx.query('DELETE FROM review_fixes WHERE driver_id = $1 AND step = $2 RETURNING field', [driverId, step]);
    // An approved driver sends a step only to replace a document that expires (routes/driver.ts's
    // changeableDriver): back in the review queue, the rest still locked until the next approval.
    await tx.query(`UPDATE drivers SET status = 'pending', renewing = true, submitted_at = $2 WHERE id = $1 AND status = 'approved'`, [driverId, now]);
    // The step by the flow's own name: a step added to the flow is told with no change here.
    await app.webhooks.emit(tx, driverId, 'driver.step.sent', { step });
    await work(tx, now);
    const files: Record<string, string> = { ...values.keptFiles };
    for (const [field, file] of Object.entries(values.files)) {
      const added = await tx.query<{ id: string }>(
        'INSERT INTO uploads (driver_id, step, field, storage_name, mime, size, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id',
        [driverId, step, field, file.storageName, file.mime, file.size, now],
      );
      files[field] = added.rows[0]!.id;
    }
    const removed = await tx.query<{ storage_name: string }>(
      'DELETE FROM uploads WHERE driver_id = $1 AND step = $2 AND NOT (id = ANY($3::uuid[])) RETURNING storage_name',
      [driverId, step, Object.values(files)],
    );
    await saveStepAnswers(tx, app.cipher, { driverId, step, schema, form, files, now });
    // The review queue's name, kept with the step that holds it (the flow's review.name).
    if (step === reviewName.step) {
      const name = reviewName.fields
        .map((field) => form[field])
        .filter((part) => typeof part === 'string' && part.trim())
        .join(' ');
      await tx.query('UPDATE drivers SET review_name = $2 WHERE id = $1', [driverId, name || null]);
    }
    await bumpReviewVersion(tx, driverId, now);
    const left = await tx.query('SELECT 1 FROM review_fixes WHERE driver_id = $1 LIMIT 1', [driverId]);
    // The last fix sent: back in the review queue, the old reason gone.
    if (fixed.rows.length > 0 && left.rows.length === 0) {
      await tx.query(`UPDATE drivers SET status = 'pending', rejection_reason = NULL, submitted_at = $2 WHERE id = $1 AND status = 'rejected'`, [
        driverId,
        now,
      ]);
    }
    // Sent for review by this step (the vehicle, a renewal, the last fix): what its status updates mark.
    const { rows: sent } = await tx.query<{ renewing: boolean }>('SELECT renewing FROM drivers WHERE id = $1 AND submitted_at = $2', [driverId, now]);
    if (sent[0]) await app.webhooks.emit(tx, driverId, 'driver.review.requested', { renewal: sent[0].renewing });
    return { replaced: removed.rows.map((row) => row.storage_name), fixing: fixed.rows.length > 0 };
  });
  // Committed: the new files are the driver's now, and the ones they replace can go.
  request.uncommittedUploads = null;
  await removeUnnamedFiles(app.uploads, replaced, request.log);
  return { fixing };
}
