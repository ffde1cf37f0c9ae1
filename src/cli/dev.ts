/**
 * `npm run dev`: `npm start` that follows edits of schemas/ and flows/. Each save re-runs the
 * schema and flow lint (on its own thread, lintWorker.ts) while the browser bundle is rebuilt
 * in memory: for an edit of schemas/ alone, only its forms, each with its precompiled validator,
 * bundled apart from the app's scripts (src/node/builds/devForms.ts). A clean edit's bundle is
 * written to dist/, the server gets validators made from the new files (or restarts when the flow's API
 * paths changed) and the open pages reload. A broken edit prints the lint's problems here and
 * over the open pages, and the server and the pages keep the last good version.
 */
import { once } from 'node:events';
import { readdirSync, readFileSync, watch } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { Worker } from 'node:worker_threads';
import { buildDist, type Bundle } from '../node/builds/dist.js';
import { createCallReader, type CallReader } from '../server/lib/callReader/reader.js';
import { LiveEdits } from '../server/plugins/callReader.js';
import { startServer } from '../server/main.js';
import type { Flow } from '../shared/flow.js';
import { CONTENT_ROOT, FLOWS_DIR, loadFlow, SCHEMAS_DIR } from '../node/projectFiles.js';
import { isMissingFile } from '../node/fileErrors.js';

/** Editors save in more than one write (a temporary file, then a rename): one rebuild for them all. */
const DEBOUNCE_MS = 40;
/**
 * A save that truncates the file before writing it (Node's writeFile, some editors) shows an empty
 * file in between, for longer than the debounce on a busy machine: an empty file is checked only
 * once it has stayed empty this long, so a half-written save is never reported as a broken edit.
 */
const EMPTY_SETTLE_MS = 500;

// A worker does not inherit tsx's loader: it registers it, then loads the TypeScript.
const linter = new Worker(
  `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(import.meta.resolve('./lintWorker.ts'))}); });`,
  { eval: true },
);
async function lint(): Promise<string[]> {
  linter.postMessage('lint');
  const [problems] = (await once(linter, 'message')) as [string[]];
  return problems;
}

const printProblems = (problems: string[], outcome: string) =>
  console.error(`✗ ${problems.length} problem(s) in schemas/ and flows/; ${outcome}:\n${problems.map((p) => `  ✗ ${p}`).join('\n')}`);

/** What the server registered its routes from: when this changes, validators alone are not enough. */
const apiPathsOf = (flow: Flow) => JSON.stringify(Object.entries(flow.calls).map(([name, call]) => [name, call.method, call.path]));

export async function startDev(): Promise<void> {
  if (process.env.NODE_ENV === 'production') {
    console.error('npm run dev is for development: unset NODE_ENV=production, or use npm start.');
    process.exit(1);
  }
  const problems = await lint();
  if (problems.length > 0) {
    printProblems(problems, 'fix them, then start again');
    process.exit(1);
  }
  const build = await buildDist({ dev: true });
  let flow = loadFlow();
  const live = new LiveEdits(createCallReader(flow));
  const server = await startServer({ live });

  async function apply(files: string[]) {
    const started = performance.now();
    const linting = lint();
    // Built while the lint runs; used only if it finds nothing. The files may be broken, so
    // this may fail: the lint then says why.
    let built: { next: Flow; reader: CallReader; bundle: Bundle<CallReader> } | undefined;
    let failure: unknown;
    try {
      const next = loadFlow();
      // The reader is made while esbuild bundles in its own process. A schema reaches the app's
      // bundles only through its form, which is bundled apart (src/node/builds/devForms.ts).
      const formsOnly = files.every((file) => dirname(join(CONTENT_ROOT, file)) === SCHEMAS_DIR);
      const bundle = await build.bundle(() => createCallReader(next), { formsOnly });
      built = { next, reader: bundle.made, bundle };
    } catch (error) {
      failure = error;
    }
    const problems = await linting;
    if (problems.length === 0 && !built) problems.push(failure instanceof Error ? failure.message : String(failure));
    if (problems.length > 0 || !built) {
      printProblems(problems, 'the app keeps the last good version');
      live.rejected(problems);
      return;
    }
    await built.bundle.write();
    live.swapReader(built.reader);
    // The routes are registered from the new reader's paths; pages reload once they answer.
    if (apiPathsOf(built.next) !== apiPathsOf(flow)) await server.restart();
    flow = built.next;
    live.reloadPages();
    console.log(`✓ ${files.join(', ')}: applied in ${Math.round(performance.now() - started)} ms; open pages reload`);
  }

  // One apply at a time; saves that come in meanwhile make one more.
  const changed = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const next = () => {
    running = undefined;
    if (changed.size > 0) run();
  };
  // What each file held when it was last checked: a save that changes nothing (an editor's second
  // write of the same save, a save without an edit) is not checked again, nor are the pages reloaded.
  const contentOf = (file: string) => {
    try {
      return readFileSync(join(CONTENT_ROOT, file), 'utf8');
    } catch (error) {
      // Removed, or a folder (schemas/meta), which holds no text of its own.
      if (isMissingFile(error) || (error as NodeJS.ErrnoException).code === 'EISDIR') return undefined;
      throw error;
    }
  };
  const checked = new Map<string, string | undefined>();
  for (const dir of [SCHEMAS_DIR, FLOWS_DIR]) {
    for (const name of readdirSync(dir)) {
      const file = relative(CONTENT_ROOT, join(dir, name));
      checked.set(file, contentOf(file));
    }
  }
  const emptySince = new Map<string, number>();
  const run = () => {
    timer = undefined;
    if (running) return;
    const settling: string[] = [];
    const files = [...changed].filter((file) => {
      const content = contentOf(file);
      if (content === '') {
        const since = emptySince.get(file) ?? performance.now();
        emptySince.set(file, since);
        if (performance.now() - since < EMPTY_SETTLE_MS) {
          settling.push(file);
          return false;
        }
      }
      emptySince.delete(file);
      if (checked.get(file) === content) return false;
      checked.set(file, content);
      return true;
    });
    changed.clear();
    if (settling.length > 0) {
      for (const file of settling) changed.add(file);
      clearTimeout(timer);
      timer = setTimeout(run, EMPTY_SETTLE_MS);
    }
    if (files.length > 0) running = apply(files).finally(next);
  };
  // First a lint and a bundle of the files as they are, which warms both up: the first edit is
  // then as quick as the next. A failure here is an edit's, which its own run reports.
  running = Promise.all([lint(), build.bundle()])
    .then(
      () => undefined,
      () => undefined,
    )
    .finally(next);

  // Two flat folders, watched as folders: an editor's save by rename replaces the file itself.
  for (const dir of [SCHEMAS_DIR, FLOWS_DIR]) {
    watch(dir, (_event, name) => {
      if (!name?.endsWith('.json')) return;
      changed.add(relative(CONTENT_ROOT, join(dir, name)));
      clearTimeout(timer);
      timer = setTimeout(run, DEBOUNCE_MS);
    });
  }
  console.log('Watching schemas/ and flows/: each saved edit is checked, built and shown in the open pages.');
}
