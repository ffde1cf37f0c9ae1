/** Documents as files of one folder on this machine (DATA_DIR/uploads): the local default. */
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ObjectStore } from './objectStore.js';
import { isMissingFile } from '../../node/fileErrors.js';

export async function createDiskStore(dir: string): Promise<ObjectStore> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return {
    async put(name, sealed) {
      const path = join(dir, name);
      try {
        await pipeline(sealed, createWriteStream(path, { mode: 0o600, flags: 'wx' }));
      } catch (error) {
        // Half a file under its name would be an object that never decrypts.
        await rm(path, { force: true });
        throw error;
      }
    },
    async get(name) {
      try {
        return await readFile(join(dir, name));
      } catch (error) {
        if (isMissingFile(error)) return null;
        throw error;
      }
    },
    async delete(name) {
      await rm(join(dir, name), { force: true });
    },
    async *list() {
      for (const name of await readdir(dir)) {
        // A file removed since the folder was read is simply not listed.
        const info = await stat(join(dir, name)).catch((error: unknown) => {
          if (isMissingFile(error)) return null;
          throw error;
        });
        if (info?.isFile()) yield { name, modifiedAt: info.mtime };
      }
    },
  };
}
