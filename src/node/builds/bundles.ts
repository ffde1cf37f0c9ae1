/** esbuild's settings for the browser's scripts and for the server's drawing of the steps. */
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import type { GeneratedForms } from './forms.js';
import { CLIENT, CLIENT_ENTRY } from './paths.js';
import { projectPlugin } from './projectPlugin.js';
import { rjsfPartsPlugin } from './rjsfParts.js';
import { sharedChunkPlugin } from './sharedChunk.js';
import { markdownStubPlugin, refStubPlugin, syncExternalStorePlugin } from './stubs.js';
import { CONTENT_ROOT, DIST, PROJECT_ROOT, SSR_BUNDLE } from '../projectFiles.js';

/**
 * How the browser's scripts are bundled: split ES modules, minified, React in production. The
 * bench's anchor (tools/slowPhone.ts) is bundled the same way, so the two are compared fairly.
 */
export const BROWSER_BUNDLE = {
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2020',
  minify: true,
  jsx: 'automatic',
  metafile: true,
  entryNames: '[name]-[hash]',
  chunkNames: 'chunks/[name]-[hash]',
  define: { 'process.env.NODE_ENV': '"production"' },
} as const satisfies esbuild.BuildOptions;

/** The browser's scripts, kept for rebuilds; `forms` is what the last generateForms made. */
export function clientContext(forms: () => GeneratedForms) {
  return esbuild.context({
    ...BROWSER_BUNDLE,
    entryPoints: { main: CLIENT_ENTRY },
    write: false,
    // Output paths in the metafile are relative to this: dist/assets/….
    absWorkingDir: CONTENT_ROOT,
    outdir: join(DIST, 'assets'),
    assetNames: '[name]-[hash]',
    legalComments: 'none',
    logLevel: 'warning',
    // The generated forms may sit in a copy of the project (ONRAMP_CONTENT_DIR) with no node_modules.
    nodePaths: [join(PROJECT_ROOT, 'node_modules')],
    plugins: [
      sharedChunkPlugin(),
      projectPlugin(() => forms().loader),
      markdownStubPlugin,
      refStubPlugin,
      syncExternalStorePlugin,
      rjsfPartsPlugin(() => forms().rjsfParts),
    ],
  });
}

/**
 * Bundles the drawing with the same forms, translations and plugins as the browser's, React in
 * production as there; every package inside it, as the content folder may have no node_modules
 * (a CommonJS package's require of node's own modules is given one). Kept, as the browser's, so
 * a rebuild under `npm run dev` parses only what changed; into memory, written with the browser's.
 */
export function ssrContext(forms: () => GeneratedForms) {
  return esbuild.context({
    entryPoints: [join(CLIENT, 'app', 'serverRender.tsx')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    jsx: 'automatic',
    write: false,
    absWorkingDir: CONTENT_ROOT,
    outfile: SSR_BUNDLE,
    // Minified as the browser's (the same code): half the text to print at each rebuild of
    // `npm run dev`, and for the server to load afresh after it (2.2 MB -> 1.0 MB).
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    banner: { js: "import { createRequire as __onrampRequire } from 'node:module'; const require = __onrampRequire(import.meta.url);" },
    loader: { '.css': 'empty', '.svg': 'file' },
    legalComments: 'none',
    logLevel: 'warning',
    nodePaths: [join(PROJECT_ROOT, 'node_modules')],
    plugins: [projectPlugin(() => forms().loader), markdownStubPlugin],
  });
}
