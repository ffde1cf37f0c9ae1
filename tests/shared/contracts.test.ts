// Every number a request may carry is bounded by its contract, within what PostgreSQL stores it in
// (an integer column, or a value compared with one): a number beyond that is refused with the
// contract's 400 message, never stored or compared by the database, which would fail (500).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJsonFile, SCHEMAS_DIR } from '../../src/node/projectFiles.js';
import { API_CONTRACTS } from '../../src/shared/contracts/index.js';
import { isObject, type Json, type JsonObject } from '../../src/shared/schemaFiles.js';

/** PostgreSQL's integer (int4). */
const INTEGER = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/** Each numeric schema under `node`, by its place, following the file's own "#/$defs/…" references once each. */
function numbersIn(node: Json, at: string, root: JsonObject, found = new Map<string, JsonObject>(), seen = new Set<string>()): Map<string, JsonObject> {
  if (Array.isArray(node)) node.forEach((each, i) => numbersIn(each, `${at}/${i}`, root, found, seen));
  if (!isObject(node)) return found;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes('integer') || types.includes('number')) found.set(at, node);
  const ref = node.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/$defs/') && !seen.has(ref)) {
    seen.add(ref);
    const name = ref.slice('#/$defs/'.length);
    numbersIn((root.$defs as JsonObject)[name] ?? null, ref.slice(1), root, found, seen);
  }
  for (const [key, value] of Object.entries(node)) if (key !== '$ref') numbersIn(value, `${at}/${key}`, root, found, seen);
  return found;
}

/** What a number's limits let through beyond PostgreSQL's integer, if anything. */
function beyondInteger(schema: JsonObject): string | undefined {
  const max = schema.maximum ?? schema.exclusiveMaximum;
  const min = schema.minimum ?? schema.exclusiveMinimum;
  if (typeof max !== 'number' || max > INTEGER.max) return `maximum ${String(max)}`;
  if (typeof min !== 'number' || min < INTEGER.min) return `minimum ${String(min)}`;
  return undefined;
}

/** The request bodies and query strings of the API (src/shared/contracts/: the "…Body" and "…Query…" definitions) and every step's form and call context (schemas/). */
const contracts: [string, Map<string, JsonObject>][] = [
  ...(API_CONTRACTS as unknown as JsonObject[]).flatMap((contract) =>
    Object.keys(contract.$defs as JsonObject)
      .filter((name) => name.endsWith('Body') || name.includes('Query'))
      .map((name): [string, Map<string, JsonObject>] => [
        `${String(contract.$id)}.schema.json#/$defs/${name}`,
        numbersIn((contract.$defs as JsonObject)[name]!, '', contract),
      ]),
  ),
  ...readdirSync(SCHEMAS_DIR)
    .filter((name) => name.endsWith('.schema.json'))
    .map((name): [string, Map<string, JsonObject>] => {
      const schema = readJsonFile(join(SCHEMAS_DIR, name));
      return [`schemas/${name}`, numbersIn(schema, '', schema)];
    }),
];

describe('the contracts of what requests carry', () => {
  it('are found, the decisions’ among them', () => {
    expect(contracts.map(([name]) => name)).toEqual(expect.arrayContaining(['review.schema.json#/$defs/approveBody', 'review.schema.json#/$defs/rejectBody']));
    expect([...contracts.find(([name]) => name.endsWith('approveBody'))![1].keys()]).toEqual(['/$defs/reviewVersion']);
  });

  it.each(contracts)('%s bounds each of its numbers within a PostgreSQL integer', (_name, numbers) => {
    const unbounded = [...numbers].flatMap(([at, schema]) => {
      const beyond = beyondInteger(schema);
      return beyond ? [`${at}: ${beyond}`] : [];
    });
    expect(unbounded).toEqual([]);
  });
});
