/**
 * Checking fixtures (their format: src/shared/fixtureFiles.ts), shared by `npm run validate` and
 * `npm test`. Each fixture goes through the browser's precompiled validator and through the
 * server's check: both must say exactly what it expects, and a disagreement between the two is a
 * failure in itself.
 */
import { statSync } from 'node:fs';
import type { ValidatorType } from '@rjsf/utils';
import { expandErrors, fieldOf, messagesByField } from '../shared/errors.js';
import { FixtureProblem, parseFixture, schemaOfStep, type Fixture, type Messages } from '../shared/fixtureFiles.js';
import { listFixtureFiles, loadSchema, loadUiSchema, ProjectFileError, readJsonFile, shownPath } from '../node/projectFiles.js';
import { readPayload, splitSource, type Flow, type FormStep } from '../shared/flow.js';
import { DEFAULT_LOCALE, LOCALE_NAMES, type Locale } from '../shared/locales.js';
import type { JsonObject } from '../shared/schemaFiles.js';
import { pointerOf } from '../shared/jsonPointer.js';
import { createFormSchemas, type FormSchema } from '../server/lib/formSchemas.js';
import { precompiledValidator } from '../node/precompiledValidators.js';

/**
 * A payload given without a fixture around it: the form's values (`npm run validate -- --step
 * signup FILE`), or with `body` the request body the step's call sends, as the browser's network
 * panel shows it; the flow's transforms are undone first, as the server reads it.
 */
export interface BarePayload {
  step: string;
  variant?: string;
  body?: boolean;
  /** The language to check the values in. */
  locale?: Locale;
}

export interface ResultLine {
  ok: boolean;
  text: string;
  /** The field it is about, as a JSON pointer ("/email", "" for the form), if it is about one. */
  field?: string;
  /** The message both validators gave, when they agree. */
  got?: string;
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

/** Files as given on the command line: a folder stands for the fixtures in it. */
export function expandPaths(paths: string[]): string[] {
  return paths.flatMap((path) => (statSync(path, { throwIfNoEntry: false })?.isDirectory() ? listFixtureFiles(path) : [path]));
}

function firstByPointer(byField: Record<string, string[]>): Messages {
  const first: Messages = {};
  for (const [field, messages] of Object.entries(byField)) if (messages[0] !== undefined) first[pointerOf(field === '' ? [] : [field])] = messages[0];
  return first;
}

/** Where a fixture's forms are read: the project's files, or (for the lint) the files of the copy it checks. */
export interface FormSource {
  schema(name: string, locale?: Locale): JsonObject;
  uiSchema(name: string, locale?: Locale): JsonObject;
  /** The server's check of each form, compiled once per source and language. */
  server: (name: string, locale?: Locale) => FormSchema;
}

export const projectForms: FormSource = { schema: loadSchema, uiSchema: loadUiSchema, server: createFormSchemas() };

/** What the server answers for these values: the first message of each field. */
function serverMessages(forms: FormSource, schema: string, data: JsonObject, locale: Locale): Messages {
  return firstByPointer(messagesByField(forms.server(schema, locale).errorsOf(data)));
}

/** The browser's validators by the text of their form, compiled once. */
const browserForms = new Map<string, { schema: JsonObject; uiSchema: JsonObject; validator: ValidatorType }>();

/** What the browser shows for these values: the first message under each field. */
function browserMessages(forms: FormSource, schemaName: string, data: JsonObject, locale: Locale): Messages {
  const schema = forms.schema(schemaName, locale);
  const uiSchema = forms.uiSchema(schemaName, locale);
  const key = JSON.stringify([schema, uiSchema]);
  let form = browserForms.get(key);
  if (!form) {
    form = { schema, uiSchema, validator: precompiledValidator(schema) };
    browserForms.set(key, form);
  }
  // As the step page's form validates: rjsf's error mapping, then ours (transformErrors).
  const { errors } = form.validator.validateFormData(data, form.schema, undefined, (e) => expandErrors(e), form.uiSchema);
  const byField: Record<string, string[]> = {};
  for (const error of errors) (byField[fieldOf(error.property)] ??= []).push(error.message ?? '');
  return firstByPointer(byField);
}

const said = (message: string | undefined) => (message === undefined ? 'no message' : JSON.stringify(message));

/** One line per field: what was expected and what the browser and the server said. */
export function compareMessages(expected: Messages, browser: Messages, server: Messages, label: (field: string) => string = (field) => field): ResultLine[] {
  const fields = [...new Set([...Object.keys(expected), ...Object.keys(browser), ...Object.keys(server)])];
  return fields.map((field) => {
    const name = field ? label(field) : '(the form)';
    const want = expected[field];
    if (browser[field] !== server[field]) {
      const expectedToo = want === undefined ? '' : ` (expected ${said(want)})`;
      return { ok: false, field, text: `${name}: the browser says ${said(browser[field])} but the server says ${said(server[field])}${expectedToo}` };
    }
    const got = browser[field];
    return {
      ok: got === want,
      field,
      ...(got === undefined ? {} : { got }),
      text: got === want ? `${name}: ${said(got)}` : `${name}: expected ${said(want)}, got ${said(got)}`,
    };
  });
}

/** Reads one fixture (or bare payload) and runs it through both validators. */
export function checkFixture(path: string, flow: Flow, bare?: BarePayload, forms: FormSource = projectForms): FixtureResult {
  const file = shownPath(path);
  let fixture: Fixture;
  try {
    const json = readJsonFile(path);
    fixture = bare
      ? { ...bare, schema: schemaOfStep(flow, bare.step, bare.variant), locale: bare.locale ?? DEFAULT_LOCALE, expect: 'valid', errors: {}, data: json }
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
  const language = fixture.locale === DEFAULT_LOCALE ? '' : `, in ${LOCALE_NAMES[fixture.locale]}`;
  const target = `${fixture.step}${fixture.variant ? `, variant ${fixture.variant}` : ''}${bare?.body ? ', a request body' : ''}${language}`;
  let lines: ResultLine[];
  // A request body names each field by its key in the body ("zipcode" for the form's zipCode).
  let label = (field: string) => field;
  const call = bare?.body ? flow.calls[(flow.steps[fixture.step] as FormStep).call] : undefined;
  if (call) {
    const keyOf = new Map(Object.entries(call.payload ?? {}).map(([key, field]) => [`/${splitSource(field.from).path.join('.')}`, key]));
    const received = readPayload(call, fixture.data);
    // A photo travels as a file part; in a body written out it is its content type ("image/jpeg"), as in a fixture.
    for (const [field, key] of Object.entries(received.files)) if (typeof fixture.data[key] === 'string') received.form[field] = fixture.data[key];
    fixture = { ...fixture, data: received.form as JsonObject };
    label = (field) => {
      const key = keyOf.get(field);
      return key === undefined || `/${key}` === field ? field : `${field} (the body's "${key}")`;
    };
  }
  try {
    const { schema, data, locale } = fixture;
    lines = compareMessages(fixture.errors, browserMessages(forms, schema, data, locale), serverMessages(forms, schema, data, locale), label);
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
