/**
 * The schema and flow lint on its own thread, for `npm run dev` (dev.ts): it runs while the main
 * thread bundles the same edit, which is written only if this finds nothing. Each message asks
 * for one run; the answer is the problems, each a line as `npm run lint:schemas` prints it. The
 * fixtures and the translations are left to `npm run lint:schemas`: an edit shows at once, its
 * fixtures and translations updated after.
 */
import { SCREEN_NAMES, WIDGET_NAMES } from '../shared/registries.js';
import { parentPort } from 'node:worker_threads';
import { CONTENT_ROOT } from '../node/projectFiles.js';
import { errorsIn, formatProblem } from './lint/problems.js';
import { lintProject } from './lintProject.js';

const registry = { widgets: [...WIDGET_NAMES], screens: [...SCREEN_NAMES] };

parentPort?.on('message', async () =>
  parentPort?.postMessage(errorsIn(await lintProject(CONTENT_ROOT, registry, { fixturesAndTranslations: false })).map(formatProblem)),
);
