/**
 * Fixture payloads shared by the tests and by `npm run validate`: tests/fixtures/<schema>/
 * valid/*.json must pass the step's schema, invalid/*.json must fail with exactly the messages
 * they list (the first message of each field, which is what a driver sees).
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createAjv } from '../shared/ajv.js';
import { fromAjvErrors, messagesByField } from '../shared/errors.js';
import { loadSchema, PROJECT_ROOT, readJsonFile } from '../shared/projectFiles.js';

export const FIXTURES_DIR = join(PROJECT_ROOT, 'tests', 'fixtures');

export interface Fixture {
  /** tests/fixtures/… path, for messages. */
  file: string;
  schema: string;
  valid: boolean;
  description: string;
  formData: Record<string, unknown>;
  /** Field → its first message; empty for a valid fixture. */
  errors: Record<string, string>;
}

const listJson = (dir: string) => {
  try {
    return readdirSync(dir).filter((name) => name.endsWith('.json')).sort();
  } catch {
    return [];
  }
};

export function listFixtures(): Fixture[] {
  const fixtures: Fixture[] = [];
  for (const schema of readdirSync(FIXTURES_DIR).sort()) {
    for (const kind of ['valid', 'invalid'] as const) {
      for (const name of listJson(join(FIXTURES_DIR, schema, kind))) {
        const path = join(FIXTURES_DIR, schema, kind, name);
        const json = readJsonFile(path);
        fixtures.push({
          file: relative(PROJECT_ROOT, path),
          schema,
          valid: kind === 'valid',
          description: typeof json.description === 'string' ? json.description : name,
          formData: (json.formData ?? {}) as Record<string, unknown>,
          errors: (json.errors ?? {}) as Record<string, string>,
        });
      }
    }
  }
  return fixtures;
}

/** The first message per field, from a messages-by-field map. */
export function firstMessages(byField: Record<string, string[]>): Record<string, string> {
  const first: Record<string, string> = {};
  for (const [field, messages] of Object.entries(byField)) if (messages[0]) first[field] = messages[0];
  return first;
}

const ajv = createAjv();
const validators = new Map<string, ReturnType<typeof ajv.compile>>();

/** What the shared validator says of a form: field → first message. */
export function schemaMessages(schema: string, formData: Record<string, unknown>): Record<string, string> {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(loadSchema(schema));
    validators.set(schema, validate);
  }
  return validate(formData) ? {} : firstMessages(messagesByField(fromAjvErrors(validate.errors ?? [])));
}

/** Differences between what a fixture expects and what a validator said; empty when they agree. */
export function compareMessages(expected: Record<string, string>, actual: Record<string, string>): string[] {
  const differences: string[] = [];
  for (const field of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
    if (expected[field] !== actual[field]) {
      differences.push(`${field || '(form)'}: expected ${JSON.stringify(expected[field] ?? null)}, got ${JSON.stringify(actual[field] ?? null)}`);
    }
  }
  return differences;
}
