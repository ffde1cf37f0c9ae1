// `npm run lint:schemas [-- ROOT]` (and the second half of `npm run lint`): the schema, UI schema
// and flow files, as operations staff edit them, of this project or of the copy at ROOT. One line
// per problem; exit status 1 if there is any.
import { SCREEN_NAMES, WIDGET_NAMES } from '../shared/registries.js';
import { CONTENT_ROOT } from '../node/projectFiles.js';
import { formatProblem } from './lint/problems.js';
import { lintProject } from './lintProject.js';

const problems = await lintProject(process.argv[2] ?? CONTENT_ROOT, { widgets: [...WIDGET_NAMES], screens: [...SCREEN_NAMES] });
for (const problem of problems) console.log(formatProblem(problem));
// Since the process started: what running the lint costs, imports included.
const took = Math.round(performance.now());
console.log(`schemas and flow: ${problems.length} problem${problems.length === 1 ? '' : 's'} (${took} ms)`);
process.exitCode = problems.length > 0 ? 1 : 0;
