/** Schemas the lint judges values with. */
import type { ValidateFunction } from 'ajv';
import { compileOnce } from '../../shared/ajv.js';
import type { JsonObject } from '../../shared/schemaFiles.js';

/** The schema's validator, or undefined when Ajv refuses the schema (a problem the lint reports by itself). */
export function compiledOnce(schema: JsonObject): ValidateFunction | undefined {
  try {
    return compileOnce(schema);
  } catch {
    // Ajv refused the schema: the schema checks say why, naming the file and the place.
    return undefined;
  }
}
