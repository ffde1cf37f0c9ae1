/**
 * `npm run steps`: writes docs/steps.md, the table that finds every file of a step (its route,
 * the component that draws it, its schema, UI schema, call, the server route file that serves the
 * call, its fixtures and the tests that name it, its own first), generated from the flow file,
 * src/client/, schemas/, tests/fixtures/, src/server/routes/ and tests/.
 * `npm run steps -- --check` (part of `npm run lint`) fails when the committed table is not current.
 *
 * A step's names differ where the spec fixes them: the route (`/add-vehicle`) and the call's path
 * (`/driver/completeVehicle`) are the spec's; the call is named after its path's last part so a grep
 * for either finds both; the step and its fixtures folder share the step's name (`addVehicle`);
 * the schema is named after what it describes (`vehicle`). The table maps one to the others.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { FLOW_FILE, loadFlow, PROJECT_ROOT } from '../src/node/projectFiles.js';
import type { Flow, Step } from '../src/shared/flow.js';
import { schemaFileName, uiSchemaFileName } from '../src/shared/schemaFiles.js';

export const STEPS_TABLE = join(PROJECT_ROOT, 'docs', 'steps.md');
const ROUTES_DIR = join(PROJECT_ROOT, 'src', 'server', 'routes');
const TESTS_DIR = join(PROJECT_ROOT, 'tests');
const FIXTURES_DIR = join(TESTS_DIR, 'fixtures');
const SCHEMAS_DIR = join(PROJECT_ROOT, 'schemas');
/** The one page that draws every form step; a screen is drawn by `screens/<Name>Screen.tsx` (src/client/screens/index.ts). */
const STEP_PAGE = join(PROJECT_ROOT, 'src', 'client', 'form', 'StepPage.tsx');
const SCREENS_DIR = join(PROJECT_ROOT, 'src', 'client', 'screens');
const REGENERATE = 'npm run steps';

const project = (path: string) => relative(PROJECT_ROOT, path).split('\\').join('/');
const code = (text: string) => `\`${text}\``;
const link = (path: string) => `[${project(path)}](../${project(path)})`;

function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && keep(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** Every call a part of the flow makes (its own call, a resend action, a call after it), in the order written. */
function callsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) callsIn(item, found);
  else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) {
      if (key === 'call' && typeof item === 'string') {
        if (!found.includes(item)) found.push(item);
      } else callsIn(item, found);
    }
  return found;
}

/**
 * The route files that serve a call: a route file's table names a flow call's route by the call's
 * name (`call: 'completeVehicle'`), the review's answers call by the flow's name for it.
 */
function routeFilesOf(flow: Flow, call: string, routeSources: Map<string, string>): string[] {
  const registered = [`call: '${call}'`];
  if (call === flow.review.answersCall) registered.push('call: REVIEW_ANSWERS_CALL');
  return [...routeSources].filter(([, text]) => registered.some((mark) => text.includes(mark))).map(([file]) => file);
}

/** The file of the component that draws a step. */
function componentOf(step: Step): string {
  if (step.kind === 'form') return STEP_PAGE;
  const file = join(SCREENS_DIR, `${step.screen[0]!.toUpperCase()}${step.screen.slice(1)}Screen.tsx`);
  if (!existsSync(file)) throw new Error(`${project(file)}: no such file, for the screen "${step.screen}" — name a screen's component <Name>Screen.tsx`);
  return file;
}

const escaped = (text: string) => text.replace(/[/.]/g, '\\$&');
/** The titles of a test file's suites. */
const suitesOf = (text: string) => [...text.matchAll(/\bdescribe\(\s*(['"`])(.*?)\1/g)].map((match) => match[2]!);

/**
 * Test files that name the step: its route, its call's path (up to its first parameter) or its
 * fixtures folder. The step's own tests come first: those with a suite named after its route or
 * its call's path (`describe('POST /driver/completeProfile'`, `describe('/success'`).
 */
function testsOf(flow: Flow, name: string, step: Step, testSources: Map<string, string>): string[] {
  const marks: RegExp[] = [new RegExp(`fixtures/${name}\\b`)];
  const own: RegExp[] = [];
  if (step.route !== '/') {
    const route = new RegExp(`${escaped(step.route)}(?![\\w/-])`);
    own.push(route);
    if (!step.route.includes(':')) marks.push(route);
  }
  const call = 'call' in step && step.call ? flow.calls[step.call] : undefined;
  if (call) {
    marks.push(new RegExp(escaped(call.path.split('{')[0]!)));
    own.push(new RegExp(`${escaped(call.path)}(?![\\w/-])`));
  }
  const isOwn = (text: string) => suitesOf(text).some((title) => own.some((mark) => mark.test(title)));
  const named = [...testSources].filter(([, text]) => marks.some((mark) => mark.test(text)) || isOwn(text));
  return [...named.filter(([, text]) => isOwn(text)), ...named.filter(([, text]) => !isOwn(text))].map(([file]) => file);
}

export function stepsTable(): string {
  const flow = loadFlow(FLOW_FILE);
  const routeSources = new Map(filesUnder(ROUTES_DIR, (name) => name.endsWith('.ts')).map((file) => [file, readFileSync(file, 'utf8')]));
  const testSources = new Map(
    filesUnder(TESTS_DIR, (name) => /\.test\.tsx?$/.test(name))
      .filter((file) => !file.startsWith(FIXTURES_DIR))
      .map((file) => [file, readFileSync(file, 'utf8')]),
  );
  const none = '—';
  const list = (items: string[]) => (items.length > 0 ? items.join('<br>') : none);

  const stepRows = Object.entries(flow.steps).map(([name, step]) => {
    const schemas = step.kind === 'form' ? [step.schema, ...(step.variants ?? []).map((variant) => variant.schema)] : [];
    const schemaFiles = schemas.map((schema) => link(join(SCHEMAS_DIR, schemaFileName(schema))));
    const uiFiles = schemas.map((schema) => join(SCHEMAS_DIR, uiSchemaFileName(schema))).filter((file) => existsSync(file));
    const callName = 'call' in step ? step.call : undefined;
    const call = callName ? flow.calls[callName] : undefined;
    const fixtures = join(FIXTURES_DIR, name);
    return [
      code(name),
      code(step.route),
      link(componentOf(step)),
      list(schemaFiles),
      list(uiFiles.map(link)),
      callName && call ? `${code(callName)}<br>${code(`${call.method} ${call.path}`)}` : none,
      callName ? list(routeFilesOf(flow, callName, routeSources).map(link)) : none,
      existsSync(fixtures) ? link(fixtures) : none,
      list(testsOf(flow, name, step, testSources).map(link)),
    ];
  });

  const users = new Map<string, string[]>();
  const use = (call: string, by: string) => users.set(call, [...(users.get(call) ?? []), by]);
  for (const [name, step] of Object.entries(flow.steps)) for (const call of callsIn(step)) use(call, `step ${code(name)}`);
  for (const call of callsIn(flow.social)) use(call, 'social sign-in');
  for (const call of callsIn(flow.account)) use(call, 'account');
  if (typeof flow.account.signIn === 'string') use(flow.account.signIn, 'account');
  use(flow.review.answersCall, 'review (answers of a step)');
  const callRows = Object.entries(flow.calls).map(([name, call]) => [
    code(name),
    code(`${call.method} ${call.path}`),
    list(routeFilesOf(flow, name, routeSources).map(link)),
    list([...new Set(users.get(name) ?? [])]),
  ]);

  const table = (head: string[], rows: string[][]) =>
    [`| ${head.join(' | ')} |`, `|${head.map(() => ' --- |').join('')}`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
  return [
    '# Steps: where each one lives',
    '',
    `Generated by \`${REGENERATE}\` from ${link(FLOW_FILE)}, src/client/, schemas/, tests/fixtures/, src/server/routes/ and tests/; do not edit by hand.`,
    '`npm run lint` fails when this file is not current.',
    '',
    "A step's names differ where the spec fixes them. The route (`/add-vehicle`) and the call's path",
    "(`POST /driver/completeVehicle`) are the spec's; the call is named after its path's last part; the step and its",
    "fixtures folder share the step's name (`addVehicle`); the schema is named after what it describes (`vehicle`).",
    "The server registers a call's route at the path the flow gives it, by the call's name in its route file's table",
    "(`call: 'completeVehicle'`): grep for the call's name, or read the route file here.",
    'A form step is drawn by the one step page, a screen by its component in src/client/screens/.',
    "The tests listed name the step's route, its call's path or its fixtures folder; the step's own come first,",
    'those with a suite (`describe`) named after its route or its call.',
    '',
    '## Steps',
    '',
    table(['Step', 'Route', 'Component', 'Schema', 'UI schema', 'Call', 'Server route file', 'Fixtures', 'Tests'], stepRows),
    '',
    '## Calls',
    '',
    table(['Call', 'Method and path', 'Server route file', 'Made by'], callRows),
    '',
  ].join('\n');
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  const current = stepsTable();
  if (process.argv.includes('--check')) {
    const committed = existsSync(STEPS_TABLE) ? readFileSync(STEPS_TABLE, 'utf8') : '';
    if (committed !== current) {
      console.log(
        `${project(STEPS_TABLE)}: not current (a step, schema, call, route file, fixtures folder or test changed) — run \`${REGENERATE}\` and commit it`,
      );
      process.exitCode = 1;
    }
  } else writeFileSync(STEPS_TABLE, current);
}
