/**
 * What the upload store (plugins/uploads.ts) takes and gives: the routes and the call reader work
 * with these shapes, whichever store the server runs with.
 */
import type { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';

/** 10 MiB per file: the client resizes photos to ≈330 KB; this leaves room for an unresized one. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** A file of a request, received to a scratch file. */
export interface ReceivedFile {
  path: string;
  size: number;
  /** As sharp reads its header (lib/reencodeImage.ts `imageTypeOf`). */
  mime: string;
}

/** A document as it is kept: its random name in the store, the type it was encoded as, and its size. */
export interface StoredFile {
  storageName: string;
  mime: string;
  size: number;
}

export interface UploadStore {
  /** Writes a request's file to a scratch file as it arrives (remove it with `discard`). */
  receive(stream: Readable): Promise<ReceivedFile>;
  discard(file: ReceivedFile): Promise<void>;
  /**
   * Decodes and encodes the image again (one at a time in the whole server), encrypts it and
   * keeps it under a new random name. Throws the 400/413 of an image that can't be taken.
   */
  store(file: ReceivedFile, field: string): Promise<StoredFile>;
  read(storageName: string): Promise<Buffer | null>;
  /** The id of the data key the stored file is sealed with, or null when there is no such file. */
  keyIdOf(storageName: string): Promise<string | null>;
  /** The file sealed again with the current data key, under a new name (the name is bound to the seal); the old one is left for the caller to remove. */
  reseal(storageName: string): Promise<string>;
  remove(storageName: string): Promise<void>;
}

/**
 * Removes stored files that no committed row names any more (a step's answers replaced them). One
 * that can't be removed now is an orphan the sweep at the next start removes: said in the log,
 * never the request's failure.
 */
export async function removeUnnamedFiles(uploads: UploadStore, storageNames: string[], log: FastifyBaseLogger): Promise<void> {
  const removals = await Promise.allSettled(storageNames.map((name) => uploads.remove(name)));
  const notRemoved = removals.filter((result) => result.status === 'rejected').length;
  if (notRemoved > 0) log.warn({ notRemoved }, 'Replaced files could not be removed now: the sweep at the next start removes them');
}
