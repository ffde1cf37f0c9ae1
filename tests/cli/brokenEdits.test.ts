import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/cli/lint/problems.js';
import { lintProject } from '../../src/cli/lintProject.js';
import { screens } from '../../src/client/screens/index.js';
import { widgets } from '../../widgets/index.js';
import { copyProject, listBrokenEdits, makeEdit } from '../support/brokenEdits.js';

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
