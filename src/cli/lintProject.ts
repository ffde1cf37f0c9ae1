/**
 * The checks behind `npm run lint:schemas`, for the files operations staff edit: every schema
 * and UI schema of schemas/, the flow, and the notices drivers get. Each problem names the file, the place and the fix,
 * so a broken edit is found in seconds, not by a driver. The project's root is a parameter: the
 * tests lint edited copies.
 */
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { ErrorObject } from 'ajv';
import type { Flow } from '../shared/flow.js';
import { schemaNamesOf } from '../node/projectFiles.js';
import { schemaWithRuleValues, uiWithRuleValues } from '../shared/ruleValues.js';
import { bundleSchema, isObject, SchemaFileError, type JsonObject } from '../shared/schemaFiles.js';
import { checkFlow, FLOW_FILE } from './lint/flowChecks.js';
import { checkFixtures } from './lint/fixtureChecks.js';
import { checkFlowPaths } from './lint/flowPaths.js';
import { checkExpiries, checkNotices, checkReminders, NOTICES_FILE } from './lint/noticeChecks.js';
import { locate, parseJsonObject, readProjectFile } from './lint/jsonFiles.js';
import { closest, pointer, pointerKeys, Problems, suggestion, valueAt, type Problem } from './lint/problems.js';
import { checkRecordedSteps, RECORDED_STEPS_FILE } from './lint/recordedSteps.js';
import { checkCompiles, checkSchemaRules } from './lint/schemaChecks.js';
import { SchemaChecker } from './lint/schemaProblems.js';
import { checkServedCalls } from './lint/serverRoutes.js';
import { checkServerMessages, SERVER_MESSAGES_FILE } from './lint/serverMessageChecks.js';
import { checkTranslations, copySources, entriesOf } from './lint/translationChecks.js';
import { DEFAULT_LOCALE, LOCALES_FOLDER, localize, TRANSLATED_LOCALES, translationFileOf, type Locale, type Translations } from '../shared/locales.js';
import { checkUiSchema } from './lint/uiChecks.js';
import { checkSchemaValues } from './lint/valueChecks.js';

/** What the code registers, that the files may name. */
export interface Registry {
  /** widgets/index.ts */
  widgets: string[];
  /** src/client/screens/index.ts */
  screens: string[];
}

/** The schemas that describe the files, for editors (.vscode/settings.json) and for this lint. */
export const EDITOR_SCHEMAS = {
  step: 'schemas/meta/step-schema.json',
  ui: 'schemas/meta/ui-schema.json',
  flow: 'flows/flow.schema.json',
  notices: 'flows/notices.schema.json',
  /** What the server answers drivers and staff in (flows/server-messages.json). */
  serverMessages: 'flows/server-messages.schema.json',
  /** The local payment sandbox's cards and words (flows/sandbox-payments.json). */
  sandboxPayments: 'flows/sandbox-payments.schema.json',
  /** How long each kind of record is kept (flows/retention.json). */
  retention: 'flows/retention.schema.json',
};

const SANDBOX_PAYMENTS_FILE = 'flows/sandbox-payments.json';
const RETENTION_FILE = 'flows/retention.json';

/** Every file with copy under `root`, each with the schema that marks its texts (`"copy": true`). */
export const copySourcesAt = (root: string) =>
  copySources(root, { stepSchema: EDITOR_SCHEMAS.step, uiSchema: EDITOR_SCHEMAS.ui }, [
    { file: FLOW_FILE, schema: EDITOR_SCHEMAS.flow },
    { file: NOTICES_FILE, schema: EDITOR_SCHEMAS.notices },
    { file: SERVER_MESSAGES_FILE, schema: EDITOR_SCHEMAS.serverMessages },
    { file: SANDBOX_PAYMENTS_FILE, schema: EDITOR_SCHEMAS.sandboxPayments },
  ]);
const SCHEMA_SUFFIX = '.schema.json';
const UI_SUFFIX = '.ui.json';

/** schemas/ itself, not below (schemas/meta/ describes the files, it holds no step): each file parsed, and bundled when asked. */
class SchemaFolder {
  /** By file name ("signup.schema.json"): the parsed file, or null when it is not JSON. */
  readonly sources = new Map<string, JsonObject | null>();
  private readonly bundled = new Map<string, JsonObject | null>();
  /** By file name and language: each bundle with its texts translated, made once. */
  private readonly localized = new Map<string, JsonObject>();
  /** The files each bundle is made of, itself included. */
  private readonly madeOf = new Map<string, Set<string>>();

  constructor(
    private readonly root: string,
    private readonly problems: Problems,
  ) {
    const names = readdirSync(join(root, 'schemas')).filter((name) => name.endsWith(SCHEMA_SUFFIX) || name.endsWith(UI_SUFFIX));
    for (const name of names.sort()) {
      const file = `schemas/${name}`;
      this.sources.set(name, parseJsonObject(file, readProjectFile(root, file) ?? '', problems) ?? null);
    }
  }

  names(suffix: string): string[] {
    return [...this.sources.keys()].filter((name) => name.endsWith(suffix));
  }

  /** The file with what its "$ref"s name inlined; null when it or a "$ref" is broken (reported). */
  bundle(name: string): JsonObject | null {
    if (!this.bundled.has(name)) {
      let result: JsonObject | null = null;
      const files = new Set<string>();
      this.madeOf.set(name, files);
      try {
        if (this.sources.get(name)) {
          result = bundleSchema(name, (fileName) => {
            files.add(fileName);
            const source = this.sources.get(fileName);
            if (!source) throw new Error(`schemas/${fileName} cannot be read`);
            return source;
          });
        }
      } catch (error) {
        if (!(error instanceof SchemaFileError)) throw error;
        this.reportRef(error);
      }
      this.bundled.set(name, result);
    }
    return this.bundled.get(name) ?? null;
  }

  /** The bundle with its texts in `locale` (locales/<locale>/ of the same root); null when a file is broken (reported). */
  localizedBundle(name: string, locale: Locale): JsonObject | null {
    if (!this.bundle(name)) return null;
    const key = `${name}\n${locale}`;
    let bundled = this.localized.get(key);
    if (!bundled) {
      bundled = bundleSchema(name, (fileName) => {
        const text = readProjectFile(this.root, translationFileOf(locale, fileName));
        let translations: Translations | undefined;
        try {
          translations = text === undefined ? undefined : entriesOf(JSON.parse(text) as JsonObject);
        } catch {
          // Not JSON: reported by the translation checks; the English stands meanwhile.
        }
        return localize(this.sources.get(fileName) ?? {}, translations, locale);
      });
      this.localized.set(key, bundled);
    }
    return bundled;
  }

  /** How many files a bundle is made of. */
  partsOf(name: string): number {
    this.bundle(name);
    return this.madeOf.get(name)?.size ?? 0;
  }

  /** Whether a bundle and every file it is made of lint clean so far. */
  isSound(name: string): boolean {
    return this.bundle(name) !== null && [...(this.madeOf.get(name) ?? [])].every((file) => !this.problems.hasAny(`schemas/${file}`));
  }

  private reportRef(error: SchemaFileError): void {
    const file = `schemas/${error.file}`;
    const keys = [...pointerKeys(error.where), '$ref'];
    const at = pointer(...keys);
    const ref = valueAt(this.sources.get(error.file) ?? null, keys);
    const [target = '', fragment = ''] = typeof ref === 'string' ? ref.split('#') : [];
    if (error.problem.startsWith('circular')) this.problems.add(file, at, error.problem, 'remove the loop: a file cannot build on itself');
    else if (typeof ref !== 'string' || ref.startsWith('#')) this.problems.add(file, at, error.problem, 'write "<file>.schema.json#/$defs/<name>"');
    else if (!this.sources.has(target)) {
      const near = closest(target, this.sources.keys());
      this.problems.add(file, at, `"$ref" names schemas/${target}, which does not exist`, near ? `did you mean "${near}"?` : 'name a file of schemas/');
    } else if (this.sources.get(target)) {
      const defs = valueAt(this.sources.get(target) ?? null, ['$defs']);
      const names = isObject(defs) ? Object.keys(defs) : [];
      this.problems.add(file, at, `"$ref" "${ref}" points at nothing`, `${suggestion(pointerKeys(fragment).at(-1) ?? '', names)} (the $defs of ${target})`);
    }
    // A target that is not JSON has its own problem already.
  }
}

function readJson(root: string, file: string, problems: Problems, missing: string): JsonObject | undefined {
  const text = readProjectFile(root, file);
  if (text === undefined) {
    problems.add(file, '/', 'file not found', missing);
    return undefined;
  }
  return parseJsonObject(file, text, problems);
}

/** Checkers by their schema's file and text: compiling one takes a while, and the tests lint many copies. */
const checkers = new Map<string, SchemaChecker>();

function checkerFor(root: string, file: string, noun: string, problems: Problems): SchemaChecker | undefined {
  const schema = readJson(root, file, problems, 'restore it (git checkout) — editors and the lint need it');
  if (!schema) return undefined;
  const key = `${file}\n${JSON.stringify(schema)}`;
  let checker = checkers.get(key);
  if (!checker) {
    try {
      checker = new SchemaChecker(schema, file, noun);
    } catch (error) {
      problems.add(
        file,
        '/',
        `this file no longer describes the files it checks (${(error as Error).message.split('\n')[0]})`,
        'restore it (git checkout) — editors and the lint need it',
      );
      return undefined;
    }
    checkers.set(key, checker);
  }
  return checker;
}

/**
 * A check that fails in a way nobody foresaw says so as one problem of the file it was checking,
 * never as a stack trace: no edit of the data files makes the lint crash.
 */
async function guarded(file: string, problems: Problems, check: () => unknown): Promise<void> {
  try {
    await check();
  } catch (error) {
    const message = error instanceof Error ? (error.message.split('\n')[0] ?? error.name) : String(error);
    problems.add(file, '/', `the lint could not finish checking this file (${message})`, 'undo the last edit here, or ask a developer');
  }
}

/** What a specific message explains better than the describing schema's: one problem for the place. */
interface Explanation {
  at: string;
  what: string;
  fix: string;
}

/** A `leaveOut` for SchemaChecker.check: an error `explain` knows is reported in its words instead. */
const explainedBetter =
  (file: string, problems: Problems, explain: (error: ErrorObject) => Explanation | undefined) =>
  (error: ErrorObject): boolean => {
    const better = explain(error);
    if (better) problems.add(file, better.at, better.what, better.fix);
    return better !== undefined;
  };

/** A rule (a step schema's keyword) written in a field's "ui:options", which only sets how the input looks. */
const ruleInUiOptions =
  (schemaFile: string, keywords: Set<string>) =>
  (error: ErrorObject): Explanation | undefined => {
    const keys = pointerKeys(error.instancePath);
    const rule = error.params.additionalProperty;
    if (error.keyword !== 'additionalProperties' || keys.at(-1) !== 'ui:options' || typeof rule !== 'string' || !keywords.has(rule)) return undefined;
    const field = pointer('properties', ...keys.slice(0, -1).filter((key) => !key.startsWith('ui:')));
    return {
      at: pointer(...keys, rule),
      what: `"${rule}" is a rule, and "ui:options" only sets how the input looks: here it checks nothing`,
      fix: `a rule belongs in the schema, beside the field's other rules: move it to ${schemaFile} at ${field}`,
    };
  };

/** A step named by its address ("/add-vehicle") where the flow names a step ("addVehicle"). */
const routeForStep =
  (flow: JsonObject) =>
  (error: ErrorObject): Explanation | undefined => {
    // Where the flow schema wants a step's name (#/$defs/stepId), not any other text.
    if (error.keyword !== 'pattern' || !error.schemaPath.endsWith('/stepId/pattern')) return undefined;
    if (typeof error.data !== 'string' || !error.data.startsWith('/')) return undefined;
    const steps = isObject(flow.steps) ? flow.steps : {};
    const ids = Object.keys(steps);
    const id = ids.find((each) => {
      const step = steps[each];
      return isObject(step) && step.route === error.data;
    });
    return {
      at: error.instancePath || '/',
      what: id
        ? `"${error.data}" is the address of step "${id}": the flow names steps, not addresses`
        : `"${error.data}" is an address: the flow names steps, not addresses`,
      fix: id
        ? `name the step ("${id}"), not its address`
        : `name a step: ${suggestion(
            error.data.replace(/^\//, '').replace(/-(\w)/g, (_, c: string) => c.toUpperCase()),
            ids,
          )}`,
    };
  };

/**
 * A required key missing where a key close to it stands is a misspelling: it is reported where it
 * is written ("unknown key … did you mean …?"), not as the key it should have been missing.
 */
const isMisspeltRequired = (data: JsonObject) => (error: ErrorObject) => {
  if (error.keyword !== 'required') return false;
  const here = valueAt(data, pointerKeys(error.instancePath));
  const missing = String(error.params.missingProperty);
  return isObject(here) && Object.keys(here).some((key) => closest(key, [missing]) === missing);
};

/** A form step missing "next" gets the flow check's own message (it may end the journey instead). */
const isMissingNext = (flow: JsonObject) => (error: ErrorObject) => {
  const [steps, id, ...below] = pointerKeys(error.instancePath);
  return (
    error.keyword === 'required' &&
    error.params.missingProperty === 'next' &&
    steps === 'steps' &&
    below.length === 0 &&
    valueAt(flow, ['steps', id ?? '', 'kind']) === 'form'
  );
};

/**
 * @param options.fixturesAndTranslations whether to run the fixtures and check the translations too (`npm run
 * lint:schemas`); `npm run dev` leaves them out: a reworded message should show in the open page
 * at once, with its fixtures and its translations updated after.
 */
export async function lintProject(root: string, registry: Registry, options: { fixturesAndTranslations?: boolean } = {}): Promise<Problem[]> {
  const problems = new Problems();
  const stepChecker = checkerFor(root, EDITOR_SCHEMAS.step, 'keyword', problems);
  const uiChecker = checkerFor(root, EDITOR_SCHEMAS.ui, 'key', problems);
  const flowChecker = checkerFor(root, EDITOR_SCHEMAS.flow, 'key', problems);
  const keywordSchemas = valueAt(stepChecker?.schema ?? null, ['properties']);
  const keywords = new Set(isObject(keywordSchemas) ? Object.keys(keywordSchemas) : []);
  const folder = new SchemaFolder(root, problems);

  // The specific checks first: the describing schema's own report of the same place is left out.
  for (const name of folder.names(SCHEMA_SUFFIX)) {
    const file = `schemas/${name}`;
    const source = folder.sources.get(name);
    if (!source) continue;
    await guarded(file, problems, () => {
      const schema = folder.bundle(name);
      if (schema) {
        checkSchemaRules(file, source, schema, keywords, problems);
        checkSchemaValues(file, source, schema, problems);
      }
      stepChecker?.check(file, source, problems);
    });
  }
  // Last, what Ajv still refuses of a schema whose files all hold: a problem in a file another builds on is reported once, in its own file.
  // Files that others build on first (profile before the social profile made from it).
  const byParts = folder.names(SCHEMA_SUFFIX).sort((a, b) => folder.partsOf(a) - folder.partsOf(b));
  for (const name of byParts) {
    await guarded(`schemas/${name}`, problems, () => {
      const schema = folder.bundle(name);
      if (schema && folder.isSound(name)) checkCompiles(`schemas/${name}`, schema, problems);
    });
  }
  for (const name of folder.names(UI_SUFFIX)) {
    const file = `schemas/${name}`;
    const source = folder.sources.get(name);
    if (!source) continue;
    await guarded(file, problems, () => lintUiFile(name, file, source));
  }

  function lintUiFile(name: string, file: string, source: JsonObject): void {
    const schemaName = name.replace(UI_SUFFIX, SCHEMA_SUFFIX);
    if (!folder.sources.has(schemaName)) {
      const near = closest(
        name,
        folder.names(SCHEMA_SUFFIX).map((n) => n.replace(SCHEMA_SUFFIX, UI_SUFFIX)),
      );
      const fix = near
        ? `did you mean "${near}"?`
        : `name it after its step schema (signup.ui.json goes with signup.schema.json), or add schemas/${schemaName}`;
      problems.add(file, '/', `there is no schemas/${schemaName} for this UI schema`, fix);
    } else {
      const ui = folder.bundle(name);
      const schema = folder.bundle(schemaName);
      // A field's input is judged by its rules only once they hold: a broken rule is reported in its own file, not in each form that uses it.
      if (ui && schema)
        checkUiSchema(file, `schemas/${schemaName}`, source, ui, schema, { widgetNames: registry.widgets, judgeInputs: folder.isSound(schemaName) }, problems);
    }
    uiChecker?.check(file, source, problems, explainedBetter(file, problems, ruleInUiOptions(`schemas/${schemaName}`, keywords)));
  }

  // The data files the server reads as its code loads, before the flow: the flow's last check builds the server.
  const sandboxChecker = checkerFor(root, EDITOR_SCHEMAS.sandboxPayments, 'key', problems);
  const sandboxPayments = readJson(root, SANDBOX_PAYMENTS_FILE, problems, 'restore it (git checkout)');
  if (sandboxPayments) await guarded(SANDBOX_PAYMENTS_FILE, problems, () => sandboxChecker?.check(SANDBOX_PAYMENTS_FILE, sandboxPayments, problems));

  const retentionChecker = checkerFor(root, EDITOR_SCHEMAS.retention, 'key', problems);
  const retention = readJson(root, RETENTION_FILE, problems, 'restore it (git checkout)');
  if (retention) await guarded(RETENTION_FILE, problems, () => retentionChecker?.check(RETENTION_FILE, retention, problems, isMisspeltRequired(retention)));

  const serverMessagesChecker = checkerFor(root, EDITOR_SCHEMAS.serverMessages, 'key', problems);
  const serverMessages = readJson(root, SERVER_MESSAGES_FILE, problems, 'restore it (git checkout)');
  if (serverMessages) {
    await guarded(SERVER_MESSAGES_FILE, problems, () => {
      serverMessagesChecker?.check(SERVER_MESSAGES_FILE, serverMessages, problems);
      if (!problems.hasAny(SERVER_MESSAGES_FILE)) checkServerMessages(serverMessages, problems);
    });
  }

  const noticesChecker = checkerFor(root, EDITOR_SCHEMAS.notices, 'key', problems);
  const notices = readJson(root, NOTICES_FILE, problems, 'restore it (git checkout)');
  if (notices) {
    await guarded(NOTICES_FILE, problems, () => {
      noticesChecker?.check(NOTICES_FILE, notices, problems);
      if (!problems.hasAny(NOTICES_FILE)) checkNotices(notices, problems);
    });
  }

  const flowJson = readJson(root, FLOW_FILE, problems, 'restore it (git checkout)');
  if (flowJson) {
    await guarded(FLOW_FILE, problems, async () => {
      // The references are read from the flow's shape: only once it has it.
      const leaveOut = (error: ErrorObject) => isMissingNext(flowJson)(error) || explainedBetter(FLOW_FILE, problems, routeForStep(flowJson))(error);
      if (flowChecker?.check<Flow>(FLOW_FILE, flowJson, problems, leaveOut) && !problems.hasAny(FLOW_FILE)) {
        await lintFlow(flowJson, folder, registry, problems);
        const recordedSteps = readJson(root, RECORDED_STEPS_FILE, problems, 'restore it (git checkout): it lists the step names stored data may hold');
        if (recordedSteps) checkRecordedSteps(flowJson, recordedSteps, problems);
        if (notices && !problems.hasAny(NOTICES_FILE)) {
          const fieldsOfSchema = (name: string) => fieldsOf(folder.bundle(`${name}${SCHEMA_SUFFIX}`));
          checkReminders(notices, flowJson, fieldsOfSchema, problems);
          checkExpiries(notices, flowJson, fieldsOfSchema, problems);
        }
      }
    });
  }

  // Last, the fixtures, once every file holds: what a driver would now read, against what each fixture says.
  if (options.fixturesAndTranslations !== false && flowJson && !problems.failed) {
    const bundled = (name: string, locale: Locale) => (locale === DEFAULT_LOCALE ? folder.bundle(name) : folder.localizedBundle(name, locale)) ?? {};
    // Each form as the app reads it, made once per language: every fixture of a step asks for it.
    const made = new Map<string, JsonObject>();
    const once = (key: string, make: () => JsonObject) => made.get(key) ?? made.set(key, make()).get(key)!;
    const schema = (name: string, locale: Locale = DEFAULT_LOCALE) =>
      once(`schema ${name} ${locale}`, () => schemaWithRuleValues(bundled(`${name}${SCHEMA_SUFFIX}`, locale)));
    const uiSchema = (name: string, locale: Locale = DEFAULT_LOCALE) =>
      once(`ui ${name} ${locale}`, () => uiWithRuleValues(bundled(`${name}${UI_SUFFIX}`, locale), bundled(`${name}${SCHEMA_SUFFIX}`, locale)));
    await guarded('tests/fixtures', problems, () => checkFixtures(root, flowJson as Flow & JsonObject, { schema, uiSchema }, problems));
  }

  // The translations of the texts, once the files they translate hold (after the fixtures, which
  // run only while no file has a problem: a reworded text's fixtures are run, its translation stale).
  const sourceOf = (file: string): JsonObject | undefined => {
    if (problems.hasAny(file)) return undefined;
    const text = readProjectFile(root, file);
    try {
      const value: unknown = text === undefined ? undefined : JSON.parse(text);
      return isObject(value as JsonObject) ? (value as JsonObject) : undefined;
    } catch {
      // Not JSON: reported by the JSON checks; nothing to translate in it.
      return undefined;
    }
  };
  if (options.fixturesAndTranslations !== false) {
    await guarded(LOCALES_FOLDER, problems, () => {
      checkTranslations(root, copySourcesAt(root), sourceOf, problems);
      if (notices && noticesChecker && !problems.hasAny(NOTICES_FILE)) checkTranslatedNotices(root, notices, noticesChecker, problems);
    });
  }

  problems.locate((file) => readProjectFile(root, file), locate);
  // By file, each file's problems in the order they were found.
  return problems.list.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/** A bundled schema's fields, or undefined when there is none. */
function fieldsOf(schema: JsonObject | null | undefined): string[] | undefined {
  const properties = schema?.properties;
  return isObject(properties) ? Object.keys(properties) : undefined;
}

async function lintFlow(flow: Flow & JsonObject, folder: SchemaFolder, registry: Registry, problems: Problems): Promise<void> {
  const schemas = new Map(folder.names(SCHEMA_SUFFIX).map((name) => [name.replace(SCHEMA_SUFFIX, ''), folder.bundle(name)]));
  checkFlow(flow, { schemas, screenNames: registry.screens }, problems);
  checkFlowPaths(
    flow,
    (name) => {
      const source = folder.sources.get(`${name}${UI_SUFFIX}`);
      return source ? { file: `schemas/${name}${UI_SUFFIX}`, source } : undefined;
    },
    problems,
  );
  for (const name of schemaNamesOf(flow)) {
    if (schemas.has(name) && !folder.sources.has(`${name}${UI_SUFFIX}`)) {
      problems.add(
        `schemas/${name}${UI_SUFFIX}`,
        '/',
        'file not found',
        `every step schema needs its UI schema: create it beside schemas/${name}${SCHEMA_SUFFIX}`,
      );
    }
  }
  // The server is built from the flow and compiles the step schemas, and its code reads the
  // server's messages and the notices: only once all of them hold, or it would report again, as a
  // start failure, a problem already named in its own file.
  if (!problems.failed) await checkServedCalls(flow, problems);
}

/**
 * Each language's notices, as they are sent, held to the rules of flows/notices.schema.json (a
 * text message's length, an email subject on one line): the English file is checked by them, and
 * its translations are sent in its place. A problem is the translation's, at its entry.
 */
function checkTranslatedNotices(root: string, notices: JsonObject, checker: SchemaChecker, problems: Problems): void {
  for (const locale of TRANSLATED_LOCALES) {
    const file = translationFileOf(locale, basename(NOTICES_FILE));
    const text = readProjectFile(root, file);
    if (text === undefined || problems.hasAny(file)) continue;
    let translations: Translations;
    try {
      translations = entriesOf(JSON.parse(text) as JsonObject);
    } catch {
      // Not JSON: the translation checks report the file.
      continue;
    }
    const found = new Problems();
    checker.check(file, localize(notices, translations, locale), found);
    for (const problem of found.list) {
      if (!Object.hasOwn(translations, problem.at)) continue;
      const [what = problem.message, fix = 'write it shorter, as the English is'] = problem.message.split(' — ');
      problems.add(file, pointer(problem.at, locale), what, fix);
    }
  }
}
