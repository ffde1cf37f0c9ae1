/**
 * The fixtures of tests/fixtures/ (src/shared/fixtureFiles.ts), run by the lint on the files it
 * checks: an edit that makes a fixture disagree (a rule changed, a message reworded) is reported
 * at the fixture, by its name, with what it expected and what it got.
 *
 * A fixture that passed is not run again while nothing it depends on changes (its text, its
 * form's schema and UI schema, its step, the day for its relative dates): so the lint runs the
 * fixtures of the steps an edit touches, and stays fast. What passed is kept in
 * node_modules/.cache/onramp/, a cache that is safe to delete.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PROJECT_ROOT, listFixtureFiles } from '../../node/projectFiles.js';
import type { Flow } from '../../shared/flow.js';
import { schemaOfStep } from '../../shared/fixtureFiles.js';
import { pointerOf } from '../../shared/jsonPointer.js';
import { DEFAULT_LOCALE, isLocale, type Locale } from '../../shared/locales.js';
import type { JsonObject } from '../../shared/schemaFiles.js';
import type { FormSchema } from '../../server/lib/formSchemas.js';
import { pointer, type Problems } from './problems.js';

const CACHE_FILE = join(PROJECT_ROOT, 'node_modules', '.cache', 'onramp', 'passed-fixtures.json');

/** The fixtures' forms as the app reads them: bundled, their texts showing their rules' values. */
export interface FixtureForms {
  schema(name: string, locale?: Locale): JsonObject;
  uiSchema(name: string, locale?: Locale): JsonObject;
}

function readPassed(): Set<string> {
  try {
    return new Set(JSON.parse(readFileSync(CACHE_FILE, 'utf8')) as string[]);
  } catch {
    // No cache yet, or one cut short: every fixture is run.
    return new Set();
  }
}

function writePassed(passed: Set<string>): void {
  try {
    mkdirSync(join(CACHE_FILE, '..'), { recursive: true });
    const temporary = `${CACHE_FILE}.${process.pid}`;
    // The newest thousands are plenty: an old key can only ever be missed, never wrongly kept.
    writeFileSync(temporary, JSON.stringify([...passed].slice(-5000)));
    renameSync(temporary, CACHE_FILE);
  } catch {
    // A read-only install only runs every fixture every time.
  }
}

/** What a fixture's result depends on, as one key. */
function keyOf(text: string, flow: Flow, forms: FixtureForms): string {
  const hash = createHash('sha256').update(new Date().toDateString()).update(text);
  try {
    const fixture = JSON.parse(text) as { step?: string; variant?: string; locale?: unknown };
    const name = schemaOfStep(flow, String(fixture.step), fixture.variant);
    const locale = isLocale(fixture.locale) ? fixture.locale : undefined;
    const step = flow.steps[String(fixture.step)];
    hash.update(JSON.stringify([forms.schema(name, locale), forms.uiSchema(name, locale), step, step?.kind === 'form' ? flow.calls[step.call] : null]));
  } catch {
    // Not a fixture one can key: it is run, and says what is wrong with it.
  }
  return hash.digest('base64url');
}

/**
 * For a fixture in a translated language: the English texts its form shows in that language too
 * (a translation missing, or made from English since changed: src/shared/locales.ts localize).
 */
function untranslatedTexts(flow: Flow, forms: FixtureForms, fixture: { step?: unknown; variant?: unknown; locale?: unknown }): Set<string> {
  if (!isLocale(fixture.locale) || fixture.locale === DEFAULT_LOCALE) return new Set();
  try {
    const name = schemaOfStep(flow, String(fixture.step), typeof fixture.variant === 'string' ? fixture.variant : undefined);
    const textsOf = (locale: Locale) => new Set([forms.schema(name, locale), forms.uiSchema(name, locale)].flatMap(stringsIn));
    const translated = textsOf(fixture.locale);
    return new Set([...textsOf(DEFAULT_LOCALE)].filter((text) => translated.has(text)));
  } catch {
    // Not a fixture whose forms can be read: it is run, and says what is wrong with it.
    return new Set();
  }
}

/** Every string in a JSON value. */
const stringsIn = (value: unknown): string[] =>
  typeof value === 'string'
    ? [value]
    : Array.isArray(value)
      ? value.flatMap(stringsIn)
      : value && typeof value === 'object'
        ? Object.values(value).flatMap(stringsIn)
        : [];

export async function checkFixtures(root: string, flow: Flow, forms: FixtureForms, problems: Problems): Promise<void> {
  const dir = join(root, 'tests', 'fixtures');
  if (!existsSync(dir)) return;
  const passed = readPassed();
  let changed = false;
  // Loaded only when a fixture has to run: the browser's validators are the heavy part.
  let run: ((path: string) => import('../fixtures.js').FixtureResult) | undefined;
  for (const path of listFixtureFiles(dir)) {
    const text = readFileSync(path, 'utf8');
    const key = keyOf(text, flow, forms);
    if (passed.has(key)) continue;
    if (!run) {
      const [{ checkFixture }, { createFormSchemas }] = await Promise.all([import('../fixtures.js'), import('../../server/lib/formSchemas.js')]);
      // The server's check of each form (compiled once per text of the form: compileOnce).
      const server = (name: string, locale?: Locale): FormSchema => createFormSchemas((_name, language) => forms.schema(name, language))(name, locale);
      run = (fixture) => checkFixture(fixture, flow, undefined, { ...forms, server });
    }
    const result = run(path);
    if (result.passed) {
      passed.add(key);
      changed = true;
      continue;
    }
    const file = relative(root, path);
    const fixture = JSON.parse(text) as {
      description?: string;
      errors?: Record<string, string>;
      data?: Record<string, unknown>;
      step?: unknown;
      variant?: unknown;
      locale?: unknown;
    };
    const name = fixture.description ? `"${fixture.description}"` : 'this fixture';
    const untranslated = untranslatedTexts(flow, forms, fixture);
    for (const line of result.lines.filter((each) => !each.ok)) {
      const field = line.field ?? '';
      const at =
        field !== '' && fixture.errors && field in fixture.errors
          ? pointer('errors', field)
          : field !== '' && fixture.data && field.slice(1) in fixture.data
            ? pointerOf(['data', field.slice(1)])
            : '/';
      // A translation still to write, whose readers see the English meanwhile: its own warning names it,
      // and the fixture is judged again once it is written.
      if (line.got !== undefined && untranslated.has(line.got)) continue;
      problems.add(
        file,
        at,
        `${name} no longer holds: ${line.text}`,
        'if the change was meant, make the fixture say what drivers now read; if not, undo the edit',
      );
    }
  }
  if (changed) writePassed(passed);
}
