import Ajv, { _, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import ajvErrors from 'ajv-errors';
import { customKeywords } from './keywords.js';

/**
 * The one Ajv set-up. The browser's precompiled validators (src/node/builds/forms.ts), the server's request
 * validation and the command-line tools all extend Ajv with `extendAjv`, so a rule or a message
 * can never differ between them. The options match rjsf's (allErrors is what ajv-errors needs).
 */
export const AJV_OPTIONS: Options = {
  allErrors: true,
  $data: true,
  verbose: true,
  multipleOfPrecision: 8,
  discriminator: false,
  strict: false,
};

/** Adds ajv-errors and our keywords: rjsf's `extenderFn`. */
export function extendAjv(ajv: Ajv): Ajv {
  for (const keyword of customKeywords) ajv.addKeyword(keyword);
  ajvErrors(ajv);
  return ajv;
}

/**
 * A "pattern" is compiled with the u flag (Ajv's unicodeRegExp), which refuses what a plain
 * RegExp lets pass ("\-" outside brackets): a text is a regular expression as it will be compiled.
 */
function isRegex(text: string): boolean {
  try {
    new RegExp(text, 'u');
    return true;
  } catch (error) {
    // What RegExp can't compile is what the format refuses.
    if (error instanceof SyntaxError) return false;
    throw error;
  }
}

/** Every format our Ajv knows, by name: what a standalone validator's code requires as {@link FORMATS_MODULE}. */
export const FORMATS = { ...fullFormats, regex: isRegex };
/** The name a standalone validator's code requires the formats by (`source` of createAjv). */
export const FORMATS_MODULE = 'onramp:formats';

/**
 * A ready Ajv. `strict` is for the lint: rjsf's non-strict Ajv silently ignores a mistyped
 * keyword, so the lint compiles every schema strictly to catch one. `coerceTypes` is for query
 * strings, whose values are all text: a number in one is read as the number it spells. `source`
 * keeps each validator's code, for Ajv's standalone code (the lint's cache, src/cli/lint/compiled.ts).
 */
export function createAjv({ strict = false, coerceTypes = false, source = false }: { strict?: boolean; coerceTypes?: boolean; source?: boolean } = {}): Ajv {
  const code = source ? { code: { source: true, formats: _`require(${FORMATS_MODULE})` } } : {};
  const ajv = new Ajv({ ...AJV_OPTIONS, strict, coerceTypes, allowUnionTypes: true, ...code });
  addFormats(ajv);
  ajv.addFormat('regex', isRegex);
  // rjsf reads ui:* keys and these annotations; strict mode must know them. `copy` marks, in the
  // schemas that describe the files, the strings drivers read (src/shared/copy.ts).
  if (strict) ajv.addVocabulary(['enumNames', 'copy']);
  return extendAjv(ajv);
}

const shared = { lenient: undefined as Ajv | undefined, strict: undefined as Ajv | undefined };
const compiledByText = { lenient: new Map<string, ValidateFunction | Error>(), strict: new Map<string, ValidateFunction | Error>() };

/**
 * The process's Ajv of each kind, set up once: setting one up compiles JSON Schema's meta-schema
 * and our keywords' (tens of milliseconds each time), which the lint would otherwise do for each
 * schema it checks files against, and `npm run dev` at each save.
 */
export function sharedAjv({ strict = false }: { strict?: boolean } = {}): Ajv {
  const kind = strict ? 'strict' : 'lenient';
  return (shared[kind] ??= createAjv({ strict }));
}

/**
 * The validator of a self-contained schema, compiled once per text in this process: the lint
 * checks many copies of the same files, and `npm run dev` reads them all again at each save.
 * Throws Ajv's error, each time, for a schema Ajv refuses.
 */
export function compileOnce<T = unknown>(schema: object, { strict = false }: { strict?: boolean } = {}): ValidateFunction<T> {
  const kind = strict ? 'strict' : 'lenient';
  const text = JSON.stringify(schema);
  let compiled = compiledByText[kind].get(text);
  if (!compiled) {
    const ajv = sharedAjv({ strict });
    try {
      compiled = ajv.compile(schema);
    } catch (error) {
      compiled = error as Error;
    }
    // Ajv would keep each copy by its object; this cache keeps one per text.
    ajv.removeSchema(schema);
    compiledByText[kind].set(text, compiled);
  }
  if (compiled instanceof Error) throw compiled;
  return compiled as ValidateFunction<T>;
}
