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
import { type GeneratedForms, generateForms } from './forms.js';
import { writeIndexHtml } from './indexHtml.js';
import { pageScripts } from './pageScripts.js';
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
   */
  bundle<Made = undefined>(meanwhile?: () => Made): Promise<Bundle<Made>>;
  dispose(): Promise<void>;
}

/**
 * Builds dist/ from scratch and returns the build, kept for more: `bundle()` bundles the files
 * on disk into memory, and its `write()` puts that in dist/ (`npm run dev` writes only an edit
 * that passed the lint). A write adds the new files beside the old ones, then index.html, then
 * removes the old files, so a page served meanwhile finds every file it names.
 */
export async function buildDist(): Promise<DistBuild> {
  // Made again before each bundle, which alone reads them.
  let forms: GeneratedForms = { loader: '', rjsfParts: new Set() };
  const [context, ssr] = await Promise.all([clientContext(() => forms), ssrContext(() => forms)]);
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
    await writeIndexHtml(scripts, stylesheet.text);
    const current = new Set(outputFiles.map((file) => file.path));
    for (const path of previous) if (!current.has(path)) await rm(path, { force: true });
    previous = current;
    return { js: scripts.entry };
  };
  const bundle = async <Made = undefined>(meanwhile?: () => Made): Promise<Bundle<Made>> => {
    forms = await generateForms(schemaNamesOf(loadFlow()));
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
