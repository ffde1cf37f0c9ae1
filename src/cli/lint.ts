// `npm run lint:schemas [-- ROOT]` (and the second half of `npm run lint`): the schema, UI schema
// and flow files, as operations staff edit them, of this project or of the copy at ROOT. One line
// per problem; exit status 1 if there is any but a warning (a translation still to write).
import { basename } from 'node:path';
import { CONTENT_ROOT } from '../node/projectFiles.js';
import { SCREEN_NAMES, WIDGET_NAMES } from '../shared/registries.js';
import { errorsIn, formatProblem } from './lint/problems.js';
import { loadServerCode } from './lint/serverRoutes.js';
import { lintProject } from './lintProject.js';

/** Lints the content at `root`, printing a line per problem and the count; answers the exit status. */
export async function runLint(root: string, out: (line: string) => void): Promise<number> {
  const started = performance.now();
  const problems = await lintProject(root, { widgets: [...WIDGET_NAMES], screens: [...SCREEN_NAMES] });
  for (const problem of problems) out(formatProblem(problem));
  // The checks, and since the process started (Node and the modules loading too): npm run bench reads both.
  const checked = Math.round(performance.now() - started);
  const total = Math.round(performance.now());
  const errors = errorsIn(problems).length;
  const warnings = problems.length - errors;
  const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
  out(`schemas and flow: ${plural(errors, 'problem')}${warnings > 0 ? `, ${plural(warnings, 'warning')}` : ''} (checked in ${checked} ms, ${total} ms in all)`);
  return errors > 0 ? 1 : 0;
}

if (process.argv[1] && import.meta.url.endsWith(basename(process.argv[1]))) {
  // A process of its own, which lints once, loads the server's route files (their route tables) with
  // the rest of its code: "checked in" times the checks alone, "in all" includes it.
  // A broken data file the server's code reads fails that load; it is reported by the checks, and
  // the load's failure only if they pass (checkServedCalls). A process that lints again, as the
  // tests and npm run dev do, loads it once the data files hold, so a failed load isn't kept.
  await loadServerCode().catch(() => undefined);
  try {
    process.exitCode = await runLint(process.argv[2] ?? CONTENT_ROOT, (line) => console.log(line));
  } catch (error) {
    // Each check turns its own failure into a problem of its file (lintProject.ts); this is the net under them.
    console.log(
      `schemas and flow: the lint stopped (${error instanceof Error ? error.message.split('\n')[0] : String(error)}) — undo the last edit, or ask a developer`,
    );
    process.exitCode = 1;
  }
}
