/**
 * Moving the stored data to the current data key (docs/keys.md): `keys rotate` seals every
 * encrypted value again under the current key, and `keys status` counts, per key id, the rows and
 * files still sealed with each, so an old key leaves DATA_KEYS only once nothing uses it.
 *
 * Rotation runs beside live servers: rows go in batches, each batch in its own short transaction
 * with its rows locked, a value already under the current key is left as it is (so a stopped run
 * simply starts again), and a value that can't be opened is counted and skipped, never fatal.
 */
import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../db/db.js';
import { resealedAnswers, sealingKeysOf, type StoredAnswers } from './answers.js';
import { type DataCipher, UnknownDataKeyError } from './dataCipher.js';
import { integrationSecretContext, LAUNCH_EMAIL_CONTEXT, noticeContext, prefillContext, webhookSecretContext } from './sealContexts.js';

/** Rows per transaction: small enough that no row stays locked long. */
export const DEFAULT_BATCH_SIZE = 100;

type Row = Record<string, unknown>;

/** One kind of stored data sealed with the data keys: how its rows are read in order, and sealed again. */
interface SealedKind {
  label: string;
  table: string;
  /** The columns a row is ordered and found by. */
  keyColumns: string[];
  columns: string[];
  /** The ids of the keys that sealed a row's values. */
  keysOf(cipher: DataCipher, row: Row): string[];
  /** The columns to write to move the row to the current key. */
  resealed(cipher: DataCipher, row: Row): Row;
}

/** A table whose sealed values are bytea columns bound to the row's id. */
function sealedColumns(label: string, table: string, id: string, columns: string[], context: (id: string) => string): SealedKind {
  const present = (row: Row) => columns.filter((column) => row[column]);
  return {
    label,
    table,
    keyColumns: [id],
    columns,
    keysOf: (cipher, row) => present(row).map((column) => cipher.keyIdOf(row[column] as Uint8Array, context(String(row[id])))),
    resealed: (cipher, row) =>
      Object.fromEntries(
        present(row).map((column) => {
          const bound = context(String(row[id]));
          return [column, cipher.encrypt(cipher.decrypt(row[column] as Uint8Array, bound), bound)];
        }),
      ),
  };
}

interface StepAnswersRow {
  driver_id: string;
  step: string;
  answers: StoredAnswers;
  reviewed: { answers: StoredAnswers; files: Record<string, string> } | null;
}

const KINDS: SealedKind[] = [
  {
    label: 'step answers',
    table: 'step_answers',
    keyColumns: ['driver_id', 'step'],
    columns: ['answers', 'reviewed'],
    keysOf(cipher, row) {
      const { driver_id, step, answers, reviewed } = row as unknown as StepAnswersRow;
      return [...sealingKeysOf(cipher, driver_id, step, answers), ...(reviewed ? sealingKeysOf(cipher, driver_id, step, reviewed.answers) : [])];
    },
    // What the last review saw is sealed again with the answers: their fingerprints, made under one key, still compare.
    resealed(cipher, row) {
      const { driver_id, step, answers, reviewed } = row as unknown as StepAnswersRow;
      return {
        answers: JSON.stringify(resealedAnswers(cipher, driver_id, step, answers)),
        reviewed: reviewed && JSON.stringify({ ...reviewed, answers: resealedAnswers(cipher, driver_id, step, reviewed.answers) }),
      };
    },
  },
  sealedColumns('outgoing notices', 'outgoing_notices', 'id', ['sealed'], noticeContext),
  sealedColumns('webhook secrets', 'webhook_endpoints', 'id', ['secret', 'previous_secret'], webhookSecretContext),
  sealedColumns('integration secrets', 'integrations', 'id', ['signing_secret'], integrationSecretContext),
  {
    // The email's fingerprint is made again with the prefill, the one place the email is kept.
    ...sealedColumns('launch links', 'launch_links', 'token_hash', ['prefill'], prefillContext),
    columns: ['prefill', 'email_fingerprint'],
    resealed(cipher, row) {
      if (!row.prefill) return {};
      const bound = prefillContext(String(row.token_hash));
      const plain = cipher.decrypt(row.prefill as Uint8Array, bound);
      const { email } = JSON.parse(plain.toString()) as { email: string };
      return { prefill: cipher.encrypt(plain, bound), email_fingerprint: cipher.fingerprint(email, LAUNCH_EMAIL_CONTEXT) };
    },
  },
];

/** A value that can't be opened is counted under this name (or its missing key's id). */
const UNREADABLE = '(unreadable)';

/** The key ids a row's values were sealed with; one that can't be opened counts as its missing key or as unreadable. */
function keysOrFailure(cipher: DataCipher, kind: SealedKind, row: Row): string[] {
  try {
    return kind.keysOf(cipher, row);
  } catch (error) {
    return [error instanceof UnknownDataKeyError ? error.keyId : UNREADABLE];
  }
}

/** The next batch of a kind's rows after `after` (the key columns' values of the last row seen), in key order. */
async function nextBatch(db: Queryable, kind: SealedKind, after: unknown[] | null, size: number, lock: boolean): Promise<Row[]> {
  const keys = kind.keyColumns.join(', ');
  const placeholders = kind.keyColumns.map((_, index) => `$${index + 2}`).join(', ');
  const { rows } = await db.query<Row>(
    `SELECT ${keys}, ${kind.columns.join(', ')} FROM ${kind.table}
     ${after ? `WHERE (${keys}) > (${placeholders})` : ''} ORDER BY ${keys} LIMIT $1 ${lock ? 'FOR UPDATE' : ''}`,
    [size, ...(after ?? [])],
  );
  return rows;
}

const keyValues = (kind: SealedKind, row: Row) => kind.keyColumns.map((column) => row[column]);

/** How many rows (or files) use each key id, by kind: `{ "step answers": { "b": 12, "0": 3 } }`. */
export type KeyUsage = Record<string, Record<string, number>>;

const count = (usage: KeyUsage, label: string, keyIds: Iterable<string>) => {
  const counts = (usage[label] ??= {});
  for (const id of new Set(keyIds)) counts[id] = (counts[id] ?? 0) + 1;
};

/** Every sealed row and stored file, read in batches: which key each uses. */
export async function dataKeyUsage(app: FastifyInstance, batchSize = DEFAULT_BATCH_SIZE): Promise<KeyUsage> {
  const usage: KeyUsage = {};
  for (const kind of KINDS) {
    usage[kind.label] = {};
    for (let after: unknown[] | null = null; ; ) {
      const rows = await nextBatch(app.db, kind, after, batchSize, false);
      for (const row of rows) count(usage, kind.label, keysOrFailure(app.cipher, kind, row));
      if (rows.length < batchSize) break;
      after = keyValues(kind, rows.at(-1) as Row);
    }
  }
  usage['uploaded documents'] = {};
  await eachUpload(app.db, batchSize, async (upload) => {
    const keyId = await uploadKeyId(app, upload.storage_name);
    if (keyId) count(usage, 'uploaded documents', [keyId]);
  });
  return usage;
}

async function uploadKeyId(app: FastifyInstance, storageName: string): Promise<string | null> {
  try {
    return await app.uploads.keyIdOf(storageName);
  } catch (error) {
    return error instanceof UnknownDataKeyError ? error.keyId : UNREADABLE;
  }
}

/** Each upload row, in batches (read without locks: each is locked as it is moved). */
async function eachUpload(db: Queryable, batchSize: number, visit: (upload: { id: string; storage_name: string }) => Promise<void>): Promise<void> {
  for (let after: string | null = null; ; ) {
    const { rows }: { rows: { id: string; storage_name: string }[] } = await db.query(
      `SELECT id, storage_name FROM uploads ${after ? 'WHERE id > $2' : ''} ORDER BY id LIMIT $1`,
      after ? [batchSize, after] : [batchSize],
    );
    for (const row of rows) await visit(row);
    if (rows.length < batchSize) return;
    after = (rows.at(-1) as { id: string }).id;
  }
}

/** What a rotation did, by kind: rows moved to the current key, and rows it could not open (left as they are). */
export type RotationReport = Record<string, { moved: number; unreadable: number }>;

/** Seals every value not under the current key again under it; `progress` hears each batch. */
export async function rotateDataKeys(
  app: FastifyInstance,
  progress: (label: string, report: { moved: number; unreadable: number; seen: number }) => void,
  batchSize = DEFAULT_BATCH_SIZE,
): Promise<RotationReport> {
  const current = app.cipher.currentKeyId;
  const report: RotationReport = {};
  for (const kind of KINDS) {
    const done = { moved: 0, unreadable: 0, seen: 0 };
    for (let after: unknown[] | null = null; ; ) {
      const rows = await app.db.transaction(async (tx) => {
        const batch = await nextBatch(tx, kind, after, batchSize, true);
        for (const row of batch) {
          const keyIds = keysOrFailure(app.cipher, kind, row);
          if (keyIds.every((id) => id === current)) continue;
          if (keyIds.some((id) => !app.cipher.keyIds.includes(id))) {
            done.unreadable += 1;
            continue;
          }
          const changed = Object.entries(kind.resealed(app.cipher, row));
          const where = kind.keyColumns.map((column, index) => `${column} = $${changed.length + index + 1}`).join(' AND ');
          await tx.query(`UPDATE ${kind.table} SET ${changed.map(([column], index) => `${column} = $${index + 1}`).join(', ')} WHERE ${where}`, [
            ...changed.map(([, value]) => value),
            ...keyValues(kind, row),
          ]);
          done.moved += 1;
        }
        return batch;
      });
      done.seen += rows.length;
      progress(kind.label, done);
      if (rows.length < batchSize) break;
      after = keyValues(kind, rows.at(-1) as Row);
    }
    report[kind.label] = { moved: done.moved, unreadable: done.unreadable };
  }
  const uploads = { moved: 0, unreadable: 0, seen: 0 };
  await eachUpload(app.db, batchSize, async (upload) => {
    uploads.seen += 1;
    const moved = await rotateUpload(app, upload.id);
    if (moved === 'moved') uploads.moved += 1;
    if (moved === 'unreadable') uploads.unreadable += 1;
    if (uploads.seen % batchSize === 0) progress('uploaded documents', uploads);
  });
  progress('uploaded documents', uploads);
  report['uploaded documents'] = { moved: uploads.moved, unreadable: uploads.unreadable };
  return report;
}

/**
 * One document sealed again under a new name, its row locked meanwhile and pointed at it; the old
 * file is removed once that is committed (a crash in between leaves an orphan the start-up sweep removes).
 */
async function rotateUpload(app: FastifyInstance, id: string): Promise<'moved' | 'current' | 'unreadable'> {
  const outcome = await app.db.transaction(async (tx) => {
    const { rows } = await tx.query<{ storage_name: string }>('SELECT storage_name FROM uploads WHERE id = $1 FOR UPDATE', [id]);
    const old = rows[0]?.storage_name;
    if (!old) return 'current' as const;
    const keyId = await uploadKeyId(app, old);
    if (keyId === null || keyId === app.cipher.currentKeyId) return 'current' as const;
    if (!app.cipher.keyIds.includes(keyId)) return 'unreadable' as const;
    const resealed = await app.uploads.reseal(old);
    await tx.query('UPDATE uploads SET storage_name = $2 WHERE id = $1', [id, resealed]);
    return { old };
  });
  if (typeof outcome === 'string') return outcome;
  await app.uploads.remove(outcome.old).catch(() => undefined);
  return 'moved';
}
