/**
 * Node only (the server, the build and the command-line tools; the browser gets these files
 * through the build). Reads `schemas/` and `flows/`, and turns a broken edit into an error
 * that names the file and the place, for the operations staff who edit them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileOnce } from '../shared/ajv.js';
import { fromAjvErrors } from '../shared/errors.js';
import type { Flow } from '../shared/flow.js';
import type { Notices } from '../shared/generated/notices.js';
import type { Retention } from '../shared/generated/retention.js';
import type { ServerMessages } from '../shared/generated/serverMessages.js';
import {
  DEFAULT_LOCALE,
  LOCALE_NAMES,
  LOCALES_FOLDER,
  localize,
  TRANSLATED_LOCALES,
  translationFileOf,
  type Locale,
  type Translations,
} from '../shared/locales.js';
import { schemaWithRuleValues, uiWithRuleValues } from '../shared/ruleValues.js';
import { bundleSchema, schemaFileName, uiSchemaFileName, type JsonObject } from '../shared/schemaFiles.js';
import { isMissingFile } from './fileErrors.js';

export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * The folder whose schemas/, flows/, locales/ (optional) and tests/fixtures/ the app is made of, and where it is built
 * (dist/, build/): the project itself, or a copy named by ONRAMP_CONTENT_DIR (operations staff's
 * own content, or a test's copy it edits without touching the project's).
 */
export const CONTENT_ROOT = process.env.ONRAMP_CONTENT_DIR ? resolve(process.env.ONRAMP_CONTENT_DIR) : PROJECT_ROOT;
/**
 * The built client of the content: where every build writes it and what the server serves unless
 * STATIC_DIR says otherwise (config.ts), so the forms drivers get are those of the content the
 * server checks answers against.
 */
export const DIST = join(CONTENT_ROOT, 'dist');
export const SCHEMAS_DIR = join(CONTENT_ROOT, 'schemas');
export const FLOWS_DIR = join(CONTENT_ROOT, 'flows');
export const FLOW_FILE = join(FLOWS_DIR, 'onboarding.flow.json');
export const FLOW_SCHEMA_FILE = join(FLOWS_DIR, 'flow.schema.json');
export const NOTICES_FILE = join(FLOWS_DIR, 'notices.json');
export const NOTICES_SCHEMA_FILE = join(FLOWS_DIR, 'notices.schema.json');
export const SERVER_MESSAGES_FILE = join(FLOWS_DIR, 'server-messages.json');
export const SERVER_MESSAGES_SCHEMA_FILE = join(FLOWS_DIR, 'server-messages.schema.json');
export const RETENTION_FILE = join(FLOWS_DIR, 'retention.json');
export const RETENTION_SCHEMA_FILE = join(FLOWS_DIR, 'retention.schema.json');
export const FIXTURES_DIR = join(CONTENT_ROOT, 'tests', 'fixtures');
/** The folders of data files the app is made of, which operations staff edit: a copy of the content is these. */
export const CONTENT_FOLDERS = ['schemas', 'flows', LOCALES_FOLDER] as const;
/** In the built client (dist/): for each step's route, the scripts its page loads on demand (builds/indexHtml.ts writes it, the server preloads them). */
export const ROUTE_PRELOADS = 'route-preloads.json';

/** The server's drawing of the steps (src/client/app/serverRender.tsx, built by builds/bundles.ts): beside dist/, never served. */
export const SSR_BUNDLE = join(CONTENT_ROOT, 'build', 'ssr', 'render.mjs');

export class ProjectFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProjectFileError';
  }
}

/** Line and column of a character offset, for JSON syntax errors. */
function positionOf(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

/** A path as messages show it: from the content root (schemas/…, flows/…), or whole when outside it. */
export function shownPath(path: string): string {
  const inside = relative(CONTENT_ROOT, path);
  return inside.startsWith('..') || isAbsolute(inside) ? path : inside;
}

/** The files read while `filesReadBy` runs its work: path → text, undefined for a file that is not there. */
let filesRead: Map<string, string | undefined> | undefined;

/**
 * What `work` made and the files it read (readJsonFile, readTranslations), with their texts: what
 * it makes again only once one of them changes (`npm run dev` remakes only the forms an edit touches).
 */
export function filesReadBy<T>(work: () => T): { made: T; files: Map<string, string | undefined> } {
  const outer = filesRead;
  const files = new Map<string, string | undefined>();
  filesRead = files;
  try {
    return { made: work(), files };
  } finally {
    filesRead = outer;
    for (const [path, text] of files) outer?.set(path, text);
  }
}

/** A file's text; undefined when it is not there (any other failure to read it is thrown). */
export function textOf(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if (isMissingFile(error)) return undefined;
    throw error;
  }
}

export function readJsonFile(path: string): JsonObject {
  const shown = shownPath(path);
  const text = textOf(path);
  filesRead?.set(path, text);
  if (text === undefined) throw new ProjectFileError(`${shown}: file not found`);
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new ProjectFileError(`${shown}: must hold a JSON object`);
    }
    return value as JsonObject;
  } catch (error) {
    if (error instanceof ProjectFileError) throw error;
    const message = (error as Error).message;
    const at = /position (\d+)/.exec(message);
    const where = at ? ` at ${positionOf(text, Number(at[1]))}` : '';
    throw new ProjectFileError(`${shown}: invalid JSON${where}: ${message}`);
  }
}

/**
 * Translation files the app asked for that the content folder does not have: translations are
 * optional content, and a text without one is shown in English. The build says so in one line
 * (missingTranslationsWarning).
 */
const missingTranslationFiles = new Set<string>();

/** Notes a translation file that is not there (`readTranslations`, and the browser build's imports of them). */
export function noteMissingTranslation(file: string): void {
  missingTranslationFiles.add(file);
}

/** A file's translations into `locale` (locales/<locale>/<file name>); none for English, or when the file has none. */
export function readTranslations(locale: Locale, fileName: string): Translations | undefined {
  if (locale === DEFAULT_LOCALE) return undefined;
  const file = translationFileOf(locale, fileName);
  const path = join(CONTENT_ROOT, file);
  if (!existsSync(path)) {
    filesRead?.set(path, undefined);
    noteMissingTranslation(file);
    return undefined;
  }
  try {
    return readJsonFile(path) as unknown as Translations;
  } catch (error) {
    // A text without its translation is shown in English; the lint reports the broken file.
    if (error instanceof ProjectFileError) return undefined;
    throw error;
  }
}

/** One line on the translation files asked for and missing, by language; none when nothing is missing. */
export function missingTranslationsWarning(): string | undefined {
  // The server reads its own (its answers, the notices) when first asked: asked for here, so the line names them too.
  for (const locale of TRANSLATED_LOCALES) for (const path of [NOTICES_FILE, SERVER_MESSAGES_FILE]) readTranslations(locale, basename(path));
  const parts = TRANSLATED_LOCALES.flatMap((locale) => {
    const folder = `${LOCALES_FOLDER}/${locale}/`;
    const missing = [...missingTranslationFiles].filter((file) => file.startsWith(folder)).map((file) => file.slice(folder.length));
    if (missing.length === 0) return [];
    const readers = `drivers reading ${LOCALE_NAMES[locale]}`;
    return existsSync(join(CONTENT_ROOT, folder))
      ? [`${folder} has no ${missing.sort().join(', ')}: ${readers} see those texts in English`]
      : [`there is no ${folder}: ${readers} see Onramp in English`];
  });
  return parts.length === 0 ? undefined : `warning: ${parts.join('; ')} — run npm run locales, then write each text's translation`;
}

/** A file of schemas/, its texts in `locale`. */
const schemaFileReader = (locale: Locale) => (fileName: string) =>
  localize(readJsonFile(join(SCHEMAS_DIR, fileName)), readTranslations(locale, fileName), locale);

/** A step's schema, self-contained (shared definitions inlined), its messages showing its rules' values, in `locale`. */
export function loadSchema(name: string, locale: Locale = DEFAULT_LOCALE): JsonObject {
  return schemaWithRuleValues(bundleSchema(schemaFileName(name), schemaFileReader(locale)));
}

/** A step's UI schema, self-contained, each field's texts showing its rules' values, in `locale`. */
export function loadUiSchema(name: string, locale: Locale = DEFAULT_LOCALE): JsonObject {
  const read = schemaFileReader(locale);
  return uiWithRuleValues(bundleSchema(uiSchemaFileName(name), read), bundleSchema(schemaFileName(name), read));
}

/**
 * A data file's schema, compiled once for as long as its text stays the same: a server starting
 * again, or `npm run dev` after an edit, reads the flow again but rarely its schema.
 */
const shapeCheckOf = <T>(schemaPath: string) => compileOnce<T>(readJsonFile(schemaPath) as object, { strict: true });

/** A data file, checked against the JSON Schema that states its shape: its type is the one generated from that schema; its texts in `locale`. */
function loadChecked<T>(path: string, schemaPath: string, locale: Locale = DEFAULT_LOCALE): T {
  const data: unknown = localize(readJsonFile(path), readTranslations(locale, basename(path)), locale);
  const validate = shapeCheckOf<T>(schemaPath);
  if (!validate(data)) {
    const problems = fromAjvErrors(validate.errors ?? [])
      .map((e) => `  at ${e.property || '/'}: ${e.message}`)
      .join('\n');
    throw new ProjectFileError(`${relative(CONTENT_ROOT, path)} does not match ${shownPath(schemaPath)}:\n${problems}`);
  }
  return data;
}

/** The flow file, checked against flows/flow.schema.json. */
export function loadFlow(path: string = FLOW_FILE, locale: Locale = DEFAULT_LOCALE): Flow {
  return loadChecked<Flow>(path, FLOW_SCHEMA_FILE, locale);
}

/** What drivers are told by email and text message (flows/notices.json), checked against flows/notices.schema.json. */
export function loadNotices(locale: Locale = DEFAULT_LOCALE): Notices {
  return loadChecked<Notices>(NOTICES_FILE, NOTICES_SCHEMA_FILE, locale);
}

/** What the server answers drivers and staff in (flows/server-messages.json), checked against its schema; its texts in `locale`. */
export function loadServerMessages(locale: Locale = DEFAULT_LOCALE): ServerMessages {
  return loadChecked<ServerMessages>(SERVER_MESSAGES_FILE, SERVER_MESSAGES_SCHEMA_FILE, locale);
}

/** How long each kind of record is kept (flows/retention.json), checked against its schema. */
export function loadRetention(): Retention {
  return loadChecked<Retention>(RETENTION_FILE, RETENTION_SCHEMA_FILE);
}

/** Every schema name a flow renders (steps and their variants). */
export function schemaNamesOf(flow: Flow): string[] {
  const names = new Set<string>();
  for (const step of Object.values(flow.steps)) {
    if (step.kind !== 'form') continue;
    names.add(step.schema);
    for (const variant of step.variants ?? []) names.add(variant.schema);
  }
  return [...names];
}

/** Fixture folders that hold no payloads: broken-edits/ is the lint's. */
const NOT_PAYLOADS = new Set(['broken-edits']);

/** Every fixture (.json) file under a folder, sorted. */
export function listFixtureFiles(dir: string = FIXTURES_DIR): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && !NOT_PAYLOADS.has(entry.name)) files.push(...listFixtureFiles(path));
    else if (entry.isFile() && entry.name.endsWith('.json')) files.push(path);
  }
  return files;
}
