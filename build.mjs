// The build's entry (`node build.mjs`, `npm run build`): the browser app into dist/ and the server
// into build/server/, then one line with the time it took and the first page's weight. The steps
// are typed modules (src/node/builds/), loaded through tsx's loader for this import only.
import { tsImport } from 'tsx/esm/api';

const started = performance.now();
const { buildAll } = await tsImport('./src/node/builds/index.ts', import.meta.url);
const { entry, firstPageGzip } = await buildAll();
console.log(
  `built dist/ and build/server/ in ${Math.round(performance.now() - started)} ms (first page ${entry} and its imports: ${(firstPageGzip / 1024).toFixed(1)} KB gzip)`,
);
