/**
 * The browser's validators: each form's schema compiled ahead of time into plain JavaScript, so
 * no Ajv compiler and no eval reach the browser. The build writes this code into the bundle;
 * `npm run validate` runs the very same code in Node, so a tester sees what a driver's browser
 * would say without building the app.
 */
import { createRequire } from 'node:module';
import { createPrecompiledValidator, type ValidatorFunctions } from '@rjsf/validator-ajv8';
import { compileSchemaValidatorsCode } from '@rjsf/validator-ajv8/compileSchemaValidators';
import type { RJSFSchema, ValidatorType } from '@rjsf/utils';
import { AJV_OPTIONS, extendAjv } from '../shared/ajv.js';
import type { JsonObject } from '../shared/schemaFiles.js';

/**
 * The Ajv that writes the code checks no schema against JSON Schema's own (validateSchema), which
 * cost most of the time of each form's code (about 60 ms of 70): the code is the same, and each
 * schema is checked that way by the lint and by the server, which compiles the same schema.
 */
const CODE_AJV_OPTIONS = { ...AJV_OPTIONS, validateSchema: false };

/** A CommonJS module: rjsf's ESM output breaks on negative schema hashes. */
export function precompiledValidatorsCode(schema: JsonObject): string {
  return compileSchemaValidatorsCode(schema as RJSFSchema, { ajvOptionsOverrides: CODE_AJV_OPTIONS, extenderFn: extendAjv });
}

// The generated code requires Ajv's runtime helpers and ajv-formats, resolved from here.
const requireFromHere = createRequire(import.meta.url);

const validateFnsByText = new Map<string, ValidatorFunctions>();

/** The functions the build's generated module exports for the form, run here; made once per text of the form (the lint runs many fixtures of one form). */
export function precompiledValidateFns(schema: JsonObject): ValidatorFunctions {
  const text = JSON.stringify(schema);
  let fns = validateFnsByText.get(text);
  if (!fns) {
    const module = { exports: {} as ValidatorFunctions };
    new Function('module', 'exports', 'require', precompiledValidatorsCode(schema))(module, module.exports, requireFromHere);
    fns = module.exports;
    validateFnsByText.set(text, fns);
  }
  return fns;
}

/** The form's precompiled validator, as rjsf uses it in the browser. */
export function precompiledValidator(schema: JsonObject): ValidatorType {
  return createPrecompiledValidator(precompiledValidateFns(schema), schema as RJSFSchema);
}
