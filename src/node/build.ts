/**
 * The builds: the browser app into dist/ (each form schema bundled with its precompiled
 * validator, so no Ajv compiler and no eval reach the browser; the client code split by route;
 * index.html, static assets and the US places data) and the server into build/server/ (plain
 * JavaScript that `npm run start:prod` runs with node; its packages stay in node_modules, its
 * migrations are copied beside it). `npm run build` runs both (build.mjs, buildAll); `npm run dev`
 * keeps the browser build for fast rebuilds after each edit (src/cli/dev.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip, gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { precompiledValidatorsCode } from './precompiledValidators.js';
import {
  CONTENT_ROOT,
  DIST,
  filesReadBy,
  FLOW_FILE,
  loadFlow,
  loadSchema,
  loadUiSchema,
  missingTranslationsWarning,
  noteMissingTranslation,
  PROJECT_ROOT,
  ROUTE_PRELOADS,
  SSR_BUNDLE,
  schemaNamesOf,
  textOf,
} from './projectFiles.js';
import { writeUsPlaces } from './usPlaces.js';
import { DEFAULT_LOCALE, LOCALES, translationFileOf, type Locale } from '../shared/locales.js';

/** The built entry script's path, under dist/. */
export interface BuiltEntry {
  js: string;
}

/** A bundle in memory. */
export interface Bundle<Made = undefined> {
  /** Puts the bundle in dist/. */
  write(): Promise<BuiltEntry>;
  /** What the work done meanwhile made (DistBuild.bundle). */
  made: Made;
}

export interface DistBuild {
  entry: BuiltEntry;
  /**
   * Bundles the files on disk again, into memory (forms whose schemas did not change are reused).
   * `meanwhile` runs on this thread once the forms are made, while esbuild bundles in its own process.
   */
  bundle<Made = undefined>(meanwhile?: () => Made): Promise<Bundle<Made>>;
  dispose(): Promise<void>;
}

export type Metafile = esbuild.Metafile;

const GENERATED = join(CONTENT_ROOT, 'build', 'generated');
const CLIENT = join(PROJECT_ROOT, 'src', 'client');
export const METAFILE = join(CONTENT_ROOT, 'build', 'metafile.json');

/** Whether a JSON value has, at any depth, an object that passes `test`. */
const holds = (value: unknown, test: (object: Record<string, unknown>) => boolean): boolean =>
  typeof value === 'object' && value !== null && (test(value as Record<string, unknown>) || Object.values(value).some((each) => holds(each, test)));
const hasKey =
  (...keys: string[]) =>
  (object: Record<string, unknown>) =>
    keys.some((key) => Object.hasOwn(object, key));

/** Whether a UI schema names one of rjsf's fields (as a "ui:field"): a form may call for a field its schema alone would not. */
const namesField = (uiSchema: unknown, fields: RegExp) => new RegExp(`"(${fields.source})"`).test(JSON.stringify(uiSchema));

/**
 * Parts of rjsf that only some kinds of form call for, each with its modules (paths as rjsf imports
 * them) and what in a form's schema or UI schema calls for it; a property merely named like a
 * keyword counts too, which only keeps a part in. While no form calls for a part, the browser's
 * scripts leave it out (rjsfPartsPlugin): ~11 KB (Brotli) of every step's first visit for these four.
 */
const RJSF_PARTS = {
  // An "allOf" is merged with @x0k/json-schema-merge.
  allOf: { modules: /^\.\/shallowAllOfMerge\.js$/, calledFor: (schema: unknown) => holds(schema, hasKey('allOf')) },
  arrays: {
    modules: /^\.\/ArrayField(\w*Template)?\.js$/,
    calledFor: (schema: unknown, uiSchema: unknown) =>
      holds(schema, (object) => hasKey('items', 'prefixItems')(object) || [object.type].flat().includes('array')) || namesField(uiSchema, /ArrayField/),
  },
  alternatives: {
    modules: /^\.\/MultiSchemaField(Template)?\.js$/,
    calledFor: (schema: unknown, uiSchema: unknown) => holds(schema, hasKey('oneOf', 'anyOf')) || namesField(uiSchema, /AnyOfField|OneOfField/),
  },
  layoutGrid: {
    modules: /^\.\/Layout(Grid|Header|MultiSchema)Field\.js$/,
    calledFor: (_schema: unknown, uiSchema: unknown) => namesField(uiSchema, /Layout(Grid|Header|MultiSchema)Field/),
  },
} as const;
type RjsfPart = keyof typeof RJSF_PARTS;
/** The optional parts of rjsf some form of the last generated ones calls for (rjsfPartsPlugin); all of them until forms are made. */
let rjsfPartsInUse = new Set<RjsfPart>(Object.keys(RJSF_PARTS) as RjsfPart[]);

/**
 * Each form module as last generated: the files it was made from, with their texts, its schema
 * and UI schema, and the parts of rjsf it calls for. A rebuild makes again only the modules whose
 * files changed, and compiles and writes only those whose schemas did.
 */
const generatedFrom = new Map<string, { files: Map<string, string | undefined>; source: string; rjsfParts: RjsfPart[] }>();
const unchanged = (files: Map<string, string | undefined>) => [...files].every(([path, text]) => textOf(path) === text);

/** A form's module in a language: "profile", "profile.es". */
const formModuleOf = (name: string, locale: Locale) => (locale === DEFAULT_LOCALE ? name : `${name}.${locale}`);

/** Writes build/generated/forms/<name>[.<locale>].js (schema + UI schema + validator) for each form, in each language. */
async function generateForms(names: string[]): Promise<string> {
  if (generatedFrom.size === 0) {
    await rm(GENERATED, { recursive: true, force: true });
    await mkdir(join(GENERATED, 'forms'), { recursive: true });
  }
  for (const name of names) {
    for (const locale of Object.keys(LOCALES) as Locale[]) {
      const module = formModuleOf(name, locale);
      const before = generatedFrom.get(module);
      if (before && unchanged(before.files)) continue;
      const {
        made: [schema, uiSchema],
        files,
      } = filesReadBy(() => [loadSchema(name, locale), loadUiSchema(name, locale)] as const);
      const source = JSON.stringify([schema, uiSchema]);
      if (before?.source !== source) {
        await writeFile(join(GENERATED, 'forms', `${module}.validators.cjs`), precompiledValidatorsCode(schema));
        await writeFile(
          join(GENERATED, 'forms', `${module}.js`),
          `import validateFns from './${module}.validators.cjs';\n` +
            `export const schema = ${JSON.stringify(schema)};\n` +
            `export const uiSchema = ${JSON.stringify(uiSchema)};\n` +
            `export { validateFns };\n`,
        );
      }
      const rjsfParts = (Object.keys(RJSF_PARTS) as RjsfPart[]).filter((part) => RJSF_PARTS[part].calledFor(schema, uiSchema));
      generatedFrom.set(module, { files, source, rjsfParts });
    }
  }
  rjsfPartsInUse = new Set(
    names.flatMap((name) => (Object.keys(LOCALES) as Locale[]).flatMap((locale) => generatedFrom.get(formModuleOf(name, locale))?.rjsfParts ?? [])),
  );
  const cases = names
    .flatMap((name) =>
      (Object.keys(LOCALES) as Locale[]).map(
        (locale) => `    case ${JSON.stringify(`${name}\n${locale}`)}: return import('./forms/${formModuleOf(name, locale)}.js');`,
      ),
    )
    .join('\n');
  return `export function loadForm(name, locale = ${JSON.stringify(DEFAULT_LOCALE)}) {\n  switch (name + '\\n' + locale) {\n${cases}\n    default: return Promise.reject(new Error('No form "' + name + '" in "' + locale + '"'));\n  }\n}\n`;
}

/** markdown-to-jsx, which @rjsf/core imports for markdown descriptions, replaced by a plain-text stub (the bench's anchor has it too). */
export const markdownStubPlugin: esbuild.Plugin = {
  name: 'markdown-stub',
  setup(build) {
    build.onResolve({ filter: /^markdown-to-jsx(\/.*)?$/ }, () => ({ path: join(CLIENT, 'app', 'markdownStub.tsx') }));
  },
};

/** fast-uri, which @rjsf/utils imports to resolve a "$ref" against its "$id", replaced by a stub: no "$ref" reaches the browser (src/client/app/uriStub.ts). */
const uriStubPlugin: esbuild.Plugin = {
  name: 'uri-stub',
  setup(build) {
    build.onResolve({ filter: /^fast-uri$/ }, () => ({ path: join(CLIENT, 'app', 'uriStub.ts') }));
  },
};

/** The namespace of an rjsf part left out (rjsfPartsPlugin). */
const RJSF_PART_LEFT_OUT = 'rjsf-part-left-out';

/**
 * Leaves out of the browser's scripts each part of rjsf no form calls for (RJSF_PARTS, worked out
 * as each build makes the forms): in its place, a module that says so if ever called. A form given
 * one (an ops edit adding an array, say) brings the part back at the next build.
 */
const rjsfPartsPlugin: esbuild.Plugin = {
  name: 'rjsf-parts',
  setup(build) {
    // Only these paths: each one a plugin is asked about is a call from esbuild into this process.
    build.onResolve(
      {
        filter: new RegExp(
          Object.values(RJSF_PARTS)
            .map(({ modules }) => modules.source)
            .join('|'),
        ),
      },
      ({ path, importer }) => {
        if (!/[/\\]node_modules[/\\]@rjsf[/\\]/.test(importer)) return undefined;
        const part = (Object.keys(RJSF_PARTS) as RjsfPart[]).find((each) => RJSF_PARTS[each].modules.test(path));
        // One module in place of all of a part's.
        return part && !rjsfPartsInUse.has(part) ? { path: part, namespace: RJSF_PART_LEFT_OUT } : undefined;
      },
    );
    build.onLoad({ filter: /.*/, namespace: RJSF_PART_LEFT_OUT }, ({ path }) => ({
      contents: `export default function leftOut() {\n  throw new Error(${JSON.stringify(`A form in the browser calls for rjsf's part "${path}", which the build left out as no form called for it (RJSF_PARTS, src/node/build.ts)`)});\n}\n`,
      loader: 'js',
    }));
  },
};

/** The namespace of a translation file the content folder does not have. */
const NO_TRANSLATIONS = 'no-translations';
/** The namespace of the content folder's flow file and translations. */
const DATA_FILE = 'data-file';

/** A data file's value without its "$comment"s: notes for whoever edits the file, which no page reads. */
function withoutComments(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutComments);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).flatMap(([key, each]) => (key === '$comment' ? [] : [[key, withoutComments(each)]])));
}

/**
 * `virtual:forms` is the generated loader (read at each build: an edit may add a form); the flow
 * file is the content folder's. The flow file and the translations reach the browser without
 * their "$comment"s (a tenth of the flow file, in the script every page loads first).
 */

function projectPlugin(formsLoader: () => string): esbuild.Plugin {
  return {
    name: 'onramp',
    setup(build) {
      build.onResolve({ filter: /^virtual:forms$/ }, () => ({ path: 'forms', namespace: 'virtual' }));
      build.onLoad({ filter: /.*/, namespace: 'virtual' }, () => ({ contents: formsLoader(), resolveDir: GENERATED, loader: 'js' }));
      build.onResolve({ filter: /\/flows\/onboarding\.flow\.json$/ }, () => ({ path: FLOW_FILE, namespace: DATA_FILE }));
      // The translations of the content folder, as the flow file; one it does not have is none (its texts stay English).
      build.onResolve({ filter: /\/locales\/[\w-]+\/[\w.-]+\.json$/ }, ({ path }) => {
        const file = path.slice(path.lastIndexOf('locales/'));
        if (existsSync(join(CONTENT_ROOT, file))) return { path: join(CONTENT_ROOT, file), namespace: DATA_FILE };
        noteMissingTranslation(file);
        return { path: file, namespace: NO_TRANSLATIONS };
      });
      build.onLoad({ filter: /.*/, namespace: NO_TRANSLATIONS }, () => ({ contents: '{}', loader: 'json' }));
      build.onLoad({ filter: /.*/, namespace: DATA_FILE }, async ({ path }) => ({
        contents: JSON.stringify(withoutComments(JSON.parse(await readFile(path, 'utf8')))),
        loader: 'json',
        watchFiles: [path],
      }));
    },
  };
}

/** The client's entry: the app. */
const CLIENT_ENTRY = join(CLIENT, 'app', 'main.tsx');

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
function sharedChunkPlugin(): esbuild.Plugin {
  const namespace = 'with-shared-chunk';
  return {
    name: 'shared-chunk',
    setup(build) {
      // Only the entry and what the client's code loads by import() reach the callback: a filter
      // that let every import through made esbuild call into this process for each of ~1,400
      // imports, in every rebuild of `npm run dev` too.
      const specifiers = [CLIENT_ENTRY, ...dynamicImportsOf(CLIENT)].map((specifier) => specifier.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
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
      build.onLoad({ filter: /.*/, namespace }, ({ path }) => ({
        // A translation file is read by its default export.
        contents: `import ${JSON.stringify(SHARED_CHUNK)};\nexport * from ${JSON.stringify(path)};\n${path.endsWith('.json') ? `export { default } from ${JSON.stringify(path)};\n` : ''}`,
        resolveDir: dirname(path),
        loader: 'js',
      }));
    },
  };
}

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

function clientContext(formsLoader: () => string) {
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
    plugins: [sharedChunkPlugin(), projectPlugin(formsLoader), markdownStubPlugin, uriStubPlugin, rjsfPartsPlugin],
  });
}

/**
 * Bundles the drawing with the same forms, translations and plugins as the browser's, React in
 * production as there; every package inside it, as the content folder may have no node_modules
 * (a CommonJS package's require of node's own modules is given one). Kept, as the browser's, so
 * a rebuild under `npm run dev` parses only what changed; into memory, written with the browser's.
 */
function ssrContext(formsLoader: () => string) {
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
    plugins: [projectPlugin(formsLoader), markdownStubPlugin],
  });
}

const href = (file: string) => '/' + file.replace(/^dist\//, '');
const preloadLinks = (files: string[]) => files.map((file) => `<link rel="modulepreload" href="${href(file)}" />`).join('\n    ');
const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/** Written whole, then renamed: the server reads these for every page, also during a rebuild. */
async function writeWhole(path: string, text: string | Uint8Array): Promise<void> {
  await writeFile(`${path}.new`, text);
  await rename(`${path}.new`, path);
}

/** Per route, per language: the scripts the route's page loads beyond the shell, paths under dist/ (route-preloads.json). */
export type RouteScripts = Record<string, Record<Locale, string[]>>;

/**
 * The scripts of each page: the entry and what it imports (the shell, which every page loads),
 * and for each step's route, in each language, the scripts its page loads on demand: the form
 * renderer and the step's form in that language, or the screen; in a translated language, its
 * texts too. A form's variants (profile-social) are left to the few drivers whose page picks one.
 */
export function pageScripts(metafile: Metafile): { entry: string; css: string; shell: string[]; routes: RouteScripts } {
  const [entry, output] = Object.entries(metafile.outputs).find(([, o]) => o.entryPoint?.endsWith('src/client/app/main.tsx')) ?? [];
  if (!entry || !output?.cssBundle) throw new Error('The client bundle has no entry script or stylesheet');
  const shell = staticClosure(metafile, [entry]);
  const chunksOf = (input: string) =>
    Object.keys(metafile.outputs).filter(
      (file) => file.endsWith('.js') && Object.keys(metafile.outputs[file]?.inputs ?? {}).some((each) => each.endsWith(input)),
    );
  const routes: RouteScripts = {};
  for (const step of Object.values(loadFlow().steps)) {
    const scriptsIn = (locale: Locale) => {
      const page =
        step.kind === 'form'
          ? [
              'src/client/form/StepPage.tsx',
              ...(step.social ? ['src/client/form/SocialSignIn.tsx'] : []),
              `build/generated/forms/${formModuleOf(step.schema, locale)}.js`,
              ...(locale === DEFAULT_LOCALE ? [] : [translationFileOf(locale, 'rjsf.json')]),
            ]
          : [`src/client/screens/${pascal(step.screen)}Screen.tsx`];
      const texts = locale === DEFAULT_LOCALE ? [] : [translationFileOf(locale, basename(FLOW_FILE))];
      return staticClosure(metafile, [...page, ...texts].flatMap(chunksOf)).filter((file) => !shell.includes(file));
    };
    routes[step.route] = Object.fromEntries((Object.keys(LOCALES) as Locale[]).map((locale) => [locale, scriptsIn(locale)])) as Record<Locale, string[]>;
  }
  return { entry, css: output.cssBundle, shell, routes };
}

/**
 * V8's explicit compile hint (Chrome 136 on): every function of a file so marked is compiled as the
 * file streams in, on a background thread, instead of on the main thread the first time it is
 * called. A drawn step's first visit calls most of React's and rjsf's functions at once, to hydrate
 * the form: compiled while the bytes still arrive, the form is the driver's ~200 ms sooner on the
 * bench's slow phone. Only on the scripts a first visit runs at once (scriptsRunAtOnce): on the
 * others (Firebase's sign-in, the staff pages) it would compile much that never runs.
 */
const COMPILE_ALL_HINT = Buffer.from('//# allFunctionsCalledOnLoad\n');

/** The scripts some page runs as it loads, paths under the project (dist/assets/…): the shell and each route's own. */
function scriptsRunAtOnce({ shell, routes }: ReturnType<typeof pageScripts>): Set<string> {
  return new Set([...shell, ...Object.values(routes).flatMap((byLocale) => Object.values(byLocale).flat())]);
}

/**
 * The app's stylesheet, to sit in index.html's head. In the page, not a file of its own: a
 * stylesheet holds back the page's first drawing, and as a file it is asked for only once the
 * page has come, a round trip later, sharing the line with the scripts (on the bench's slow
 * phone, a drawn step showed ~0.5 s later). Sent again with each page, ~4 KB compressed; a
 * repeat visit's page is a 304, with no body. Checked, as the page would not read it right: a
 * url() must not be relative (to the page, not to assets/), nor may the text end the element.
 */
export function inlineStylesheet(css: string): string {
  const relativeUrl = /url\(\s*(?!["']?(?:data:|\/|#|https?:))([^)]*)\)/.exec(css);
  if (relativeUrl)
    throw new Error(
      `The app's stylesheet names ${relativeUrl[1]} by a relative url(): in index.html it would be looked for beside the page. Use a data: URL or a path from /.`,
    );
  if (/<\/style/i.test(css)) throw new Error('The app\'s stylesheet holds "</style", which would end its element in index.html.');
  return `<style>${css.trim()}</style>`;
}

/**
 * index.html with the entry, its stylesheet (inlineStylesheet) and the scripts it imports
 * (preloaded with it, not found one after another), and route-preloads.json: each route's own
 * scripts, which the server preloads in that page, so a first visit fetches everything at once
 * instead of in a chain.
 */
async function writeIndexHtml({ entry: js, shell, routes }: ReturnType<typeof pageScripts>, css: string): Promise<BuiltEntry> {
  const template = await readFile(join(CLIENT, 'app', 'index.html'), 'utf8');
  const page = template
    .replace('%JS%', href(js))
    .replace('%PRELOAD%', preloadLinks(shell.filter((file) => file !== js)))
    // Last, and by a function: the stylesheet's text is not looked into, and a "$" in it stays as it is.
    .replace('%STYLESHEET%', () => inlineStylesheet(css));
  const preloads = Object.fromEntries(
    Object.entries(routes).map(([route, byLocale]) => [
      route,
      Object.fromEntries(Object.entries(byLocale).map(([locale, files]) => [locale, files.map(href)])),
    ]),
  );
  await writeWhole(join(DIST, ROUTE_PRELOADS), JSON.stringify(preloads));
  await writeWhole(join(DIST, 'index.html'), page);
  return { js };
}

/**
 * Builds dist/ from scratch and returns the build, kept for more: `bundle()` bundles the files
 * on disk into memory, and its `write()` puts that in dist/ (`npm run dev` writes only an edit
 * that passed the lint). A write adds the new files beside the old ones, then index.html, then
 * removes the old files, so a page served meanwhile finds every file it names.
 */
export async function buildDist(): Promise<DistBuild> {
  let formsLoader = '';
  const [context, ssr] = await Promise.all([clientContext(() => formsLoader), ssrContext(() => formsLoader)]);
  let previous = new Set<string>();
  const write = async ({ outputFiles, metafile }: esbuild.BuildResult<{ write: false; metafile: true }>, drawing: esbuild.OutputFile[]) => {
    // The drawing first: the server loads it afresh once index.html changes.
    for (const file of drawing) {
      await mkdir(dirname(file.path), { recursive: true });
      await writeWhole(file.path, file.contents);
    }
    const scripts = pageScripts(metafile);
    const runAtOnce = scriptsRunAtOnce(scripts);
    const stylesheet = outputFiles.find((file) => relative(CONTENT_ROOT, file.path) === scripts.css);
    if (!stylesheet) throw new Error(`The client bundle has no ${scripts.css}`);
    // Names carry a hash of the contents: a file written before is the same file. The stylesheet
    // is not a file: index.html holds it.
    for (const file of outputFiles) {
      if (previous.has(file.path) || file === stylesheet) continue;
      await mkdir(dirname(file.path), { recursive: true });
      await writeFile(file.path, runAtOnce.has(relative(CONTENT_ROOT, file.path)) ? Buffer.concat([COMPILE_ALL_HINT, file.contents]) : file.contents);
    }
    await mkdir(join(CONTENT_ROOT, 'build'), { recursive: true });
    await writeFile(METAFILE, JSON.stringify(metafile));
    const entry = await writeIndexHtml(scripts, stylesheet.text);
    const current = new Set(outputFiles.map((file) => file.path));
    for (const path of previous) if (!current.has(path)) await rm(path, { force: true });
    previous = current;
    return entry;
  };
  const bundle = async <Made = undefined>(meanwhile?: () => Made): Promise<Bundle<Made>> => {
    formsLoader = await generateForms(schemaNamesOf(loadFlow()));
    const rebuilt = Promise.all([context.rebuild(), ssr.rebuild()]);
    let made: Made | undefined;
    try {
      made = meanwhile?.();
    } finally {
      // Settled before anything is thrown: no rebuild is left running unawaited. Its own failure
      // is thrown just below (`await rebuilt`), once `meanwhile` did not throw first.
      await rebuilt.catch(() => undefined);
    }
    const [browser, drawing] = await rebuilt;
    return { write: () => write(browser, drawing.outputFiles), made: made as Made };
  };
  await rm(DIST, { recursive: true, force: true });
  const entry = await (await bundle()).write();
  // Translations are optional content: what a content folder lacks is built in English, and said once.
  const warning = missingTranslationsWarning();
  if (warning) console.warn(warning);
  await cp(join(CLIENT, 'app', 'public'), DIST, { recursive: true });
  await writeUsPlaces(join(DIST, 'data'));
  await precompress(DIST);
  return { entry, bundle, dispose: () => Promise.all([context.dispose(), ssr.dispose()]).then(() => undefined) };
}

/** Text the server sends as files; index.html is filled in for each request, and is not among them. */
const COMPRESSIBLE = /\.(js|css|svg|json|txt)$/;
const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/**
 * Each text file of dist/ with its Brotli (.br) and gzip (.gz) forms beside it, made once here at
 * the strongest settings rather than for every request: the server sends the one a browser
 * accepts (@fastify/static's preCompressed). A file under 1 KB gains nothing and is left alone.
 * `npm run dev` compresses only its first build: its rebuilds must be quick, and a file without
 * its forms is sent as it is.
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

/** The server as one ES module for plain node (build/server/main.mjs), with its SQL migrations beside it. */
export const SERVER_BUILD = join(PROJECT_ROOT, 'build', 'server');

export async function buildServer(): Promise<void> {
  await rm(SERVER_BUILD, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: [join(PROJECT_ROOT, 'src', 'server', 'main.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Packages are installed in production (npm ci --omit=dev); only our own code is bundled.
    packages: 'external',
    outfile: join(SERVER_BUILD, 'main.mjs'),
    sourcemap: true,
    logLevel: 'warning',
  });
  // db.ts reads its migrations beside itself; two levels up from here is the project, whose
  // schemas/ and flows/ the server reads as it does from src/server (projectFiles.ts).
  await cp(join(PROJECT_ROOT, 'src', 'server', 'db', 'migrations'), join(SERVER_BUILD, 'migrations'), { recursive: true });
}

/** The given scripts and every chunk they import statically: what a page loads with them. */
export function staticClosure(metafile: Metafile, roots: string[]): string[] {
  const files = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const imported of metafile.outputs[file]?.imports ?? []) if (imported.kind === 'import-statement') visit(imported.path);
  };
  roots.forEach(visit);
  return [...files];
}

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
