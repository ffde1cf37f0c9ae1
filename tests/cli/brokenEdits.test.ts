import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/cli/lint/problems.js';
import { lintProject } from '../../src/cli/lintProject.js';
import { screens } from '../../src/client/screens/index.js';
import { widgets } from '../../widgets/index.js';
import { copyWithEdit, listBrokenEdits } from '../support/brokenEdits.js';

const registry = { widgets: Object.keys(widgets), screens: Object.keys(screens) };
const edits = listBrokenEdits();

describe('npm run lint:schemas on the broken edits of tests/fixtures/broken-edits/', () => {
  it('has at least 15 edits, each with lines of its own', () => {
    expect(edits.length).toBeGreaterThanOrEqual(15);
    for (const edit of edits) expect(edit.expect, edit.name).not.toEqual([]);
    expect(new Set(edits.map((edit) => JSON.stringify(edit.expect))).size).toBe(edits.length);
  });

  it.each(edits.map((edit) => [edit.name, edit] as const))('%s', async (_name, edit) => {
    const root = copyWithEdit(edit);
    try {
      expect((await lintProject(root, registry)).map(formatProblem)).toEqual(edit.expect);
    } finally {
      rmSync(root, { recursive: true });
    }
  });
});
