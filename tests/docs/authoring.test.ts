// docs/authoring.md's worked examples, followed as written. Each example's code blocks are
// marked in the guide (`<!-- example: NAME, before: FILE -->`, `after: FILE`, `new file: FILE`,
// `run`, `prints`): the test makes each edit on a copy of the content (schemas/, flows/ and the
// fixtures), runs each command there and compares what it prints with the guide, so the guide and
// the project cannot drift apart. The guide's commands are `npm run validate`, run here as the
// script runs it (runValidate); tests/cli/validate.test.ts runs the script itself end to end.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { PROJECT_ROOT } from '../../src/node/projectFiles.js';
import { applyGuideEdits, type GuideBlock, guideExamples } from '../support/guideExamples.js';

const GUIDE = readFileSync(join(PROJECT_ROOT, 'docs', 'authoring.md'), 'utf8');
const examples = guideExamples(GUIDE);

/** The content ops staff and testers edit, copied. */
function copyContent(): string {
  const copy = mkdtempSync(join(tmpdir(), 'onramp-guide-'));
  for (const path of ['schemas', 'flows', 'tests/fixtures']) cpSync(join(PROJECT_ROOT, path), join(copy, path), { recursive: true });
  return copy;
}

/** `npm run validate -- …` in the folder `copy`: what it prints on standard output. */
async function run(command: string, copy: string): Promise<string> {
  const [npm, verb, script, separator, ...args] = command.trim().split(/\s+/);
  expect(`${npm} ${verb} ${script} ${separator}`, `the guide's commands are npm run validate -- …: ${command}`).toBe('npm run validate --');
  // The project's modules read the content folder once, when first imported.
  vi.resetModules();
  vi.stubEnv('ONRAMP_CONTENT_DIR', copy);
  try {
    const { runValidate } = await import('../../src/cli/validate-fixtures.js');
    let printed = '';
    runValidate(args, { out: (line) => (printed += `${line}\n`), err: () => {}, cwd: copy });
    return printed;
  } finally {
    vi.unstubAllEnvs();
  }
}

/** The guide shows output with "…" for lines left out; the lines it shows must be printed as shown. */
function expectPrinted(actual: string, shown: string): void {
  const lines = shown.replace(/\n$/, '').split('\n');
  const pattern = lines.map((line) => (line === '…' ? '(?:.*\\n)*?' : `${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n`)).join('');
  expect(actual).toMatch(new RegExp(`^${pattern}$`));
}

describe('docs/authoring.md', () => {
  it('marks its examples so this test can follow them', () => {
    expect(GUIDE.match(/<!-- example:/g)?.length).toBe([...examples.values()].flat().length);
    expect([...examples.keys()]).toEqual(['change-message', 'make-optional', 'change-rule', 'add-field']);
  });

  it.each([...examples.entries()])('example "%s" works as written', async (_name, blocks) => {
    const copy = copyContent();
    try {
      let edits: GuideBlock[] = [];
      let printed: string | undefined;
      for (const block of blocks) {
        if (block.kind === 'run') {
          applyGuideEdits(copy, edits);
          edits = [];
          printed = await run(block.text, copy);
        } else if (block.kind === 'prints') {
          expect(printed, 'a "prints" block follows a "run" block').toBeDefined();
          expectPrinted(printed!, block.text);
          printed = undefined;
        } else {
          edits.push(block);
        }
      }
      expect(edits, 'every edit of the example is followed by a command that checks it').toEqual([]);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
