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
import { CONTENT_FOLDERS, PROJECT_ROOT } from '../../src/node/projectFiles.js';
import { applyGuideEdits, type GuideBlock, guideExamples } from '../support/guideExamples.js';

const GUIDE = readFileSync(join(PROJECT_ROOT, 'docs', 'authoring.md'), 'utf8');
const examples = guideExamples(GUIDE);

/** The content ops staff and testers edit, copied. */
function copyContent(): string {
  const copy = mkdtempSync(join(tmpdir(), 'onramp-guide-'));
  for (const path of [...CONTENT_FOLDERS, 'tests/fixtures']) cpSync(join(PROJECT_ROOT, path), join(copy, path), { recursive: true });
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
    runValidate(args, { out: (line) => (printed += `${line}\n`), err: () => undefined, cwd: copy });
    return printed;
  } finally {
    vi.unstubAllEnvs();
    // The next import (this file's, or the next file's in this worker) reads the project's content again.
    vi.resetModules();
  }
}

/**
 * The guide shows output with "…" for lines left out; the lines it shows must be printed as shown.
 * When they are not, the failure says so in plain words: where the block is, the first line that
 * differs, and what the command printed, for whoever follows the guide and finds it out of date.
 */
function expectPrinted(actual: string, block: GuideBlock, command: string): void {
  const lines = block.text.replace(/\n$/, '').split('\n');
  const pattern = lines.map((line) => (line === '…' ? '(?:.*\\n)*?' : `${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n`)).join('');
  if (new RegExp(`^${pattern}$`).test(actual)) return;
  const printed = actual.replace(/\n$/, '').split('\n');
  const missing = lines.find((line) => line !== '…' && !printed.includes(line));
  const difference =
    missing === undefined ? 'the lines it shows are printed, but not in that order' : `it shows "${missing}", which the command no longer prints`;
  throw new Error(
    `${block.at}: \`${command.trim()}\` no longer prints what the guide shows: ${difference}. Make the guide show what it prints now:\n${actual}`,
  );
}

describe('docs/authoring.md', () => {
  it('marks its examples so this test can follow them', () => {
    expect(GUIDE.match(/<!-- example:/g)?.length).toBe([...examples.values()].flat().length);
    expect([...examples.keys()]).toEqual(['change-message', 'make-optional', 'change-rule', 'add-field']);
  });

  it('says in plain words which example no longer matches which file, once the files have moved on', () => {
    const [stale] = guideExamples(
      '<!-- example: demo, before: schemas/signup.ui.json -->\n```json\n"ui:title": "Register",\n```\n<!-- example: demo, after: schemas/signup.ui.json -->\n```json\n"ui:title": "Join",\n```\n',
    ).get('demo')!;
    const copy = copyContent();
    try {
      expect(() => applyGuideEdits(copy, [stale!, { ...stale!, kind: 'after', text: '"ui:title": "Join",\n' }])).toThrow(
        'docs/authoring.md:1 (example "demo"): the text it says to change is no longer in schemas/signup.ui.json — make the guide\'s "before" block show the file\'s lines as they are now:\n"ui:title": "Register",\n',
      );
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
    const prints: GuideBlock = { kind: 'prints', file: '', text: '✓ a.json (signup)\n1 passed, 0 failed\n', at: 'docs/authoring.md:9 (example "demo")' };
    expect(() => expectPrinted('✗ a.json (signup)\n0 passed, 1 failed\n', prints, 'npm run validate -- a.json')).toThrow(
      'docs/authoring.md:9 (example "demo"): `npm run validate -- a.json` no longer prints what the guide shows: it shows "✓ a.json (signup)", which the command no longer prints. Make the guide show what it prints now:\n✗ a.json (signup)\n0 passed, 1 failed\n',
    );
  });

  it.each([...examples.entries()])('example "%s" works as written', async (_name, blocks) => {
    const copy = copyContent();
    try {
      let edits: GuideBlock[] = [];
      let printed: { output: string; command: string } | undefined;
      for (const block of blocks) {
        if (block.kind === 'run') {
          applyGuideEdits(copy, edits);
          edits = [];
          printed = { output: await run(block.text, copy), command: block.text };
        } else if (block.kind === 'prints') {
          if (!printed) throw new Error(`${block.at}: a "prints" block follows a "run" block`);
          expectPrinted(printed.output, block, printed.command);
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
