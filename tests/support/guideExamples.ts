/**
 * The worked examples of docs/authoring.md, read as tests/docs/authoring.test.ts reads them: each
 * code block marked `<!-- example: NAME, before: FILE -->` (`after: FILE`, `new file: FILE`,
 * `run`, `prints`), so a test can make a guide's edit exactly as written on a copy of the content.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project (not src/node/projectFiles.ts, which reads ONRAMP_CONTENT_DIR once, when first imported). */
const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface GuideBlock {
  kind: 'before' | 'after' | 'new file' | 'run' | 'prints';
  file: string;
  text: string;
  /** Where the block is in the guide, for messages: "docs/authoring.md:312". */
  at: string;
}

const MARKED_BLOCK = /<!-- example: ([\w-]+), (before|after|new file|run|prints)(?:: (\S+))? -->\n```\w*\n([\s\S]*?)```/g;

/** The guide's examples by name, each its blocks in order. */
export function guideExamples(guide = readFileSync(join(PROJECT_ROOT, 'docs', 'authoring.md'), 'utf8')): Map<string, GuideBlock[]> {
  const examples = new Map<string, GuideBlock[]>();
  for (const match of guide.matchAll(MARKED_BLOCK)) {
    const [, example, kind, file = '', text] = match;
    const blocks = examples.get(example!) ?? [];
    const line = guide.slice(0, match.index).split('\n').length;
    blocks.push({ kind: kind as GuideBlock['kind'], file, text: text!, at: `docs/authoring.md:${line} (example "${example}")` });
    examples.set(example!, blocks);
  }
  return examples;
}

/** The blocks of one example of the guide, in order. */
export function guideExample(name: string): GuideBlock[] {
  const blocks = guideExamples().get(name);
  if (!blocks) throw new Error(`docs/authoring.md has no example "${name}"`);
  return blocks;
}

const dedent = (text: string) => {
  const lines = text.replace(/\n$/, '').split('\n');
  const indent = Math.min(...lines.filter((line) => line.trim()).map((line) => /^ */.exec(line)![0].length));
  return lines.map((line) => line.slice(indent));
};

/**
 * `text` with the lines of `before` replaced by those of `after`, as a person would: the guide's
 * snippets leave out the file's indentation, which the edit keeps. `before` must be found once.
 */
export function replaceLines(file: string, text: string, before: string, after: string, at = 'the guide'): string {
  const lines = text.split('\n');
  const wanted = dedent(before).map((line) => line.trim());
  const starts = lines.flatMap((_, i) => (wanted.every((want, j) => lines[i + j]?.trim() === want) ? [i] : []));
  if (starts.length !== 1) {
    const how = starts.length === 0 ? 'is no longer in' : `is ${starts.length} times in`;
    throw new Error(`${at}: the text it says to change ${how} ${file} — make the guide's "before" block show the file's lines as they are now:\n${before}`);
  }
  const indent = /^ */.exec(lines[starts[0]!]!)![0];
  lines.splice(starts[0]!, wanted.length, ...dedent(after).map((line) => indent + line));
  return lines.join('\n');
}

/**
 * Makes an example's edits (its before/after pairs and new files) in the folder `root`, a copy of
 * the project's content; its commands (`run`, `prints`) are left to the caller. Answers the files changed.
 */
export function applyGuideEdits(root: string, blocks: readonly GuideBlock[]): string[] {
  const changed: string[] = [];
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!;
    const path = join(root, block.file);
    if (block.kind === 'before') {
      const after = blocks[++i];
      if (after?.kind !== 'after' || after.file !== block.file) throw new Error(`${block.at}: "before: ${block.file}" is not followed by its "after"`);
      writeFileSync(path, replaceLines(block.file, readFileSync(path, 'utf8'), block.text, after.text, block.at));
      changed.push(block.file);
    } else if (block.kind === 'new file') {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, block.text);
      changed.push(block.file);
    } else if (block.kind === 'after') {
      throw new Error(`${block.at}: an "after: ${block.file}" block without its "before"`);
    }
  }
  return [...new Set(changed)];
}
