/** One chunk for what every page loads with the entry, where esbuild would make many small ones. */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type * as esbuild from 'esbuild';
import { CLIENT, CLIENT_ENTRY, GENERATED } from './paths.js';
import { DATA_FILE } from './projectPlugin.js';

/** `text` as a regular expression matching it alone. */
const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What the modules under `dir` load by import(), as written there ("../form/StepPage.js"). */
function dynamicImportsOf(dir: string): string[] {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => /\.tsx?$/.test(file));
  const written = files.flatMap((file) => [...readFileSync(join(dir, file), 'utf8').matchAll(/\bimport\(\s*(['"])([^'"]+)\1\s*\)/g)].map((match) => match[2]!));
  return [...new Set(written)];
}

/** What every page loads with the entry (src/client/app/sharedChunk.ts): a manifest for the build, imported by no product module. */
const SHARED_CHUNK = join(CLIENT, 'app', 'sharedChunk.ts');

/**
 * The entry and every module loaded by import() (a lazy page, a screen, Firebase's sign-in, a
 * step's generated form, a translation) import the shared-chunk manifest too, here rather than in their code:
 * esbuild puts code shared by entry points into one chunk per set of entry points sharing it, so
 * what the manifest names, shared by all of them alike, lands in one chunk, where it came out in
 * many small ones (a request each, a round trip each on a slow phone). esbuild's own helpers, used
 * by the shell, the forms and the translations alike, land there too. Each such module is reached through a wrapper
 * that imports the manifest and re-exports the module; the module itself stays one module, also
 * when another imports it statically.
 */
export function sharedChunkPlugin(): esbuild.Plugin {
  const namespace = 'with-shared-chunk';
  return {
    name: 'shared-chunk',
    setup(build) {
      // Only the entry and what the client's code loads by import() reach the callback: a filter
      // that let every import through made esbuild call into this process for each of ~1,400
      // imports, in every rebuild of `npm run dev` too.
      const specifiers = [CLIENT_ENTRY, ...dynamicImportsOf(CLIENT)].map(literally);
      // The forms loader's (generateForms): "./forms/profile.es.js".
      const filter = new RegExp(`^(${[...specifiers, '\\./forms/[\\w.-]+\\.js'].join('|')})$`);
      const wrapped = ({ path, namespace: from }: esbuild.ResolveResult) =>
        (path.startsWith(`${CLIENT}/`) && /\.tsx?$/.test(path)) ||
        (path.startsWith(`${join(GENERATED, 'forms')}/`) && path.endsWith('.js')) ||
        (from === DATA_FILE && path.endsWith('.json'));
      build.onResolve({ filter }, async ({ path, kind, importer, resolveDir, pluginData }) => {
        if ((kind !== 'dynamic-import' && kind !== 'entry-point') || pluginData === namespace) return undefined;
        const resolved = await build.resolve(path, { kind, importer, resolveDir, pluginData: namespace });
        if (resolved.errors.length > 0 || !wrapped(resolved)) return resolved;
        return { path: resolved.path, namespace };
      });
      // The manifest imports a package for the chunk it lands in, not for what it does: one that
      // says it has none (Ajv's "sideEffects": false) would see a bare import ignored, and warned of.
      const packages = [...readFileSync(SHARED_CHUNK, 'utf8').matchAll(/^import '([^'.][^']*)';$/gm)].map((match) => literally(match[1]!));
      build.onResolve({ filter: new RegExp(`^(${packages.join('|')})$`) }, async ({ path, importer, resolveDir, kind, pluginData }) => {
        if (importer !== SHARED_CHUNK || pluginData === namespace) return undefined;
        const resolved = await build.resolve(path, { kind, importer, resolveDir, pluginData: namespace });
        return resolved.errors.length > 0 ? resolved : { path: resolved.path, sideEffects: true };
      });
      build.onLoad({ filter: /.*/, namespace }, ({ path }) => ({
        // A translation file is read by its default export.
        contents: `import ${JSON.stringify(SHARED_CHUNK)};\nexport * from ${JSON.stringify(path)};\n${path.endsWith('.json') ? `export { default } from ${JSON.stringify(path)};\n` : ''}`,
        resolveDir: dirname(path),
        loader: 'js',
      }));
    },
  };
}
