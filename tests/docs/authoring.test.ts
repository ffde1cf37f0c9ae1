// docs/authoring.md's worked examples, followed as written. Each example's code blocks are
// marked in the guide (`<!-- example: NAME, before: FILE -->`, `after: FILE`, `new file: FILE`,
// `run`, `prints`): the test makes each edit on a copy of the project, runs each command there
// and compares its output with the guide's, so the guide and the project cannot drift apart.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/node/projectFiles.js';

const GUIDE = readFileSync(join(PROJECT_ROOT, 'docs', 'authoring.md'), 'utf8');

interface Block {
  kind: 'before' | 'after' | 'new file' | 'run' | 'prints';
  file: string;
  text: string;
}

const MARKED_BLOCK = /<!-- example: ([\w-]+), (before|after|new file|run|prints)(?:: (\S+))? -->\n```\w*\n([\s\S]*?)```/g;

function examplesOf(markdown: string): Map<string, Block[]> {
  const examples = new Map<string, Block[]>();
  for (const [, name, kind, file = '', text] of markdown.matchAll(MARKED_BLOCK)) {
    if (!examples.has(name!)) examples.set(name!, []);
    examples.get(name!)!.push({ kind: kind as Block['kind'], file, text: text! });
  }
  return examples;
}

const examples = examplesOf(GUIDE);

/** What a person copying the project would need to run its commands. */
function copyProject(): string {
  const copy = mkdtempSync(join(tmpdir(), 'onramp-guide-'));
  for (const path of ['package.json', 'tsconfig.json', 'src', 'widgets', 'schemas', 'flows', 'tests/fixtures']) {
    cpSync(join(PROJECT_ROOT, path), join(copy, path), { recursive: true });
  }
  symlinkSync(realpathSync(join(PROJECT_ROOT, 'node_modules')), join(copy, 'node_modules'));
  return copy;
}

const dedent = (text: string) => {
  const lines = text.replace(/\n$/, '').split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => /^ */.exec(l)![0].length));
  return lines.map((l) => l.slice(indent));
};

/**
 * Replaces the lines of `before` by those of `after`, as a person would: the guide's snippets
 * leave out the file's indentation, which the edit keeps.
 */
function applyEdit(file: string, text: string, before: string, after: string): string {
  const lines = text.split('\n');
  const wanted = dedent(before).map((l) => l.trim());
  const starts = lines.flatMap((_, i) => (wanted.every((w, j) => lines[i + j]?.trim() === w) ? [i] : []));
  expect(starts, `the guide's text to change in ${file} is found there exactly once:\n${before}`).toHaveLength(1);
  const indent = /^ */.exec(lines[starts[0]!]!)![0];
  lines.splice(starts[0]!, wanted.length, ...dedent(after).map((l) => indent + l));
  return lines.join('\n');
}

function run(command: string, cwd: string): Promise<string> {
  const [npm, verb, script, ...args] = command.trim().split(/\s+/);
  expect(`${npm} ${verb}`, `the guide's commands are npm scripts: ${command}`).toBe('npm run');
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', script!, ...args], { cwd });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => resolve(stdout));
  });
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
    const copy = copyProject();
    try {
      let printed: string | undefined;
      for (let i = 0; i < blocks.length; i++) {
        const block = blocks[i]!;
        const path = join(copy, block.file);
        if (block.kind === 'before') {
          const after = blocks[++i];
          expect(after?.kind === 'after' && after.file === block.file, `"before: ${block.file}" is followed by its "after"`).toBe(true);
          writeFileSync(path, applyEdit(block.file, readFileSync(path, 'utf8'), block.text, after!.text));
        } else if (block.kind === 'new file') {
          mkdirSync(dirname(path), { recursive: true });
          writeFileSync(path, block.text);
        } else if (block.kind === 'run') {
          printed = await run(block.text, copy);
        } else if (block.kind === 'prints') {
          expect(printed, 'a "prints" block follows a "run" block').toBeDefined();
          expectPrinted(printed!, block.text);
          printed = undefined;
        } else {
          throw new Error(`an "after: ${block.file}" block without its "before"`);
        }
      }
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
