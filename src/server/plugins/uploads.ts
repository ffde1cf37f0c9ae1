/**
 * Uploaded photos and identity documents (SSN card, licence, insurance, registration). They are
 * judged by their bytes, never by the client's name or declared type, decoded and encoded again
 * without metadata (lib/reencodeImage.ts), encrypted by the server and kept under random names in
 * the object store (a folder, or an S3-compatible bucket): never served as files.
 *
 * A request's files go to scratch files on this machine's disk as they arrive, not to memory, and
 * are decoded one at a time across the whole server: six drivers sending six 10 MB photos each at
 * once hold a few megabytes each, not hundreds.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pLimit from 'p-limit';
import type { FastifyRequest } from 'fastify';
import type { StorageConfig } from '../config.js';
import type { Db, Queryable } from '../db/db.js';
import { imageTypeOf, reencodeImage } from '../lib/reencodeImage.js';
import { createDiskStore } from '../storage/diskStore.js';
import type { ObjectStore } from '../storage/objectStore.js';
import type { DataCipher } from '../lib/dataCipher.js';
import type { StoredFile, UploadStore } from '../lib/uploadStore.js';
import type { Metrics } from './metrics.js';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    uploads: UploadStore;
  }
  interface FastifyRequest {
    /**
     * Documents this request stored that no committed row names yet (null until it stores one).
     * Whatever is left here when the response has gone (the request failed) is removed; a route
     * that commits its rows sets it back to null.
     */
    uncommittedUploads: StoredFile[] | null;
  }
}

const STORAGE_NAME = /^[0-9a-f]{32}\.bin$/;

/** How many images the server decodes at once: each can take up to 40 megapixels × 4 bytes. */
const REENCODE_SLOTS = pLimit(1);

const newStorageName = () => `${randomBytes(16).toString('hex')}.bin`;

export function createUploadStore(store: ObjectStore, scratchDir: string, cipher: DataCipher): UploadStore {
  const checked = (storageName: string) => {
    if (!STORAGE_NAME.test(storageName)) throw new Error('Not an upload storage name.');
    return storageName;
  };
  const scratchPath = () => join(scratchDir, `${randomBytes(16).toString('hex')}.part`);
  const read = async (storageName: string) => {
    const sealed = await store.get(checked(storageName));
    return sealed && cipher.decrypt(sealed, `upload:${storageName}`);
  };
  return {
    async receive(stream) {
      const path = scratchPath();
      const file = createWriteStream(path, { mode: 0o600, flags: 'wx' });
      try {
        await pipeline(stream, file);
      } catch (error) {
        await rm(path, { force: true });
        throw error;
      }
      return { path, size: file.bytesWritten, mime: await imageTypeOf(path) };
    },
    discard: (file) => rm(file.path, { force: true }),
    async store(file, field) {
      // Encoded to a scratch file and sealed from it as it is read: a chunk at a time in memory.
      const encoded = scratchPath();
      try {
        const mime = await REENCODE_SLOTS(() => reencodeImage(file.path, encoded, field));
        const storageName = newStorageName();
        const source = createReadStream(encoded);
        // The name is the associated data: an object copied over another's name will not decrypt.
        await store.put(storageName, Readable.from(cipher.encryptStream(source, `upload:${storageName}`)));
        return { storageName, mime, size: source.bytesRead };
      } finally {
        await rm(encoded, { force: true });
      }
    },
    read,
    async keyIdOf(storageName) {
      const sealed = await store.get(checked(storageName));
      return sealed && cipher.keyIdOf(sealed, `upload:${storageName}`);
    },
    async reseal(storageName) {
      const plain = await read(storageName);
      if (!plain) throw new Error(`The stored file ${storageName} is missing.`);
      const resealed = newStorageName();
      await store.put(resealed, Readable.from(cipher.encryptStream(Readable.from([plain]), `upload:${resealed}`)));
      return resealed;
    },
    remove: (storageName) => store.delete(checked(storageName)),
  };
}

/** A file younger than this may belong to a request still running (on this or another server): it is left alone. */
const ORPHAN_AGE_MS = 60 * 60 * 1000;

/**
 * Removes stored documents no upload row names, and scratch files, older than an hour: what a
 * crash left between writing a request's files and committing their rows, or between replacing a
 * document and removing the old one (a request that fails removes its own; this is for the ones
 * that could not). Returns how many went.
 */
export async function sweepOrphanUploads(store: ObjectStore, scratch: ObjectStore, db: Db, now: Date): Promise<number> {
  const cutoff = now.getTime() - ORPHAN_AGE_MS;
  let removed = 0;
  for await (const { name, modifiedAt } of scratch.list()) {
    if (modifiedAt.getTime() < cutoff) {
      await scratch.delete(name);
      removed += 1;
    }
  }
  const old: string[] = [];
  for await (const { name, modifiedAt } of store.list()) if (STORAGE_NAME.test(name) && modifiedAt.getTime() < cutoff) old.push(name);
  for (let start = 0; start < old.length; start += 500) {
    const batch = old.slice(start, start + 500);
    const { rows } = await db.query<{ storage_name: string }>('SELECT storage_name FROM uploads WHERE storage_name = ANY($1::text[])', [batch]);
    const known = new Set(rows.map((row) => row.storage_name));
    for (const name of batch.filter((each) => !known.has(each))) {
      await store.delete(name);
      removed += 1;
    }
  }
  return removed;
}

/** SQL: the upload `u` is a file sent ahead of its step (routes/driver.ts) that the step's answers have not taken. */
export const NOT_TAKEN_BY_ITS_STEP =
  'NOT EXISTS (SELECT 1 FROM step_answers a WHERE a.driver_id = u.driver_id AND a.step = u.step AND a.files ->> u.field = u.id::text)';

/** deleteUntakenUploads' statement: $1 sent before, $2 sent from (or null), $3 now. */
export const UNTAKEN_UPLOADS = `
  WITH gone AS (
    DELETE FROM uploads u WHERE u.created_at < $1 AND u.created_at >= coalesce($2, '-infinity'::timestamptz) AND ${NOT_TAKEN_BY_ITS_STEP}
    RETURNING storage_name
  )
  INSERT INTO file_removals (storage_name, queued_at) SELECT storage_name, $3 FROM gone ON CONFLICT DO NOTHING RETURNING storage_name`;

/**
 * Deletes the rows of the files sent ahead of a step that no step's answers took, sent before
 * `sentBefore` (and from `sentFrom` on, when given: what an earlier pass looked at already is not
 * read again), writing their stored files down for removal in the same statement
 * (lib/fileRemovals.ts). The retention pass runs it (plugins/retention.ts); answers the files' names.
 */
export async function deleteUntakenUploads(db: Queryable, sentBefore: Date, sentFrom: Date | null, now: Date): Promise<string[]> {
  const { rows } = await db.query<{ storage_name: string }>(UNTAKEN_UPLOADS, [sentBefore, sentFrom, now]);
  return rows.map((row) => row.storage_name);
}

/** The store, each file it receives or stores counted in `inFlight` while it is handled. */
function inFlightCounted(uploads: UploadStore, inFlight: Metrics['uploadsInFlight']): UploadStore {
  const counted =
    <Args extends unknown[], Result>(stage: string, work: (...args: Args) => Promise<Result>) =>
    async (...args: Args) => {
      inFlight.inc({ stage });
      try {
        return await work(...args);
      } finally {
        inFlight.dec({ stage });
      }
    };
  return { ...uploads, receive: counted('receiving', uploads.receive), store: counted('storing', uploads.store) };
}

export const uploadsPlugin = fp<{ dataDir: string; storage: StorageConfig }>(
  async (app, options) => {
    // The S3 SDK is loaded only where S3 is configured.
    const store =
      options.storage.kind === 's3'
        ? (await import('../storage/s3Store.js')).createS3Store(options.storage)
        : await createDiskStore(join(options.dataDir, 'uploads'));
    const scratchDir = join(options.dataDir, 'scratch');
    await mkdir(scratchDir, { recursive: true, mode: 0o700 });
    const scratch = await createDiskStore(scratchDir);
    const uploads = inFlightCounted(createUploadStore(store, scratchDir, app.cipher), app.metrics.uploadsInFlight);
    app.decorate('uploads', uploads);
    app.decorateRequest('uncommittedUploads', null);
    // Files written for a request that failed go with it, whatever stage it failed at: before its
    // error answer is sent, or once the answer is gone (a reply sent some other way, a dropped client).
    const discardUncommitted = async (request: FastifyRequest) => {
      const left = request.uncommittedUploads;
      if (!left) return;
      request.uncommittedUploads = null;
      await Promise.all(
        left.map((file) =>
          uploads
            .remove(file.storageName)
            .catch((error: unknown) => request.log.warn({ error: String(error) }, 'A stored file of a failed request could not be removed')),
        ),
      );
    };
    // Only a POST stores files: the hooks sit on those routes alone, not on every request.
    const withDiscard = <Hook>(hooks: Hook | Hook[] | undefined, hook: Hook): Hook[] => [...(hooks === undefined ? [] : ([hooks].flat() as Hook[])), hook];
    app.addHook('onRoute', (route) => {
      if (![route.method].flat().includes('POST')) return;
      route.onError = withDiscard(route.onError, discardUncommitted);
      route.onResponse = withDiscard(route.onResponse, discardUncommitted);
      route.onRequestAbort = withDiscard(route.onRequestAbort, discardUncommitted);
    });
    app.addHook('onClose', async () => store.close?.());
    const removed = await sweepOrphanUploads(store, scratch, app.db, app.now());
    if (removed > 0) app.log.info({ removed }, 'Removed stored files that no upload refers to');
  },
  { name: 'onramp-uploads', decorators: { fastify: ['cipher', 'db', 'metrics', 'now'] } },
);
