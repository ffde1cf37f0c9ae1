/**
 * Uploaded photos and identity documents (SSN card, licence, insurance, registration). They are
 * judged by their bytes, never by the client's name or declared type, decoded and encoded again
 * without metadata (lib/reencodeImage.ts), and stored encrypted under DATA_DIR/uploads with
 * random names: outside the web root, never served as files.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from '../db/db.js';
import type { DataCipher } from './crypto.js';
import { shared } from './shared.js';

/** 10 MiB per file: the client resizes photos to ≈330 KB; this leaves room for an unresized one. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
export const UNKNOWN_TYPE = 'application/octet-stream';

const startsWith = (bytes: Uint8Array, signature: number[], at = 0) =>
  bytes.length >= at + signature.length && signature.every((byte, i) => bytes[at + i] === byte);
const ascii = (bytes: Uint8Array, from: number, to: number) => Buffer.from(bytes.subarray(from, to)).toString('latin1');

/**
 * The image type the bytes say they are, or "application/octet-stream". This becomes the form
 * value of the image field, so the step schema's own image rule and message judge it.
 */
export function sniffImageType(bytes: Uint8Array): string {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return 'image/webp';
  const gif = ascii(bytes, 0, 6);
  if (gif === 'GIF87a' || gif === 'GIF89a') return 'image/gif';
  if (ascii(bytes, 4, 8) === 'ftyp') {
    const brand = ascii(bytes, 8, 12);
    if (brand === 'heic' || brand === 'heix') return 'image/heic';
    if (brand === 'mif1' || brand === 'msf1') return 'image/heif';
  }
  return UNKNOWN_TYPE;
}

export interface UploadStore {
  /** Encrypts and writes the bytes under a new random name, which it returns. */
  save(bytes: Buffer): Promise<string>;
  read(storageName: string): Promise<Buffer>;
  remove(storageName: string): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    uploads: UploadStore;
  }
}

const STORAGE_NAME = /^[0-9a-f]{32}\.bin$/;

export function createUploadStore(dir: string, cipher: DataCipher): UploadStore {
  const pathOf = (storageName: string) => {
    if (!STORAGE_NAME.test(storageName)) throw new Error('Not an upload storage name.');
    return join(dir, storageName);
  };
  return {
    async save(bytes) {
      const storageName = `${randomBytes(16).toString('hex')}.bin`;
      // The name is the associated data: a file copied over another's name will not decrypt.
      await writeFile(pathOf(storageName), cipher.encrypt(bytes, `upload:${storageName}`), { mode: 0o600, flag: 'wx' });
      return storageName;
    },
    async read(storageName) {
      return cipher.decrypt(await readFile(pathOf(storageName)), `upload:${storageName}`);
    },
    async remove(storageName) {
      await rm(pathOf(storageName), { force: true });
    },
  };
}

/** A file younger than this may belong to a request still running (on this or another server): it is left alone. */
const ORPHAN_AGE_MS = 60 * 60 * 1000;

/**
 * Removes stored files no upload row names, older than an hour: what a crash left between writing
 * a request's files and committing their rows, or between replacing a file and removing the old
 * one (a request that fails removes its own files; this is for the ones that could not).
 * Returns how many went.
 */
export async function sweepOrphanUploads(dir: string, db: Db, now: Date): Promise<number> {
  const cutoff = now.getTime() - ORPHAN_AGE_MS;
  const names: string[] = [];
  for (const name of await readdir(dir)) {
    if (!STORAGE_NAME.test(name)) continue;
    const info = await stat(join(dir, name)).catch(() => null);
    if (info && info.mtimeMs < cutoff) names.push(name);
  }
  let removed = 0;
  for (let start = 0; start < names.length; start += 500) {
    const batch = names.slice(start, start + 500);
    const { rows } = await db.query<{ storage_name: string }>('SELECT storage_name FROM uploads WHERE storage_name = ANY($1::text[])', [batch]);
    const known = new Set(rows.map((row) => row.storage_name));
    for (const name of batch.filter((each) => !known.has(each))) {
      await rm(join(dir, name), { force: true });
      removed += 1;
    }
  }
  return removed;
}

export const uploadsPlugin = shared<{ dataDir: string }>(async (app, options) => {
  const dir = join(options.dataDir, 'uploads');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  app.decorate('uploads', createUploadStore(dir, app.cipher));
  const removed = await sweepOrphanUploads(dir, app.db, app.now());
  if (removed > 0) app.log.info({ removed }, 'Removed stored files that no upload refers to');
});
