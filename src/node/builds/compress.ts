import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';

/** Text the server sends as files; index.html is filled in for each request, and is not among them. */
const COMPRESSIBLE = /\.(js|css|svg|json|txt)$/;
const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/**
 * Each text file of dist/ with its Brotli (.br) and gzip (.gz) forms beside it, made once here at
 * the strongest settings rather than for every request: the server sends the one a browser
 * accepts (@fastify/static's preCompressed). A file under 1 KB gains nothing and is left alone.
 * `npm run dev` compresses nothing (src/node/builds/dist.ts): its builds must be quick, and a
 * file without its forms is sent as it is.
 */
export async function precompress(dir: string): Promise<void> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile() && COMPRESSIBLE.test(entry.name)).map((entry) => join(entry.parentPath, entry.name));
  await Promise.all(
    files.map(async (file) => {
      const contents = await readFile(file);
      if (contents.length < 1024) return;
      const [br, gz] = await Promise.all([
        brotli(contents, { params: { [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY, [zlib.BROTLI_PARAM_SIZE_HINT]: contents.length } }),
        gzipped(contents, { level: 9 }),
      ]);
      await Promise.all([writeFile(`${file}.br`, br), writeFile(`${file}.gz`, gz)]);
    }),
  );
}
