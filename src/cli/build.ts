// `npm run build`: the browser app into dist/ and the server into build/server/ (src/node/build.ts),
// then one line with the time it took and the first page's weight.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildDist, buildServer, METAFILE, type Metafile, staticClosure } from '../node/build.js';
import { CONTENT_ROOT } from '../node/projectFiles.js';

const started = performance.now();
const build = await buildDist();
await build.dispose();
await buildServer();
const metafile: Metafile = JSON.parse(await readFile(METAFILE, 'utf8'));
let firstPageGzip = 0;
for (const file of staticClosure(metafile, [build.entry.js])) firstPageGzip += gzipSync(await readFile(join(CONTENT_ROOT, file)), { level: 9 }).length;
console.log(
  `built dist/ and build/server/ in ${Math.round(performance.now() - started)} ms (first page ${build.entry.js} and its imports: ${(firstPageGzip / 1024).toFixed(1)} KB gzip)`,
);
