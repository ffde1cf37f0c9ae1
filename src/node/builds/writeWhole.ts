import { rename, writeFile } from 'node:fs/promises';

/** Written whole, then renamed: the server reads these for every page, also during a rebuild. */
export async function writeWhole(path: string, text: string | Uint8Array): Promise<void> {
  await writeFile(`${path}.new`, text);
  await rename(`${path}.new`, path);
}
