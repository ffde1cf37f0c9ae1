/**
 * Fixtures: a form's values and what the validators must say of them, shared by
 * `npm run validate` and `npm test` (docs/authoring.md explains them to testers).
 *
 *   {
 *     "description": "an email with nothing after the @",
 *     "step": "signup",
 *     "expect": "invalid",
 *     "errors": { "/email": "Email must be valid." },
 *     "data": { "email": "driver@", … }
 *   }
 *
 * `step` is a form step of flows/onboarding.flow.json; a step's variant is named by its schema
 * ("step": "completeProfile", "variant": "profile-social"). `errors` holds, for each field that
 * fails, its first message exactly as a driver reads it, keyed by the field's JSON pointer.
 * Each fixture goes through the browser's precompiled validator and through the server's check:
 * both must say exactly that, and a disagreement between the two is a failure in itself.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ValidatorType } from '@rjsf/utils';
import { expandErrors, fieldOf, messagesByField } from '../shared/errors.js';
import type { Flow } from '../shared/flow.js';
import { FIXTURES_DIR, loadSchema, loadUiSchema, ProjectFileError, readJsonFile, shownPath } from '../shared/projectFiles.js';
import type { JsonObject } from '../shared/schemaFiles.js';
import { createFormSchemas } from '../server/lib/formSchemas.js';
import { precompiledValidator } from './precompiledValidators.js';

/** Folders of tests/fixtures/ that hold something else than payloads (broken schema edits for the lint). */
const NOT_PAYLOADS = new Set(['broken-edits']);

/** Field (as a JSON pointer, "/email") → message. */
export type Messages = Record<string, string>;

export interface Fixture {
  step: string;
  variant?: string;
  /** The schema the step (or its variant) renders. */
  schema: string;
  expect: 'valid' | 'invalid';
  /** Empty for a valid fixture. */
  errors: Messages;
  data: JsonObject;
}

/** A payload given without a fixture around it: `npm run validate -- --step signup FILE`. */
export interface BarePayload {
  step: string;
  variant?: string;
}

export interface ResultLine {
  ok: boolean;
  text: string;
}

export interface FixtureResult {
  /** As messages show it: from the project's root, or whole when outside it. */
  file: string;
  /** "signup", "completeProfile, variant profile-social"; empty when the file could not be read. */
  target: string;
  passed: boolean;
  /** What each field got, or why the file could not be checked. */
  lines: ResultLine[];
}

/** A mistake in a fixture or an argument, at a place ("step", "errors/email"). */
export class FixtureProblem extends Error {
  constructor(
    readonly place: string,
    message: string,
  ) {
    super(message);
    this.name = 'FixtureProblem';
  }
}

/** Every .json file under a folder, sorted; broken-edits/ is the lint's. */
export function listFixtureFiles(dir: string = FIXTURES_DIR): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && !NOT_PAYLOADS.has(entry.name)) files.push(...listFixtureFiles(path));
    else if (entry.isFile() && entry.name.endsWith('.json')) files.push(path);
  }
  return files;
}

/** Files as given on the command line: a folder stands for the fixtures in it. */
export function expandPaths(paths: string[]): string[] {
  return paths.flatMap((path) => (statSync(path, { throwIfNoEntry: false })?.isDirectory() ? listFixtureFiles(path) : [path]));
}

/** The schema a form step renders, or one of its variants; the message lists the choices. */
export function schemaOfStep(flow: Flow, stepId: string, variant?: string): string {
  const step = Object.hasOwn(flow.steps, stepId) ? flow.steps[stepId] : undefined;
  if (step?.kind !== 'form') {
    const formSteps = Object.entries(flow.steps).flatMap(([id, s]) => (s.kind === 'form' ? [id] : []));
    const what = step ? `step "${stepId}" shows a screen, not a form` : `no step "${stepId}" in flows/onboarding.flow.json`;
    throw new FixtureProblem('step', `${what} — use one of the form steps: ${formSteps.join(', ')}`);
  }
  if (variant === undefined) return step.schema;
  const variants = (step.variants ?? []).map((v) => v.schema);
  if (!variants.includes(variant)) {
    const fix = variants.length > 0 ? `use one of: ${variants.join(', ')}` : `"${stepId}" has no variants, leave "variant" out`;
    throw new FixtureProblem('variant', `step "${stepId}" has no variant "${variant}" — ${fix}`);
  }
  return variant;
}

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

const FIXTURE_KEYS = ['description', 'step', 'variant', 'expect', 'errors', 'data'];

/** A fixture file's contents, checked; every mistake found is thrown at once. */
export function parseFixture(json: JsonObject, flow: Flow): Fixture {
  if (!('step' in json) && !('data' in json)) {
    throw new FixtureProblem('', 'not a fixture: it needs "step", "expect" and "data" — for a bare payload, name its step with --step NAME');
  }
  const problems: FixtureProblem[] = [];
  for (const key of Object.keys(json)) {
    if (!FIXTURE_KEYS.includes(key)) problems.push(new FixtureProblem(key, `unknown key — a fixture has ${FIXTURE_KEYS.join(', ')}`));
  }
  const { step, variant, expect, errors = {}, data, description } = json;
  let schema = '';
  if (typeof step !== 'string') {
    problems.push(new FixtureProblem('step', 'missing — name a form step of flows/onboarding.flow.json, e.g. "step": "signup"'));
  } else {
    try {
      schema = schemaOfStep(flow, step, typeof variant === 'string' ? variant : undefined);
    } catch (error) {
      if (!(error instanceof FixtureProblem)) throw error;
      problems.push(error);
    }
  }
  if (variant !== undefined && typeof variant !== 'string') problems.push(new FixtureProblem('variant', 'must be the name of the variant\'s schema, e.g. "profile-social"'));
  if (expect !== 'valid' && expect !== 'invalid') problems.push(new FixtureProblem('expect', 'must be "valid" or "invalid"'));
  if (!isObject(data)) problems.push(new FixtureProblem('data', 'must be the form\'s values, e.g. "data": { "email": "driver@example.com" }'));
  if (description !== undefined && typeof description !== 'string') problems.push(new FixtureProblem('description', 'must be text'));
  if (!isObject(errors)) problems.push(new FixtureProblem('errors', 'must map each field to its message, e.g. "errors": { "/email": "Email must be valid." }'));
  else {
    for (const [field, message] of Object.entries(errors)) {
      const place = `errors/${field.replace(/^\//, '')}`;
      if (field !== '' && !field.startsWith('/')) problems.push(new FixtureProblem(place, `a field is written as a JSON pointer — write "/${field}"`));
      if (typeof message !== 'string' || message === '') problems.push(new FixtureProblem(place, 'must be the message a driver reads'));
    }
    const listed = Object.keys(errors).length > 0;
    if (expect === 'valid' && listed) problems.push(new FixtureProblem('errors', 'a valid fixture lists no messages — remove "errors", or make it "expect": "invalid"'));
    if (expect === 'invalid' && !listed) problems.push(new FixtureProblem('errors', 'an invalid fixture lists the message of each field that fails, e.g. "errors": { "/email": "Email must be valid." }'));
  }
  if (problems.length > 0) throw new AggregateError(problems);
  return {
    step: step as string,
    ...(variant === undefined ? {} : { variant: variant as string }),
    schema,
    expect: expect as Fixture['expect'],
    errors: errors as Messages,
    data: data as JsonObject,
  };
}

/** "/email" for the field email; "" for the form as a whole. */
const pointerOf = (field: string) => (field === '' ? '' : `/${field.replace(/~/g, '~0').replace(/\//g, '~1')}`);

function firstByPointer(byField: Record<string, string[]>): Messages {
  const first: Messages = {};
  for (const [field, messages] of Object.entries(byField)) if (messages[0] !== undefined) first[pointerOf(field)] = messages[0];
  return first;
}

const formSchemas = createFormSchemas();

/** What the server answers for these values: the first message of each field. */
function serverMessages(schema: string, data: JsonObject): Messages {
  return firstByPointer(messagesByField(formSchemas(schema).errorsOf(data)));
}

const browserForms = new Map<string, { schema: JsonObject; uiSchema: JsonObject; validator: ValidatorType }>();

/** What the browser shows for these values: the first message under each field. */
function browserMessages(schemaName: string, data: JsonObject): Messages {
  let form = browserForms.get(schemaName);
  if (!form) {
    const schema = loadSchema(schemaName);
    form = { schema, uiSchema: loadUiSchema(schemaName), validator: precompiledValidator(schema) };
    browserForms.set(schemaName, form);
  }
  // As the step page's form validates: rjsf's error mapping, then ours (transformErrors).
  const { errors } = form.validator.validateFormData(data, form.schema, undefined, (e) => expandErrors(e), form.uiSchema);
  const byField: Record<string, string[]> = {};
  for (const error of errors) (byField[fieldOf(error.property)] ??= []).push(error.message ?? '');
  return firstByPointer(byField);
}

const said = (message: string | undefined) => (message === undefined ? 'no message' : JSON.stringify(message));

/** One line per field: what was expected and what the browser and the server said. */
export function compareMessages(expected: Messages, browser: Messages, server: Messages): ResultLine[] {
  const fields = [...new Set([...Object.keys(expected), ...Object.keys(browser), ...Object.keys(server)])];
  return fields.map((field) => {
    const name = field || '(the form)';
    const want = expected[field];
    if (browser[field] !== server[field]) {
      const expectedToo = want === undefined ? '' : ` (expected ${said(want)})`;
      return { ok: false, text: `${name}: the browser says ${said(browser[field])} but the server says ${said(server[field])}${expectedToo}` };
    }
    const got = browser[field];
    return got === want ? { ok: true, text: `${name}: ${said(got)}` } : { ok: false, text: `${name}: expected ${said(want)}, got ${said(got)}` };
  });
}

/** Reads one fixture (or bare payload) and runs it through both validators. */
export function checkFixture(path: string, flow: Flow, bare?: BarePayload): FixtureResult {
  const file = shownPath(path);
  let fixture: Fixture;
  try {
    const json = readJsonFile(path);
    fixture = bare
      ? { ...bare, schema: schemaOfStep(flow, bare.step, bare.variant), expect: 'valid', errors: {}, data: json }
      : parseFixture(json, flow);
  } catch (error) {
    const problems: unknown[] = error instanceof AggregateError ? error.errors : [error];
    if (!problems.every((p) => p instanceof FixtureProblem || p instanceof ProjectFileError)) throw error;
    const lines = (problems as Error[]).map((problem) => ({
      ok: false,
      text: problem instanceof FixtureProblem ? `${file}${problem.place ? `:/${problem.place}` : ''}: ${problem.message}` : problem.message,
    }));
    return { file, target: '', passed: false, lines };
  }
  const target = `${fixture.step}${fixture.variant ? `, variant ${fixture.variant}` : ''}`;
  let lines: ResultLine[];
  try {
    lines = compareMessages(fixture.errors, browserMessages(fixture.schema, fixture.data), serverMessages(fixture.schema, fixture.data));
  } catch (error) {
    // A broken schema file (an edit in progress): every fixture of its step says so.
    lines = [{ ok: false, text: `cannot be checked: ${(error as Error).message}` }];
  }
  return { file, target, passed: lines.every((line) => line.ok), lines };
}

/** A result as the command prints it: the file, then one line per field. */
export function formatResult(result: FixtureResult): string {
  const head = `${result.passed ? '✓' : '✗'} ${result.file}${result.target ? ` (${result.target})` : ''}`;
  return [head, ...result.lines.map((line) => `${line.ok ? '      ' : '    ✗ '}${line.text}`)].join('\n');
}
