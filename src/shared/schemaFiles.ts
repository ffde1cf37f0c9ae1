/**
 * Step schemas are written in pieces so each rule and message stands once: a property may
 * `$ref` a shared definition ("common.schema.json#/$defs/usPhone") and a whole schema may `$ref`
 * another step's schema and add to it (the social profile is the profile plus two fields).
 * `bundleSchema` inlines those references into one self-contained schema, which is what the
 * browser's precompiled validator, the server and the lint all use.
 *
 * Merging: the referencing object's own keys win, objects merge deeply, and `required` lists
 * are joined.
 */
import { pointerKeys } from './jsonPointer.js';
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Reads a file of `schemas/` by name ("common.schema.json"); throws if it does not exist. */
export type SchemaFileReader = (fileName: string) => JsonObject;

export class SchemaFileError extends Error {
  constructor(
    readonly file: string,
    /** The JSON pointer of the object whose "$ref" fails ("" for the whole file). */
    readonly where: string,
    readonly problem: string,
  ) {
    super(`schemas/${file}: ${problem} (at ${where || '/'})`);
    this.name = 'SchemaFileError';
  }
}

export const isObject = (value: Json | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The fields a step schema marks `"sensitive": true`: sealed at rest, answered masked, never kept on the device. */
export const sensitiveFieldsOf = (schema: { properties?: unknown } | null | undefined): string[] =>
  Object.entries((schema?.properties ?? {}) as Record<string, unknown>)
    .filter(([, property]) => typeof property === 'object' && property !== null && (property as { sensitive?: unknown }).sensitive === true)
    .map(([field]) => field);

function mergeInto(base: JsonObject, extra: JsonObject): JsonObject {
  const merged: JsonObject = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const current = merged[key];
    if (key === 'required' && Array.isArray(current) && Array.isArray(value)) {
      merged[key] = [...new Set([...current, ...value])];
    } else if (isObject(current) && isObject(value)) {
      merged[key] = mergeInto(current, value);
    } else {
      merged[key] = value;
    }
  }
  return merged;
}

function pointerGet(root: Json, pointer: string): Json | undefined {
  let node: Json | undefined = root;
  for (const key of pointerKeys(pointer)) {
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

export function bundleSchema(fileName: string, read: SchemaFileReader, seen: string[] = []): JsonObject {
  if (seen.includes(fileName)) {
    throw new SchemaFileError(fileName, '', `circular $ref: ${[...seen, fileName].join(' → ')}`);
  }
  const raw = read(fileName);
  /** `inFile`: the definitions of this file being inlined right now (one may $ref another, never itself). */
  const resolve = (node: Json, where: string, inFile: string[]): Json => {
    if (Array.isArray(node)) return node.map((item, i) => resolve(item, `${where}/${i}`, inFile));
    if (!isObject(node)) return node;
    const { $ref, ...rest } = node;
    const own: JsonObject = {};
    for (const [key, value] of Object.entries(rest)) own[key] = resolve(value, `${where}/${key}`, inFile);
    if ($ref === undefined) return own;
    if (typeof $ref !== 'string' || $ref.startsWith('#')) {
      throw new SchemaFileError(fileName, where, `"$ref" must name another file of schemas/, got ${JSON.stringify($ref)}`);
    }
    const [targetFile = '', pointer = ''] = $ref.split('#');
    let part: Json | undefined;
    if (targetFile === fileName) {
      // A definition built on another of the same file (common.schema.json's text on plainText).
      if (inFile.includes(pointer)) throw new SchemaFileError(fileName, where, `circular $ref: ${[...inFile, pointer].join(' → ')}`);
      const target = pointerGet(raw, pointer);
      part = target === undefined ? undefined : resolve(target, pointer, [...inFile, pointer]);
    } else {
      let target: JsonObject;
      try {
        target = bundleSchema(targetFile, read, [...seen, fileName]);
      } catch (error) {
        if (error instanceof SchemaFileError) throw error;
        throw new SchemaFileError(fileName, where, `"$ref" names ${JSON.stringify(targetFile)}, which cannot be read`);
      }
      part = pointerGet(target, pointer);
    }
    if (!isObject(part)) {
      throw new SchemaFileError(fileName, where, `"$ref" ${JSON.stringify($ref)} points at nothing`);
    }
    const { $id: _id, $schema: _schema, $defs: _defs, $comment: _comment, ...body } = part;
    return mergeInto(body, own);
  };
  return resolve(raw, '', []) as JsonObject;
}

/** The file names of a step's schema and UI schema, from the name the flow uses. */
export const schemaFileName = (name: string) => `${name}.schema.json`;
export const uiSchemaFileName = (name: string) => `${name}.ui.json`;
