// Builds the browser app into dist/: checks the flow file, bundles each form schema with its
// precompiled validator (so no Ajv compiler and no eval reach the browser), bundles the client
// with esbuild (code split by route), writes index.html, static assets and the US places data.
// Run with tsx (`npm run build`), since it reads the project's TypeScript modules.
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { precompiledValidatorsCode } from './src/cli/precompiledValidators.ts';
import { loadFlow, loadSchema, loadUiSchema, PROJECT_ROOT, schemaNamesOf } from './src/shared/projectFiles.ts';
import { writeUsPlaces } from './src/cli/usPlaces.mjs';

const DIST = join(PROJECT_ROOT, 'dist');
const GENERATED = join(PROJECT_ROOT, 'build', 'generated');
const CLIENT = join(PROJECT_ROOT, 'src', 'client');
export const METAFILE = join(PROJECT_ROOT, 'build', 'metafile.json');

/** Writes build/generated/forms/<name>.js (schema + UI schema + validator) for each form. */
async function generateForms(names) {
  await rm(GENERATED, { recursive: true, force: true });
  await mkdir(join(GENERATED, 'forms'), { recursive: true });
  for (const name of names) {
    const schema = loadSchema(name);
    const uiSchema = loadUiSchema(name);
    await writeFile(join(GENERATED, 'forms', `${name}.validators.cjs`), precompiledValidatorsCode(schema));
    await writeFile(
      join(GENERATED, 'forms', `${name}.js`),
      `import validateFns from './${name}.validators.cjs';\n` +
        `export const schema = ${JSON.stringify(schema)};\n` +
        `export const uiSchema = ${JSON.stringify(uiSchema)};\n` +
        `export { validateFns };\n`,
    );
  }
  const cases = names.map((name) => `    case ${JSON.stringify(name)}: return import('./forms/${name}.js');`).join('\n');
  return `export function loadForm(name) {\n  switch (name) {\n${cases}\n    default: return Promise.reject(new Error('No form "' + name + '"'));\n  }\n}\n`;
}

/** `virtual:forms` is the generated loader; markdown-to-jsx is replaced by a plain-text stub. */
function projectPlugin(formsLoader) {
  return {
    name: 'onramp',
    setup(build) {
      build.onResolve({ filter: /^virtual:forms$/ }, () => ({ path: 'forms', namespace: 'virtual' }));
      build.onLoad({ filter: /.*/, namespace: 'virtual' }, () => ({ contents: formsLoader, resolveDir: GENERATED, loader: 'js' }));
      build.onResolve({ filter: /^markdown-to-jsx(\/.*)?$/ }, () => ({ path: join(CLIENT, 'markdownStub.tsx') }));
    },
  };
}

async function bundleClient(formsLoader) {
  await rm(DIST, { recursive: true, force: true });
  const result = await esbuild.build({
    entryPoints: { main: join(CLIENT, 'main.tsx') },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    jsx: 'automatic',
    metafile: true,
    outdir: join(DIST, 'assets'),
    entryNames: '[name]-[hash]',
    chunkNames: 'chunks/[name]-[hash]',
    assetNames: '[name]-[hash]',
    define: { 'process.env.NODE_ENV': '"production"' },
    legalComments: 'none',
    logLevel: 'warning',
    plugins: [projectPlugin(formsLoader)],
  });
  await mkdir(join(PROJECT_ROOT, 'build'), { recursive: true });
  await writeFile(METAFILE, JSON.stringify(result.metafile));
  return result.metafile;
}

async function writeIndexHtml(metafile) {
  const [js, output] = Object.entries(metafile.outputs).find(([, o]) => o.entryPoint?.endsWith('src/client/main.tsx')) ?? [];
  if (!js || !output?.cssBundle) throw new Error('The client bundle has no entry script or stylesheet');
  const href = (file) => '/' + file.replace(/^dist\//, '');
  const template = await readFile(join(CLIENT, 'index.html'), 'utf8');
  await writeFile(join(DIST, 'index.html'), template.replace('%JS%', href(js)).replace('%CSS%', href(output.cssBundle)));
  return { js, css: output.cssBundle };
}

const started = performance.now();
const flow = loadFlow();
const formsLoader = await generateForms(schemaNamesOf(flow));
const metafile = await bundleClient(formsLoader);
const entry = await writeIndexHtml(metafile);
await cp(join(CLIENT, 'public'), DIST, { recursive: true });
await writeUsPlaces(join(DIST, 'data'));
const entryGzip = gzipSync(await readFile(join(PROJECT_ROOT, entry.js)), { level: 9 }).length;
console.log(`built dist/ in ${Math.round(performance.now() - started)} ms (entry ${entry.js}: ${(entryGzip / 1024).toFixed(1)} KB gzip)`);
