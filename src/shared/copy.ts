/**
 * Which strings of a data file are copy: the words a driver reads (a label, a message, a toast, a
 * notice), as opposed to names, routes and rules. The JSON Schema that states a file's shape says
 * so with `"copy": true` on the strings that are (schemas/meta/*.json for the step and UI schemas,
 * flows/flow.schema.json, flows/notices.schema.json), so the translations (src/shared/locales.ts)
 * and the lint follow the files' own contracts, and a new kind of text is copy by one annotation.
 */
import { pointerKeys, pointerOf } from './jsonPointer.js';
import { isObject, type Json, type JsonObject } from './schemaFiles.js';

type Schema = JsonObject | boolean;

/** Local `$ref`s ("#/$defs/text", "#") resolved in the schema they belong to. */
function resolveRef(root: JsonObject, ref: string): Schema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let node: Json | undefined = root;
  for (const key of pointerKeys(ref.slice(1))) node = isObject(node) ? node[key] : undefined;
  return isObject(node) || typeof node === 'boolean' ? node : undefined;
}

/**
 * The JSON pointers of the copy in `data`, read with `schema`. Every branch of an anyOf, oneOf,
 * allOf or if/then/else is followed: a string is copy when any schema that applies to it says so.
 */
export function copyPointers(data: Json, schema: JsonObject): string[] {
  const found = new Set<string>();
  const visit = (value: Json, node: Schema | undefined, path: string[], depth: number) => {
    if (!isObject(node) || depth > 64) return;
    if (typeof node.$ref === 'string') visit(value, resolveRef(schema, node.$ref), path, depth + 1);
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
      const branches = node[key];
      if (Array.isArray(branches)) for (const branch of branches) visit(value, branch as Schema, path, depth + 1);
    }
    for (const key of ['then', 'else'] as const) if (isObject(node[key])) visit(value, node[key] as JsonObject, path, depth + 1);
    if (typeof value === 'string') {
      if (node.copy === true) found.add(pointerOf(path));
      return;
    }
    if (Array.isArray(value)) {
      value.forEach((item, index) => {
        const items = node.items;
        visit(item, (Array.isArray(items) ? items[index] : items) as Schema | undefined, [...path, String(index)], depth + 1);
      });
      return;
    }
    if (!isObject(value)) return;
    const properties = isObject(node.properties) ? node.properties : {};
    const patterns = isObject(node.patternProperties) ? Object.entries(node.patternProperties) : [];
    for (const [key, child] of Object.entries(value)) {
      const at = [...path, key];
      let matched = false;
      if (Object.hasOwn(properties, key)) {
        matched = true;
        visit(child, properties[key] as Schema, at, depth + 1);
      }
      for (const [pattern, sub] of patterns) {
        if (new RegExp(pattern, 'u').test(key)) {
          matched = true;
          visit(child, sub as Schema, at, depth + 1);
        }
      }
      if (!matched) visit(child, node.additionalProperties as Schema | undefined, at, depth + 1);
    }
  };
  visit(data, schema, [], 0);
  return [...found];
}
