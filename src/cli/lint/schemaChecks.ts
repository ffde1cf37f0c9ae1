/**
 * The rules of a step schema that no JSON Schema can state: every required field has its
 * message, every message belongs to a rule, limits leave some value that passes.
 *
 * They run on the bundled schema (shared definitions inlined), because a message may sit beside
 * a rule that comes from common.schema.json; a problem is reported only where its place is
 * written in the file itself, so a shared definition's problem is reported once, in its file.
 */
import { compileCached } from './compiled.js';
import { isObject, type Json, type JsonObject } from '../../shared/schemaFiles.js';
import { closest, pointer, pointerKeys, suggestion, valueAt, type Problems } from './problems.js';

/** Keywords whose value is a map of schemas, a schema, or a list of schemas. */
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependencies'];
const SCHEMA_VALUES = ['additionalProperties', 'additionalItems', 'items', 'contains', 'propertyNames', 'not', 'if', 'then', 'else'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'items'];

/** Calls `visit` for the schema and each schema inside it, with its keys from the root. */
export function forEachSchema(node: Json, keys: string[], visit: (node: JsonObject, keys: string[]) => void): void {
  if (!isObject(node)) return;
  visit(node, keys);
  for (const map of SCHEMA_MAPS) {
    const children = node[map];
    if (isObject(children)) for (const [name, child] of Object.entries(children)) forEachSchema(child, [...keys, map, name], visit);
  }
  for (const key of SCHEMA_VALUES) forEachSchema(node[key] ?? null, [...keys, key], visit);
  for (const key of SCHEMA_LISTS) {
    const list = node[key];
    if (Array.isArray(list)) list.forEach((child, i) => forEachSchema(child, [...keys, key, String(i)], visit));
  }
}

/** Pairs of limits where the first above the second lets nothing pass. */
const LIMIT_PAIRS: [string, string][] = [
  ['minLength', 'maxLength'],
  ['minimum', 'maximum'],
  ['exclusiveMinimum', 'exclusiveMaximum'],
  ['minItems', 'maxItems'],
  ['minProperties', 'maxProperties'],
];

/** ajv-errors' keys of errorMessage that are not rules of the schema beside them. */
const MESSAGE_GROUPS = new Set(['_', 'required', 'properties']);

/** Whether a required field has a message: its own, one for all required fields, or one for every error. */
function hasRequiredMessage(messages: Json | undefined, field: string): boolean {
  if (typeof messages === 'string') return true;
  if (!isObject(messages)) return false;
  const required = messages.required;
  return typeof required === 'string' || (isObject(required) && typeof required[field] === 'string') || typeof messages._ === 'string';
}

/** @param keywords the keywords a step schema may use (schemas/meta/step-schema.json), to suggest one */
export function checkSchemaRules(file: string, source: JsonObject, bundled: JsonObject, keywords: ReadonlySet<string>, problems: Problems): void {
  const written = (keys: string[]) => valueAt(source, keys) !== undefined;
  const add = (keys: string[], what: string, fix: string) => {
    if (written(keys)) problems.add(file, pointer(...keys), what, fix);
  };

  forEachSchema(bundled, [], (node, keys) => {
    const properties = isObject(node.properties) ? Object.keys(node.properties) : [];
    const required = Array.isArray(node.required) ? node.required.filter((f): f is string => typeof f === 'string') : [];
    const messages = node.errorMessage;

    // Indexes in the file's own list: a bundled list starts with the fields of what it extends.
    const ownRequired = valueAt(source, [...keys, 'required']);
    for (const field of required) {
      const index = Array.isArray(ownRequired) ? ownRequired.indexOf(field) : -1;
      if (index < 0) continue;
      const at = [...keys, 'required', String(index)];
      if (isObject(node.properties) && !properties.includes(field)) {
        const near = closest(field, properties);
        add(at, `required field "${field}" is not a property`, near ? `did you mean "${near}"?` : 'add it under "properties", or remove it from "required"');
      }
      if (!hasRequiredMessage(messages, field)) {
        add(at, `required field "${field}" has no message`, `add "${field}": "Please enter …" under "errorMessage": { "required": { … } } beside this list`);
      }
    }

    if (isObject(messages)) {
      for (const [key, message] of Object.entries(messages)) {
        const at = [...keys, 'errorMessage', key];
        if (key === 'required' && isObject(message)) {
          for (const field of Object.keys(message)) {
            if (required.includes(field)) continue;
            const near = closest(field, required);
            add(
              [...at, field],
              `a required message for "${field}", which is not in "required"`,
              near ? `did you mean "${near}"?` : `add "${field}" to "required", or remove this message`,
            );
          }
        } else if (key === 'properties' && isObject(message)) {
          for (const field of Object.keys(message)) {
            if (!properties.includes(field)) add([...at, field], `a message for "${field}", which is not a property`, suggestion(field, properties));
          }
        } else if (key === 'required' ? !('required' in node) : !MESSAGE_GROUPS.has(key) && !(key in node)) {
          // One edit at most: maxLength is not what a message for minLength meant.
          const near = closest(
            key,
            Object.keys(node).filter((k) => k !== 'errorMessage' && keywords.has(k)),
            1,
          );
          add(at, `errorMessage.${key} has no "${key}" rule beside it`, near ? `did you mean "${near}"?` : `add the "${key}" rule, or remove this message`);
        }
      }
    }

    for (const [low, high] of LIMIT_PAIRS) {
      const min = node[low];
      const max = node[high];
      if (typeof min !== 'number' || typeof max !== 'number' || min <= max) continue;
      const at = written([...keys, low]) ? [...keys, low] : [...keys, high];
      add(at, `${low} ${min} is above ${high} ${max}: no value can pass`, `lower ${low} or raise ${high}`);
    }

    const { minAgeYears, minMonthsAhead } = node;
    if (typeof minAgeYears === 'number' && typeof minMonthsAhead === 'number' && minAgeYears + minMonthsAhead > 0) {
      add(
        written([...keys, 'minMonthsAhead']) ? [...keys, 'minMonthsAhead'] : [...keys, 'minAgeYears'],
        `minAgeYears asks for a date at least ${minAgeYears} years ago and minMonthsAhead for one at least ${minMonthsAhead} months after today: no date can pass`,
        'keep only one of the two',
      );
    }

    for (const rule of ['minAgeYears', 'minMonthsAhead']) {
      if (rule in node && node.format !== 'date') {
        add(
          [...keys, rule],
          `"${rule}" judges a date, and this field holds no date: every value would be refused`,
          'move the rule to a date field ("format": "date"), or remove it',
        );
      }
    }

    const window = node.yearWithin;
    if (isObject(window) && typeof window.yearsBack === 'number' && typeof window.yearsAhead === 'number' && window.yearsBack + window.yearsAhead < 0) {
      const signed = (years: number) => (years >= 0 ? `+ ${years}` : `− ${-years}`);
      add(
        [...keys, 'yearWithin'],
        `no year can pass: the earliest allowed (this year ${signed(-window.yearsBack)}) comes after the latest (this year ${signed(window.yearsAhead)})`,
        'yearsBack counts the years before this year and yearsAhead the years after it: use 0 or more for both',
      );
    }
  });
}

/**
 * Compiles the bundled schema as strictly as Ajv can (strict mode, as the lint's last check):
 * what Ajv still refuses once the checks above pass, with its place when Ajv names one.
 */
export function checkCompiles(file: string, bundled: JsonObject, problems: Problems): void {
  try {
    compileCached(bundled, { strict: true });
  } catch (error) {
    const message = (error as Error).message.replace(/^strict mode: /, '');
    const place = /at (?:path )?"#([^"]*)"/.exec(message)?.[1] ?? '';
    const missingType = /missing type "(\w+)" for keyword "(\w+)"/.exec(message);
    const at = place || '/';
    const node = valueAt(bundled, pointerKeys(place));
    const written = isObject(node) ? node.type : undefined;
    if (missingType && typeof written === 'string') {
      problems.add(
        file,
        at,
        `"${missingType[2]}" judges a ${missingType[1]}, and this field holds a ${written}`,
        `write "type": "${missingType[1]}", or remove "${missingType[2]}"`,
      );
    } else if (missingType)
      problems.add(file, at, `"${missingType[2]}" needs to know what kind of value it judges`, `add "type": "${missingType[1]}" beside "${missingType[2]}"`);
    else
      problems.add(
        file,
        at,
        `the app cannot use this schema: ${message.replace(/ at (?:path )?"#[^"]*"/, '').replace(/ \(\w+\)$/, '')}`,
        'undo the last edit here, or ask a developer',
      );
  }
}
