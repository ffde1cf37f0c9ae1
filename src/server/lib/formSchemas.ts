/**
 * The server's check of a form's values against a step schema, with the shared Ajv set-up. The
 * request reader (callReader/checkCall.ts) answers drivers with it, and `npm run validate` shows testers
 * exactly what the server would answer, without starting it.
 */
import { compileOnce } from '../../shared/ajv.js';
import { fromAjvErrors, type ValidationErrorLike } from '../../shared/errors.js';
import { loadSchema } from '../../node/projectFiles.js';
import { DEFAULT_LOCALE, type Locale } from '../../shared/locales.js';
import { sensitiveFieldsOf, type JsonObject } from '../../shared/schemaFiles.js';

export interface FormSchema {
  properties: Record<string, { type?: unknown }>;
  /** The fields marked `"sensitive": true`: sealed at rest, answered masked (lib/answers.ts). */
  sensitive: string[];
  /** What is wrong with a form's values; empty when they are valid. */
  errorsOf(form: Record<string, unknown>): ValidationErrorLike[];
}

/** Step schemas by name and language (the messages differ), each read (from the project, or by `load`) and compiled once. */
export function createFormSchemas(load: (name: string, locale: Locale) => JsonObject = loadSchema): (name: string, locale?: Locale) => FormSchema {
  const compiled = new Map<string, FormSchema>();
  return (name, locale = DEFAULT_LOCALE) => {
    const key = `${name}\n${locale}`;
    let schema = compiled.get(key);
    if (!schema) {
      const json = load(name, locale);
      const validate = compileOnce(json);
      schema = {
        properties: (json.properties ?? {}) as FormSchema['properties'],
        sensitive: sensitiveFieldsOf(json),
        errorsOf: (form) => (validate(form) ? [] : fromAjvErrors(validate.errors ?? [])),
      };
      compiled.set(key, schema);
    }
    return schema;
  };
}
