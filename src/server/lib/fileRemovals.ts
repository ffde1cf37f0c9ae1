/**
 * Stored documents whose rows were deleted. Their names are written to file_removals in the
 * transaction that deletes the rows, and crossed off as each file goes: a document store that fails
 * half-way loses track of nothing, and the next retention pass (plugins/retention.ts) removes
 * what is left.
 */
import pLimit from 'p-limit';
import type { Db, Queryable } from '../db/db.js';
import type { UploadStore } from './uploadStore.js';

/** Writes the names down in `tx`, the transaction that deletes their rows. */
export async function queueFileRemovals(tx: Queryable, storageNames: readonly string[], now: Date): Promise<void> {
  if (storageNames.length === 0) return;
  await tx.query('INSERT INTO file_removals (storage_name, queued_at) SELECT unnest($1::text[]), $2 ON CONFLICT DO NOTHING', [storageNames, now]);
}

/** Removes the files (all that are queued, when no names are given) and crosses off those that went; answers how many went and how many are left. */
export async function removeQueuedFiles(db: Db, uploads: UploadStore, storageNames?: readonly string[]): Promise<{ removed: number; left: number }> {
  const names = storageNames ?? (await db.query<{ storage_name: string }>('SELECT storage_name FROM file_removals')).rows.map((row) => row.storage_name);
  // A few at a time: an erased driver has a dozen files, a year's first pass may have thousands.
  const limit = pLimit(8);
  const results = await Promise.allSettled(names.map((name) => limit(() => uploads.remove(name))));
  const removed = names.filter((_, index) => results[index]!.status === 'fulfilled');
  if (removed.length > 0) await db.query('DELETE FROM file_removals WHERE storage_name = ANY($1::text[])', [removed]);
  return { removed: removed.length, left: names.length - removed.length };
}
