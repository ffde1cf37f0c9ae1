/**
 * Turns validation errors into one message per field, the same way in the browser (rjsf's
 * `transformErrors`) and on the server, so both show the schema's words.
 *
 * Two things need mending after ajv-errors:
 * - an object-level `errorMessage.required` is reported on the object itself, so rjsf would put
 *   a field's required message at the top of the form; it is moved to the missing field;
 * - a message may name values of the error it replaces, e.g. "Year must be between {min} and
 *   {max}", filled from that error's params.
 */
import { fillPlaceholders } from './placeholders.js';

export interface ValidationErrorLike {
  name?: string;
  property?: string;
  message?: string;
  params?: unknown;
  stack: string;
}

interface OriginalError {
  keyword?: string;
  params?: Record<string, unknown>;
}

function originalsOf(error: ValidationErrorLike): OriginalError[] {
  const params = error.params as { errors?: OriginalError[] } | undefined;
  return Array.isArray(params?.errors) ? params.errors : [];
}

function joinProperty(base: string | undefined, name: string): string {
  return base ? `${base}.${name}` : name;
}

export function expandErrors<E extends ValidationErrorLike>(errors: E[]): E[] {
  const result: E[] = [];
  const seen = new Set<string>();
  const add = (error: E) => {
    const key = `${error.property ?? ''}\u0000${error.message ?? ''}`;
    if (seen.has(key)) return;
    seen.add(key);
    result.push(error);
  };
  for (const error of errors) {
    if (error.name !== 'errorMessage') {
      add(error);
      continue;
    }
    const originals = originalsOf(error);
    const message = fillPlaceholders(error.message ?? '', originals[0]?.params as Record<string, unknown> | undefined);
    if (originals.length > 0 && originals.every((o) => o.keyword === 'required')) {
      for (const original of originals) {
        const property = joinProperty(error.property, String(original.params?.missingProperty ?? ''));
        add({ ...error, property, message, stack: `${property} ${message}` });
      }
    } else {
      add({ ...error, message, stack: `${error.property ?? ''} ${message}`.trim() });
    }
  }
  return result;
}

/** The top-level field an error belongs to ("" for the form itself). */
export function fieldOf(property: string | undefined): string {
  return (property ?? '').replace(/^\./, '').split('.')[0] ?? '';
}

/** A form's fields in the order it shows them: its UI schema's "ui:order", "*" standing for the rest. */
export function orderedFields(fields: string[], order: string[] = ['*']): string[] {
  const listed = order.filter((field) => field !== '*');
  const rest = fields.filter((field) => !listed.includes(field));
  return order.flatMap((field) => (field === '*' ? rest : [field]));
}

/** The errors in the order of their fields on the form (`order`, orderedFields'), the form's own first: the first is the one a submit focuses. */
export function inFieldOrder<E extends ValidationErrorLike>(errors: E[], order: string[]): E[] {
  const place = (error: E) => order.indexOf(fieldOf(error.property));
  return [...errors].sort((a, b) => place(a) - place(b));
}

/** Messages grouped by top-level field, in schema error order. */
export function messagesByField(errors: ValidationErrorLike[]): Record<string, string[]> {
  const byField: Record<string, string[]> = {};
  for (const error of expandErrors(errors)) {
    const field = fieldOf(error.property);
    const list = (byField[field] ??= []);
    if (error.message && !list.includes(error.message)) list.push(error.message);
  }
  return byField;
}

/** Ajv's own error shape → the shape rjsf and this module use (property as `.a.b` / `a`). */
export function fromAjvErrors(errors: ReadonlyArray<{ keyword: string; instancePath: string; message?: string; params: unknown }>): ValidationErrorLike[] {
  return errors.map((e) => {
    let property = e.instancePath.replace(/\//g, '.');
    const missing = (e.params as { missingProperty?: string }).missingProperty;
    if (e.keyword === 'required' && missing) property = joinProperty(property, missing);
    return { name: e.keyword, property, message: e.message ?? '', params: e.params, stack: `${property} ${e.message ?? ''}` };
  });
}
