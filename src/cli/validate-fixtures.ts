// `npm run validate [-- [--step NAME [--variant SCHEMA]] [--junit REPORT.xml] [FILE|FOLDER …]]`:
// runs each fixture (every one under tests/fixtures/ by default) through the browser's
// validator and the server's, and prints per file what each field got. For testers adding
// cases and for ops staff who changed a rule or a message (docs/authoring.md).
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Flow } from '../shared/flow.js';
import { loadFlow, ProjectFileError, shownPath } from '../node/projectFiles.js';
import { FixtureProblem, schemaOfStep } from '../shared/fixtureFiles.js';
import { listFixtureFiles } from '../node/projectFiles.js';
import { checkFixture, expandPaths, formatResult, type BarePayload } from './fixtures.js';
import { junitReport } from './junit.js';

const USAGE = `usage: npm run validate -- [--junit REPORT.xml] [FILE|FOLDER …]
       npm run validate -- --step NAME [--variant SCHEMA] [--junit REPORT.xml] PAYLOAD.json …`;

function usageError(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

let args: ReturnType<
  typeof parseArgs<{ options: { step: { type: 'string' }; variant: { type: 'string' }; junit: { type: 'string' } }; allowPositionals: true }>
>;
try {
  args = parseArgs({ options: { step: { type: 'string' }, variant: { type: 'string' }, junit: { type: 'string' } }, allowPositionals: true });
} catch (error) {
  usageError((error as Error).message);
}
const { values, positionals } = args;
// npm runs scripts from the project's root; paths are the tester's, from where they typed them.
const fromCaller = (path: string) => resolve(process.env.INIT_CWD ?? process.cwd(), path);

let flow: Flow;
try {
  flow = loadFlow();
} catch (error) {
  if (!(error instanceof ProjectFileError)) throw error;
  console.error(error.message);
  process.exit(1);
}
let bare: BarePayload | undefined;
if (values.step !== undefined) {
  if (positionals.length === 0) usageError('--step names the step of the payload files that follow it: give at least one file');
  bare = { step: values.step, ...(values.variant === undefined ? {} : { variant: values.variant }) };
  try {
    schemaOfStep(flow, bare.step, bare.variant);
  } catch (error) {
    if (!(error instanceof FixtureProblem)) throw error;
    usageError(`--${error.place} ${error.place === 'step' ? values.step : values.variant}: ${error.message}`);
  }
} else if (values.variant !== undefined) {
  usageError('--variant goes with --step');
}

const files = positionals.length > 0 ? expandPaths(positionals.map(fromCaller)) : listFixtureFiles();
if (files.length === 0) usageError(`no fixture files in ${positionals.join(', ')}`);
const results = files.map((file) => checkFixture(file, flow, bare));
for (const result of results) console.log(formatResult(result));
const failed = results.filter((r) => !r.passed).length;
console.log(`${results.length - failed} passed, ${failed} failed`);
if (values.junit !== undefined) {
  const report = fromCaller(values.junit);
  writeFileSync(report, junitReport(results));
  console.log(`JUnit report: ${shownPath(report)}`);
}
process.exit(failed > 0 ? 1 : 0);
