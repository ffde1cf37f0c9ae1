/**
 * Where the encrypted documents are kept, by name: a folder on this machine (the local default),
 * or an S3-compatible bucket that every server instance shares. The store sees only sealed bytes:
 * encryption is done before (plugins/uploads.ts).
 */
import type { Readable } from 'node:stream';

export interface ObjectStore {
  /** Writes the sealed bytes as they come. */
  put(name: string, sealed: Readable): Promise<void>;
  /** The bytes, or null when there is no such object. */
  get(name: string): Promise<Buffer | null>;
  delete(name: string): Promise<void>;
  /** Every object's name and when it was written (for the sweep of orphans). */
  list(): AsyncIterable<{ name: string; modifiedAt: Date }>;
  close?(): void;
}

/** The store could not be reached, or failed: the request may be tried again later (503). */
export class StoreUnavailable extends Error {
  constructor(reason: string) {
    super(`The document store is unavailable: ${reason}`);
    this.name = 'StoreUnavailable';
  }
}
