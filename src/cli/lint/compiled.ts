/**
 * The lint's validators, kept on disk by content between runs: compiling the schemas that
 * describe the files (schemas/meta/, flows/*.schema.json) and the step schemas took most of a
 * lint's time, and they change far less often than the files they check. Each validator is Ajv's
 * standalone code of the schema, named by a hash of the schema's text and of everything that
 * shapes the code (Ajv's versions, options, formats and our keywords): a changed schema or set-up
 * is a new name, never a stale validator.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type Ajv from 'ajv';
import type { ValidateFunction } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { isMissingFile } from '../../node/fileErrors.js';
import { PROJECT_ROOT } from '../../node/projectFiles.js';
import { AJV_OPTIONS, createAjv, FORMATS, FORMATS_MODULE } from '../../shared/ajv.js';
import { customKeywords } from '../../shared/keywords.js';
import type { JsonObject } from '../../shared/schemaFiles.js';

const CACHE_DIR = join(PROJECT_ROOT, 'node_modules', '.cache', 'onramp', 'validators');

// The code requires Ajv's runtime helpers, resolved from here, and the formats by FORMATS_MODULE.
const requireFromHere = createRequire(import.meta.url);
const requireForCode = (id: string): unknown => (id === FORMATS_MODULE ? FORMATS : requireFromHere(id));

/** What shapes the code besides the schema; a function by its source. */
const SETUP = createHash('sha256')
  .update(
    JSON.stringify(
      {
        versions: ['ajv', 'ajv-errors', 'ajv-formats'].map((name) => (requireFromHere(`${name}/package.json`) as { version: string }).version),
        options: AJV_OPTIONS,
        formats: FORMATS,
        keywords: customKeywords,
        createAjv,
      },
      (_key, value: unknown) => (typeof value === 'function' || value instanceof RegExp ? String(value) : value),
    ),
  )
  .digest('hex');

/** Writes the code whole or not at all (another lint may read it meanwhile); a folder it cannot write to only costs the next lint the compiling. */
function keep(file: string, code: string): void {
  try {
    mkdirSync(CACHE_DIR, { recursive: true });
    writeFileSync(`${file}.${process.pid}`, code);
    renameSync(`${file}.${process.pid}`, file);
  } catch {
    // Read-only or full: the validator is used all the same, compiled again next time.
  }
}

/** The Ajv of each kind that writes the code, made on the first schema not on disk yet. */
const writers = { lenient: undefined as Ajv | undefined, strict: undefined as Ajv | undefined };
const inMemory = new Map<string, ValidateFunction | Error>();

/**
 * The schema's validator, from disk when this setup compiled the same text before. Throws Ajv's
 * error, each time, for a schema Ajv refuses (which is not kept: the lint reports it).
 */
export function compileCached(schema: JsonObject, { strict = false }: { strict?: boolean } = {}): ValidateFunction {
  const kind = strict ? 'strict' : 'lenient';
  const key = createHash('sha256')
    .update(`${SETUP}\n${kind}\n${JSON.stringify(schema)}`)
    .digest('base64url');
  let validate = inMemory.get(key);
  if (!validate) {
    validate = loaded(schema, kind, join(CACHE_DIR, `${key}.cjs`));
    inMemory.set(key, validate);
  }
  if (validate instanceof Error) throw validate;
  return validate;
}

/** The validator from its file, or compiled and written there; Ajv's error when Ajv refuses the schema. */
function loaded(schema: JsonObject, kind: keyof typeof writers, file: string): ValidateFunction | Error {
  let code: string;
  try {
    code = readFileSync(file, 'utf8');
  } catch (error) {
    if (!isMissingFile(error)) throw error;
    const ajv = (writers[kind] ??= createAjv({ strict: kind === 'strict', source: true }));
    try {
      code = standaloneCode(ajv, ajv.compile(schema));
    } catch (refused) {
      return refused as Error;
    } finally {
      ajv.removeSchema(schema);
    }
    keep(file, code);
  }
  const module = { exports: {} as ValidateFunction & { default?: ValidateFunction } };
  new Function('module', 'exports', 'require', code)(module, module.exports, requireForCode);
  return module.exports.default ?? module.exports;
}

/** The schema's validator, or undefined when Ajv refuses the schema (a problem the lint reports by itself). */
export function compiledOnce(schema: JsonObject): ValidateFunction | undefined {
  try {
    return compileCached(schema);
  } catch {
    // Ajv refused the schema: the schema checks say why, naming the file and the place.
    return undefined;
  }
}
