/**
 * What the form studio (/studio, src/client/studio/) needs of the server: the testers' fixtures,
 * tests/fixtures/**.json in the fixture format
 * `{ "step", "variant"?, "expect": "valid" | "invalid", "errors": { "/field": "message" }, "data" }`.
 * Registered under the admin prefix: it needs the admin token, except under `npm run dev`.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { CONTENT_ROOT, FIXTURES_DIR } from '../../shared/projectFiles.js';

export const FIXTURES_PATH = '/fixtures';

export interface StudioFixture {
  /** tests/fixtures/… */
  file: string;
  step: string;
  variant?: string;
  expect?: 'valid' | 'invalid';
  /** JSON pointer of a field → its first message. */
  errors?: Record<string, string>;
  data: Record<string, unknown>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A file that is no fixture (tests/fixtures/ holds other test data too) or no JSON is left out. */
function fixtureOf(file: string, text: string): StudioFixture | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(json) || typeof json.step !== 'string' || !isObject(json.data)) return null;
  const errors = isObject(json.errors) ? Object.fromEntries(Object.entries(json.errors).filter(([, message]) => typeof message === 'string')) : undefined;
  return {
    file,
    step: json.step,
    ...(typeof json.variant === 'string' ? { variant: json.variant } : {}),
    ...(json.expect === 'valid' || json.expect === 'invalid' ? { expect: json.expect } : {}),
    ...(errors ? { errors: errors as Record<string, string> } : {}),
    data: json.data,
  };
}

export async function readFixtures(): Promise<StudioFixture[]> {
  let names: string[];
  try {
    names = (await readdir(FIXTURES_DIR, { recursive: true })).filter((name) => name.endsWith('.json')).sort();
  } catch {
    return [];
  }
  const fixtures: StudioFixture[] = [];
  for (const name of names) {
    const path = join(FIXTURES_DIR, name);
    const fixture = fixtureOf(relative(CONTENT_ROOT, path), await readFile(path, 'utf8'));
    if (fixture) fixtures.push(fixture);
  }
  return fixtures;
}

export async function studioRoutes(app: FastifyInstance, options: { open: boolean }) {
  if (!options.open) app.addHook('onRequest', app.requireAdmin);
  /** Read at each request: a tester adds fixtures while the server runs. */
  app.get(FIXTURES_PATH, async () => ({ fixtures: await readFixtures() }));
}
