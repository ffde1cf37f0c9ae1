/**
 * A driver's answers, stored as data: one document per submitted step (migration 007), written
 * and read by the step's schema, so a field ops staff add is kept, reviewed and exported with
 * no change here. Fields the schema marks `"sensitive": true` are sealed one by one (AES-GCM,
 * bound to the driver, the step and the field) and leave the server masked, unless the driver's
 * own data is exported.
 */
import type { Queryable } from '../db/db.js';
import { type DataCipher, UnknownDataKeyError } from './dataCipher.js';

/** A sensitive answer as stored. */
interface SealedAnswer {
  $sealed: string;
  $masked: string;
  /** A keyed hash: tells a changed value from an unchanged one without decrypting. */
  $fingerprint: string;
}

/** A sensitive answer moved by migration 007 before the server sealed it again (`resealLegacyAnswers`). */
interface LegacyAnswer {
  $legacy: string;
  $legacyContext: string;
  $masked: string;
}

export type StoredAnswers = Record<string, unknown>;

export interface StepAnswers {
  step: string;
  schemaName: string;
  schemaVersion: string;
  answers: StoredAnswers;
  /** Upload id by form field. */
  files: Record<string, string>;
  submittedAt: Date;
  /** What the last decision saw; null before any. */
  reviewed: { answers: StoredAnswers; files: Record<string, string> } | null;
}

const contextOf = (driverId: string, step: string, field: string) => `answers:${driverId}:${step}:${field}`;

/** "•••••6789": the last four characters of a long value, nothing of a short one. */
export const maskText = (value: string) => (value.length >= 8 ? `•••••${value.slice(-4)}` : '•••••');

const isProtected = (value: unknown): value is SealedAnswer | LegacyAnswer =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { $masked?: unknown }).$masked === 'string';

/** The answers to store: the sensitive fields sealed, the rest as the schema checked them (also how a sent step is compared with the stored one). */
export function sealAnswers(cipher: DataCipher, driverId: string, step: string, form: StoredAnswers, sensitive: readonly string[]): StoredAnswers {
  const stored: StoredAnswers = {};
  for (const [field, value] of Object.entries(form)) {
    if (!sensitive.includes(field) || typeof value !== 'string') {
      stored[field] = value;
      continue;
    }
    const context = contextOf(driverId, step, field);
    const sealed: SealedAnswer = {
      $sealed: cipher.encrypt(value, context).toString('base64'),
      $masked: maskText(value),
      $fingerprint: cipher.fingerprint(value, context),
    };
    stored[field] = sealed;
  }
  return stored;
}

/** The answers of a step renamed `from` → `to`: each sealed value sealed again under the new name, which it is bound to. */
export function resealedUnder(cipher: DataCipher, driverId: string, from: string, to: string, stored: StoredAnswers): StoredAnswers {
  const sealed = Object.keys(stored).filter((field) => {
    const value = stored[field];
    return isProtected(value) && '$sealed' in value;
  });
  if (sealed.length === 0) return stored;
  const plain = openAnswers(cipher, driverId, from, Object.fromEntries(sealed.map((field) => [field, stored[field]])));
  return { ...stored, ...sealAnswers(cipher, driverId, to, plain, sealed) };
}

/** The ids of the data keys that sealed the stored answers' sensitive fields (a moved one's was the legacy key). */
export function sealingKeysOf(cipher: DataCipher, driverId: string, step: string, stored: StoredAnswers): string[] {
  return Object.entries(stored).flatMap(([field, value]) => {
    if (!isProtected(value)) return [];
    return [
      '$sealed' in value
        ? cipher.keyIdOf(Buffer.from(value.$sealed, 'base64'), contextOf(driverId, step, field))
        : cipher.keyIdOf(Buffer.from(value.$legacy, 'base64'), `${value.$legacyContext}:${driverId}`),
    ];
  });
}

/** The answers with every sensitive field sealed again, and fingerprinted, under the current data key. */
export function resealedAnswers(cipher: DataCipher, driverId: string, step: string, stored: StoredAnswers): StoredAnswers {
  const fields = Object.keys(stored).filter((field) => isProtected(stored[field]));
  if (fields.length === 0) return stored;
  const plain = openAnswers(cipher, driverId, step, Object.fromEntries(fields.map((field) => [field, stored[field]])));
  return { ...stored, ...sealAnswers(cipher, driverId, step, plain, fields) };
}

/** The answers as a reviewer (or the driver's prefilled form) sees them: sensitive values masked. */
export function maskedAnswers(stored: StoredAnswers): StoredAnswers {
  return Object.fromEntries(Object.entries(stored).map(([field, value]) => [field, isProtected(value) ? value.$masked : value]));
}

/** The answers in clear: only for the driver's own data (an export) or what the product must use (a payout). */
export function openAnswers(cipher: DataCipher, driverId: string, step: string, stored: StoredAnswers): StoredAnswers {
  return Object.fromEntries(
    Object.entries(stored).map(([field, value]) => {
      if (!isProtected(value)) return [field, value];
      const plain =
        '$sealed' in value
          ? cipher.decrypt(Buffer.from(value.$sealed, 'base64'), contextOf(driverId, step, field))
          : cipher.decrypt(Buffer.from(value.$legacy, 'base64'), `${value.$legacyContext}:${driverId}`);
      return [field, plain.toString('utf8')];
    }),
  );
}

/** A value as "changed since the last review" compares it: a sealed one by its fingerprint. */
export function comparableAnswer(value: unknown): string {
  if (isProtected(value)) return '$fingerprint' in value ? `sealed:${value.$fingerprint}` : `legacy:${value.$legacy}`;
  return JSON.stringify(value ?? null);
}

/**
 * The sensitive value a driver kept by sending its mask back unchanged (a prefilled form shows
 * "•••••6789"): the stored sealed value, or undefined when the value sent is not that mask.
 */
export function keptSealedValue(previous: StoredAnswers | undefined, field: string, sent: unknown): unknown {
  const stored = previous?.[field];
  return isProtected(stored) && sent === stored.$masked ? stored : undefined;
}

interface StepAnswersRow {
  step: string;
  schema_name: string;
  schema_version: string;
  answers: StoredAnswers;
  files: Record<string, string>;
  submitted_at: Date;
  reviewed: StepAnswers['reviewed'];
}

const fromRow = (row: StepAnswersRow): StepAnswers => ({
  step: row.step,
  schemaName: row.schema_name,
  schemaVersion: row.schema_version,
  answers: row.answers,
  files: row.files,
  submittedAt: row.submitted_at,
  reviewed: row.reviewed,
});

/** The driver's stored steps, in the order they were first sent. */
export async function answersOf(db: Queryable, driverId: string): Promise<StepAnswers[]> {
  const { rows } = await db.query<StepAnswersRow>(
    'SELECT step, schema_name, schema_version, answers, files, submitted_at, reviewed FROM step_answers WHERE driver_id = $1 ORDER BY submitted_at, step',
    [driverId],
  );
  return rows.map(fromRow);
}

/** One stored step of the driver, or null. */
export async function stepAnswersOf(db: Queryable, driverId: string, step: string): Promise<StepAnswers | null> {
  const { rows } = await db.query<StepAnswersRow>(
    'SELECT step, schema_name, schema_version, answers, files, submitted_at, reviewed FROM step_answers WHERE driver_id = $1 AND step = $2',
    [driverId, step],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

export interface SavedStep {
  driverId: string;
  step: string;
  /** The form's schema as the request reader read it: its name, version and sensitive fields. */
  schema: { name: string; version: string; sensitive: readonly string[] };
  /** The form's answers in the clear (files left out): the sensitive ones are sealed here. */
  form: StoredAnswers;
  /** Upload id by file field. */
  files: Record<string, string>;
  now: Date;
}

/**
 * The one way a step's answers are stored: sensitive fields sealed, replacing the ones sent before
 * (what the last review saw stays for comparison), or with `firstOnly` only when the step has none
 * yet, the row deciding (two first requests at once can't both be first). Whether they were stored.
 */
export async function saveStepAnswers(tx: Queryable, cipher: DataCipher, saved: SavedStep, { firstOnly = false } = {}): Promise<boolean> {
  const answers = sealAnswers(cipher, saved.driverId, saved.step, saved.form, saved.schema.sensitive);
  const { rows } = await tx.query(
    `INSERT INTO step_answers (driver_id, step, schema_name, schema_version, answers, files, submitted_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (driver_id, step) ${
       firstOnly
         ? 'DO NOTHING'
         : `DO UPDATE SET schema_name = EXCLUDED.schema_name, schema_version = EXCLUDED.schema_version,
       answers = EXCLUDED.answers, files = EXCLUDED.files, submitted_at = EXCLUDED.submitted_at`
     } RETURNING driver_id`,
    [saved.driverId, saved.step, saved.schema.name, saved.schema.version, JSON.stringify(answers), JSON.stringify(saved.files), saved.now],
  );
  return rows.length > 0;
}

/** The upgrade resealLegacyAnswers makes, as upgrades_done names it once no moved answer is left. */
const RESEAL_UPGRADE = 'answers sealed field by field';

/**
 * Seals again, field by field, the sensitive answers migration 007 moved with their old ciphertext.
 * A row whose key DATA_KEYS no longer holds is left as it is (the server still starts); how many
 * were is answered, for the log. Once none is left the upgrade is marked done, and a later start
 * reads that mark instead of every driver's answers.
 */
export async function resealLegacyAnswers(db: Queryable, cipher: DataCipher, now: Date): Promise<{ resealed: number; unreadable: number }> {
  const done = await db.query('SELECT 1 FROM upgrades_done WHERE name = $1', [RESEAL_UPGRADE]);
  if (done.rows.length > 0) return { resealed: 0, unreadable: 0 };
  const { rows } = await db.query<{ driver_id: string; step: string; answers: StoredAnswers }>(
    `SELECT driver_id, step, answers FROM step_answers WHERE answers::text LIKE '%"$legacy"%'`,
  );
  let unreadable = 0;
  for (const row of rows) {
    let resealed: StoredAnswers;
    try {
      resealed = resealedAnswers(cipher, row.driver_id, row.step, row.answers);
    } catch (error) {
      if (!(error instanceof UnknownDataKeyError)) throw error;
      unreadable += 1;
      continue;
    }
    await db.query('UPDATE step_answers SET answers = $3 WHERE driver_id = $1 AND step = $2', [row.driver_id, row.step, JSON.stringify(resealed)]);
  }
  // Answers left for a key DATA_KEYS does not hold yet are looked for again at the next start.
  if (unreadable === 0) await db.query('INSERT INTO upgrades_done (name, done_at) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [RESEAL_UPGRADE, now]);
  return { resealed: rows.length - unreadable, unreadable };
}

/**
 * Seals the answers stored in the clear of a field its schema marks sensitive now (an edit made it
 * so after drivers had sent it), field by field: checked at each start, once per schema and field,
 * then marked done. A start that stops half-way leaves the rest for the next. Answers how many
 * steps it sealed, for the log.
 */
export async function sealNewlySensitiveAnswers(
  db: Queryable,
  cipher: DataCipher,
  sensitiveBySchema: Record<string, readonly string[]>,
  now: Date,
): Promise<number> {
  let sealed = 0;
  for (const [schema, fields] of Object.entries(sensitiveBySchema)) {
    for (const field of fields) {
      const upgrade = `answers to ${schema}.${field} sealed`;
      if ((await db.query('SELECT 1 FROM upgrades_done WHERE name = $1', [upgrade])).rows.length > 0) continue;
      const { rows } = await db.query<{ driver_id: string; step: string; answers: StoredAnswers }>(
        `SELECT driver_id, step, answers FROM step_answers WHERE schema_name = $1 AND jsonb_typeof(answers -> $2) = 'string'`,
        [schema, field],
      );
      for (const row of rows) {
        const answers = { ...row.answers, ...sealAnswers(cipher, row.driver_id, row.step, { [field]: row.answers[field] }, [field]) };
        await db.query('UPDATE step_answers SET answers = $3 WHERE driver_id = $1 AND step = $2', [row.driver_id, row.step, JSON.stringify(answers)]);
      }
      await db.query('INSERT INTO upgrades_done (name, done_at) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [upgrade, now]);
      sealed += rows.length;
    }
  }
  return sealed;
}
