import Ajv, { type Options } from 'ajv';
import addFormats from 'ajv-formats';
import ajvErrors from 'ajv-errors';
import { customKeywords } from './keywords.js';

/**
 * The one Ajv set-up. The browser's precompiled validators (src/node/build.ts), the server's request
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
 * A ready Ajv. `strict` is for the lint: rjsf's non-strict Ajv silently ignores a mistyped
 * keyword, so the lint compiles every schema strictly to catch one.
 */
export function createAjv({ strict = false }: { strict?: boolean } = {}): Ajv {
  const ajv = new Ajv({ ...AJV_OPTIONS, strict, allowUnionTypes: true });
  addFormats(ajv);
  // rjsf reads ui:* keys and these annotations; strict mode must know them.
  if (strict) ajv.addVocabulary(['enumNames']);
  return extendAjv(ajv);
}
