import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/cli/lint/problems.js';
import { lintProject } from '../../src/cli/lintProject.js';
import { screens } from '../../src/client/screens/index.js';
import { widgets } from '../../widgets/index.js';
import { copyProject, listBrokenEdits, makeEdit } from '../support/brokenEdits.js';
import { scaled } from '../support/machineSpeed.js';

const registry = { widgets: Object.keys(widgets), screens: Object.keys(screens) };
const edits = listBrokenEdits();

const correct = edits.filter((edit) => edit.name.startsWith('ok-'));
const broken = edits.filter((edit) => !edit.name.startsWith('ok-'));

describe('npm run lint:schemas on the edits of tests/fixtures/broken-edits/', () => {
  // One copy of the project; each edit is made in it and undone after.
  const root = copyProject();
  afterAll(() => rmSync(root, { recursive: true }));

  it('has at least 80 broken edits, each with lines of its own, and 15 correct ones that lint clean', () => {
    expect(broken.length).toBeGreaterThanOrEqual(80);
    for (const edit of broken) expect(edit.expect, edit.name).not.toEqual([]);
    expect(new Set(broken.map((edit) => JSON.stringify(edit.expect))).size).toBe(broken.length);
    expect(correct.length).toBeGreaterThanOrEqual(15);
    for (const edit of correct) expect(edit.expect, edit.name).toEqual([]);
  });

  it.each(edits.map((edit) => [edit.name, edit] as const))('%s', async (_name, edit) => {
    const undo = makeEdit(root, edit);
    try {
      expect((await lintProject(root, registry)).map(formatProblem)).toEqual(edit.expect);
    } finally {
      undo();
    }
  });
});

describe('a data file saved in an encoding other than UTF-8', () => {
  const root = copyProject();
  afterAll(() => rmSync(root, { recursive: true }));
  const file = 'schemas/signup.ui.json';
  const text = readFileSync(join(root, file), 'utf8');
  const refusal = (line: number, column: number) =>
    `${file}:${line}:${column}: the file is not saved as UTF-8: a character here cannot be read (Windows' "ANSI" and "UTF-16" encodings save files so), and drivers would read "�" — save the file again as UTF-8 (in Notepad: Save as → Encoding: UTF-8)`;

  it.each([
    // Notepad's "ANSI": an accent is one byte that UTF-8 does not read.
    ['Windows-1252 ("ANSI")', Buffer.from(text.replace('Create your driver account', 'Create your café account'), 'latin1'), refusal(3, 37)],
    ['UTF-16', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]), refusal(1, 1)],
  ])('is refused in %s, at its first unreadable character', async (_name, bytes, expected) => {
    writeFileSync(join(root, file), bytes);
    try {
      expect((await lintProject(root, registry)).map(formatProblem)).toContain(expected);
    } finally {
      writeFileSync(join(root, file), text);
    }
  });
});

/** The data files operations staff edit, by their path in a copy of the content. */
const dataFiles = (root: string) =>
  ['schemas', 'flows', 'locales/es'].flatMap((folder) =>
    readdirSync(join(root, folder))
      .filter((name) => name.endsWith('.json'))
      .map((name) => `${folder}/${name}`),
  );

/** Every place in a JSON value: the keys that lead to it. */
function placesIn(value: unknown, keys: string[] = [], found: string[][] = []): string[][] {
  found.push(keys);
  if (Array.isArray(value)) value.forEach((each, i) => placesIn(each, [...keys, String(i)], found));
  else if (value !== null && typeof value === 'object') for (const [key, each] of Object.entries(value)) placesIn(each, [...keys, key], found);
  return found;
}

describe('any edit of the data files', () => {
  const root = copyProject();
  afterAll(() => rmSync(root, { recursive: true }));
  const files = dataFiles(root);

  it(
    'gives problem lines, each naming its file, and never makes the lint throw',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...files),
          fc.nat(),
          fc.oneof(
            fc.constant(undefined),
            fc.jsonValue({ maxDepth: 2 }),
            fc.string({ maxLength: 12 }),
            fc.constantFrom('true', '/add-vehicle', '^(', '\\-', 1e309),
          ),
          async (file, pick, replacement) => {
            const path = join(root, file);
            const original = readFileSync(path, 'utf8');
            const json = JSON.parse(original) as unknown;
            const places = placesIn(json).filter((keys) => keys.length > 0);
            const keys = places[pick % places.length]!;
            let parent = json as Record<string, unknown>;
            for (const key of keys.slice(0, -1)) parent = parent[key] as Record<string, unknown>;
            const last = keys.at(-1)!;
            // Deleted, or replaced with any value: what a slip of the keyboard or a wrong paste makes.
            if (replacement === undefined && !Array.isArray(parent)) delete parent[last];
            else parent[last] = replacement ?? null;
            writeFileSync(path, JSON.stringify(json, null, 2));
            try {
              const problems = await lintProject(root, registry);
              for (const problem of problems) expect(problem.file).toMatch(/^(schemas|flows|locales|tests)\b/);
            } finally {
              writeFileSync(path, original);
            }
          },
        ),
        { numRuns: Number(process.env.LINT_FUZZ_RUNS ?? 15) },
      );
    },
    scaled(240_000),
  );
});
