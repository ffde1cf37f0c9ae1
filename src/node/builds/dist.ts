/**
 * The browser app into dist/: the forms, the client code split by route, the server's drawing of
 * the steps, index.html, static assets and the US places data, each text file precompressed.
 */
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type * as esbuild from 'esbuild';
import { clientContext, ssrContext } from './bundles.js';
import { COMPILE_ALL_HINT, scriptsRunAtOnce } from './compileHint.js';
import { precompress } from './compress.js';
import { BROWSER_FORMS_LOADER, FORM_URLS_FILE, type FormsBundle, formsBundle, SERVER_FORMS_LOADER } from './devForms.js';
import { type GeneratedForms, generateForms } from './forms.js';
import { writeIndexHtml } from './indexHtml.js';
import { type PageScripts, pageScripts } from './pageScripts.js';
import type { RjsfPart } from './rjsfParts.js';
import { CLIENT, METAFILE } from './paths.js';
import { writeWhole } from './writeWhole.js';
import { CONTENT_ROOT, DIST, loadFlow, missingTranslationsWarning, schemaNamesOf } from '../projectFiles.js';
import { writeUsPlaces } from '../usPlaces.js';

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
   * `formsOnly`: only schemas changed, which under `npm run dev` reach the app's bundles only
   * through the parts of rjsf the forms call for: while those stay the same, only the forms are bundled.
   */
  bundle<Made = undefined>(meanwhile?: () => Made, options?: { formsOnly?: boolean }): Promise<Bundle<Made>>;
  dispose(): Promise<void>;
}

/** The app's bundles as esbuild made them: the browser's scripts and the server's drawing. */
interface AppBundles {
  browser: esbuild.BuildResult<{ write: false; metafile: true }>;
  drawing: esbuild.OutputFile[];
}

/**
 * Builds dist/ from scratch and returns the build, kept for more: `bundle()` bundles the files
 * on disk into memory, and its `write()` puts that in dist/ (`npm run dev` writes only an edit
 * that passed the lint). A write adds the new files beside the old ones, then index.html, then
 * removes the old files, so a page served meanwhile finds every file it names. `dev` (`npm run
 * dev`): the forms are bundled beside the app's bundles (devForms.ts), and nothing is
 * precompressed, which only saves bytes on a network.
 */
export async function buildDist({ dev = false } = {}): Promise<DistBuild> {
  // Made again before each bundle, which alone reads them.
  let forms: GeneratedForms = { loader: '', rjsfParts: new Set() };
  const [context, ssr] = await Promise.all([
    clientContext(() => (dev ? { ...forms, loader: BROWSER_FORMS_LOADER } : forms)),
    ssrContext(() => (dev ? { ...forms, loader: SERVER_FORMS_LOADER } : forms)),
  ]);
  const formsApart = dev ? formsBundle() : undefined;
  // What the last write put in dist/: the app's bundles' files, and index.html's makings.
  let previous = new Set<string>();
  let previousForms = new Set<string>();
  let page: { scripts: PageScripts; css: string } | undefined;
  const writeApp = async ({ browser: { outputFiles, metafile }, drawing }: AppBundles) => {
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
    page = { scripts, css: stylesheet.text };
    return () => {
      const gone = [...previous].filter((path) => !outputFiles.some((file) => file.path === path));
      previous = new Set(outputFiles.map((file) => file.path));
      return gone;
    };
  };
  const writeForms = async ({ outputFiles, urls }: FormsBundle) => {
    for (const file of outputFiles) {
      if (previousForms.has(file.path)) continue;
      await mkdir(dirname(file.path), { recursive: true });
      await writeFile(file.path, file.contents);
    }
    await writeWhole(FORM_URLS_FILE, JSON.stringify(urls));
    return () => {
      const gone = [...previousForms].filter((path) => !outputFiles.some((file) => file.path === path));
      previousForms = new Set(outputFiles.map((file) => file.path));
      return gone;
    };
  };
  const write = async (app: AppBundles | undefined, apart: FormsBundle | undefined): Promise<BuiltEntry> => {
    // Each answers the files it replaced, removed once index.html names the new ones.
    const written = [app && (await writeApp(app)), apart && (await writeForms(apart))];
    if (!page) throw new Error('The app is written before its forms alone');
    await writeIndexHtml(page.scripts, page.css, apart?.urls);
    for (const path of written.flatMap((each) => each?.() ?? [])) await rm(path, { force: true });
    return { js: page.scripts.entry };
  };
  let lastRjsfParts: ReadonlySet<RjsfPart> | undefined;
  const bundle = async <Made = undefined>(meanwhile?: () => Made, { formsOnly = false } = {}): Promise<Bundle<Made>> => {
    const names = schemaNamesOf(loadFlow());
    forms = await generateForms(names);
    const sameParts = lastRjsfParts !== undefined && [...forms.rjsfParts].sort().join() === [...lastRjsfParts].sort().join();
    const withApp = !(formsApart && formsOnly && sameParts);
    const rebuilt = Promise.all([withApp ? Promise.all([context.rebuild(), ssr.rebuild()]) : undefined, formsApart?.rebuild(names)] as const);
    let made: Made | undefined;
    try {
      made = meanwhile?.();
    } finally {
      // Settled before anything is thrown: no rebuild is left running unawaited. Its own failure
      // is thrown just below (`await rebuilt`), once `meanwhile` did not throw first.
      await rebuilt.catch(() => undefined);
    }
    const [app, apart] = await rebuilt;
    const { rjsfParts } = forms;
    return {
      write: () => {
        if (app) lastRjsfParts = rjsfParts;
        return write(app && { browser: app[0], drawing: app[1].outputFiles }, apart);
      },
      made: made as Made,
    };
  };
  await rm(DIST, { recursive: true, force: true });
  const entry = await (await bundle()).write();
  // Translations are optional content: what a content folder lacks is built in English, and said once.
  const warning = missingTranslationsWarning();
  if (warning) console.warn(warning);
  await cp(join(CLIENT, 'app', 'public'), DIST, { recursive: true });
  await writeUsPlaces(join(DIST, 'data'));
  if (!dev) await precompress(DIST);
  return {
    entry,
    bundle,
    dispose: () => Promise.all([context.dispose(), ssr.dispose()]).then(() => undefined),
  };
}
