/**
 * The builds: the browser app into dist/ (dist.ts) and the server into build/server/ (plain
 * JavaScript that `npm run start:prod` runs with node; its packages stay in node_modules, its
 * migrations are copied beside it: server.ts). `npm run build` runs both (build.mjs, buildAll);
 * `npm run dev` keeps the browser build for fast rebuilds after each edit (src/cli/dev.ts).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildDist } from './dist.js';
import { type Metafile, staticClosure } from './pageScripts.js';
import { METAFILE } from './paths.js';
import { buildServer } from './server.js';
import { CONTENT_ROOT } from '../projectFiles.js';

/** Both builds (`node build.mjs`): answers the first page's entry and its weight with what it imports, gzipped. */
export async function buildAll(): Promise<{ entry: string; firstPageGzip: number }> {
  const build = await buildDist();
  await build.dispose();
  await buildServer();
  const metafile: Metafile = JSON.parse(await readFile(METAFILE, 'utf8'));
  let firstPageGzip = 0;
  for (const file of staticClosure(metafile, [build.entry.js])) firstPageGzip += gzipSync(await readFile(join(CONTENT_ROOT, file)), { level: 9 }).length;
  return { entry: build.entry.js, firstPageGzip };
}
