// `npm run lint` (after the type check): the schema and flow files, as operations staff edit them.
import { screens } from '../client/screens/index.js';
import { widgets } from '../../widgets/index.js';
import { lintProject } from './lintProject.js';

const problems = lintProject(Object.keys(widgets), Object.keys(screens));
if (problems.length > 0) {
  console.error(`${problems.length} problem(s) in schemas/ and flows/:\n${problems.map((p) => `  ✗ ${p}`).join('\n')}`);
  process.exit(1);
}
console.log('schemas/ and flows/: no problems');
