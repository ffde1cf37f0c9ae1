/** Schemas the lint judges values with, each compiled once per text (the tests lint many copies of the same files). */
import type { ValidateFunction } from 'ajv';
import { createAjv } from '../../shared/ajv.js';
import type { JsonObject } from '../../shared/schemaFiles.js';

const ajv = createAjv();
const compiled = new Map<string, ValidateFunction | null>();

/** The schema's validator, or undefined when Ajv refuses the schema (a problem the lint reports by itself). */
export function compiledOnce(schema: JsonObject): ValidateFunction | undefined {
  const key = JSON.stringify(schema);
  if (!compiled.has(key)) {
    try {
      compiled.set(key, ajv.compile(schema));
    } catch {
      compiled.set(key, null);
    }
  }
  return compiled.get(key) ?? undefined;
}
