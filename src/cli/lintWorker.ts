/**
 * The schema and flow lint on its own thread, for `npm run dev` (dev.ts): it runs while the main
 * thread bundles the same edit, which is written only if this finds nothing. Each message asks
 * for one run; the answer is the problems, as `npm run lint` prints them.
 */
import { parentPort } from 'node:worker_threads';
import { widgets } from '../../widgets/index.js';
import { screens } from '../client/screens/index.js';
import { lintProject } from './lintProject.js';

parentPort?.on('message', () => parentPort?.postMessage(lintProject(Object.keys(widgets), Object.keys(screens))));
