// Every document the project points at is in the repository: the markdown links of README.md and
// docs/ (their headings too), and the paths and `.md` files that those pages, the comments of
// src/, widgets/ and tools/, and the `$comment`s of schemas/ and flows/ name. A page moved or
// renamed, or a comment citing a document kept elsewhere, fails here with the place that names it.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/node/projectFiles.js';

/** The project's own folders at the root: what git keeps, not what a build or a run makes. */
const IGNORED = new Set(
  readFileSync(join(PROJECT_ROOT, '.gitignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim().replace(/\/$/, ''))
    .filter(Boolean),
);
const ROOT_FOLDERS = new Set(
  readdirSync(PROJECT_ROOT, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== '.git' && !IGNORED.has(entry.name))
    .map((entry) => entry.name),
);

const project = (path: string) => relative(PROJECT_ROOT, path).split('\\').join('/');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes; a repeated one gets -1, -2… */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of markdown.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} +(.+)$/gm)) {
    const slug = heading!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

interface Reference {
  /** Where it is named: "docs/testing.md:12". */
  at: string;
  /** What is named, as written. */
  named: string;
  /** Why it does not hold. */
  problem: string;
}

const lineAt = (text: string, index: number) => text.slice(0, index).split('\n').length;

/** The markdown links of a page that lead to no file, or to no heading of it. */
function brokenLinks(file: string, text: string): Reference[] {
  const broken: Reference[] = [];
  const prose = text.replace(/```[\s\S]*?```/g, (block) => block.replace(/[^\n]/g, ' '));
  for (const match of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1]!;
    if (/^[a-z]+:/i.test(target)) continue;
    const [path = '', anchor] = target.split('#');
    const at = `${project(file)}:${lineAt(text, match.index)}`;
    const linked = path ? resolve(dirname(file), path) : file;
    if (!existsSync(linked)) broken.push({ at, named: target, problem: 'no such file' });
    else if (anchor !== undefined && linked.endsWith('.md') && !anchorsOf(path ? readFileSync(linked, 'utf8') : text).has(anchor))
      broken.push({ at, named: target, problem: `no heading "#${anchor}" in ${project(linked)}` });
  }
  return broken;
}

/** A placeholder ends what can be checked of a path: `schemas/<step>.ui.json` names the folder schemas/. */
const PLACEHOLDER = /[<{*…:]/;

/**
 * Where a path named in `file` is, if it names one of the project's: from the root when it starts
 * with a root folder (`src/…`, `docs/…`), else from the nearest folder above `file` that holds its
 * first part (`routes/auth.ts` in src/server/plugins/). Undefined for what is no path of the
 * project's (a package's `firebase/auth`, a MIME type).
 */
function projectPath(file: string, named: string): string | undefined {
  const first = named.split('/')[0]!;
  if (ROOT_FOLDERS.has(first)) return join(PROJECT_ROOT, named);
  for (let folder = dirname(file); folder.startsWith(PROJECT_ROOT) && folder !== PROJECT_ROOT; folder = dirname(folder)) {
    const candidate = join(folder, first);
    if (existsSync(candidate) && statSync(candidate).isDirectory()) return join(folder, named);
  }
  return undefined;
}

/**
 * The paths and `.md` files a text names that the repository lacks. A module specifier (`./x.js`,
 * `../form/StepPage.js`) is code, not a reference; a file a guide's example makes
 * (`<!-- example: NAME, new file: PATH -->`) is there once the reader follows it.
 */
function missingPaths(file: string, text: string, offset: (index: number) => number = (index) => lineAt(text, index)): Reference[] {
  const missing: Reference[] = [];
  const made = new Set([...text.matchAll(/<!-- example: [\w-]+, new file: (\S+) -->/g)].map((match) => match[1]!));
  const prose = text.replace(/\b[a-z]+:\/\/\S+/gi, (url) => ' '.repeat(url.length));
  for (const match of prose.matchAll(/(?<![\w@./-])[\w.-]+(?:\/[^\s`'"),;\]|#]*)*/g)) {
    let named = match[0].replace(/[.]+$/, '');
    const markdownFile = /\.md$/.test(named);
    if ((!named.includes('/') && !markdownFile) || /^\.\.?\//.test(named) || made.has(named)) continue;
    const placeholder = named.search(PLACEHOLDER);
    if (placeholder >= 0) named = named.slice(0, named.lastIndexOf('/', placeholder) + 1);
    if (!named) continue;
    const at = `${project(file)}:${offset(match.index)}`;
    const found = named.includes('/')
      ? projectPath(file, named)
      : [dirname(file), PROJECT_ROOT, join(PROJECT_ROOT, 'docs')].map((folder) => join(folder, named)).find(existsSync);
    if (found === undefined ? markdownFile : !existsSync(found)) missing.push({ at, named, problem: 'not in the repository' });
  }
  // A page cited by its name and a section ("README §2") is one of the repository's Markdown pages.
  for (const match of prose.matchAll(/(?<![\w-])([A-Z][A-Z_-]*) §/g)) {
    const page = `${match[1]}.md`;
    if (![dirname(file), PROJECT_ROOT, join(PROJECT_ROOT, 'docs')].some((folder) => existsSync(join(folder, page))))
      missing.push({ at: `${project(file)}:${offset(match.index)}`, named: page, problem: 'not in the repository' });
  }
  return missing;
}

/** The comments of a source file, each with the line it starts on. */
function commentsOf(file: string, text: string): { text: string; line: number }[] {
  if (file.endsWith('.json')) {
    const comments: { text: string; line: number }[] = [];
    for (const match of text.matchAll(/"\$comment"\s*:\s*"((?:[^"\\]|\\.)*)"/g))
      comments.push({ text: JSON.parse(`"${match[1]}"`), line: lineAt(text, match.index) });
    return comments;
  }
  const syntax = file.endsWith('.sql') ? /--[^\n]*/g : file.endsWith('.html') ? /<!--[\s\S]*?-->/g : /\/\*[\s\S]*?\*\/|(?<![:\w'"`])\/\/[^\n]*/g;
  return [...text.matchAll(syntax)].map((match) => ({ text: match[0], line: lineAt(text, match.index) }));
}

function filesUnder(folder: string, keep: (name: string) => boolean): string[] {
  return readdirSync(join(PROJECT_ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && keep(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => !project(path).startsWith('src/shared/generated/'))
    .sort();
}

const PAGES = [join(PROJECT_ROOT, 'README.md'), ...filesUnder('docs', (name) => name.endsWith('.md'))];
const SOURCES = [
  ...['src', 'widgets', 'tools'].flatMap((folder) => filesUnder(folder, (name) => /\.(tsx?|mjs|css|html|sql)$/.test(name) || name.endsWith('.schema.json'))),
  ...['schemas', 'flows'].flatMap((folder) => filesUnder(folder, (name) => name.endsWith('.json'))),
];

const report = (references: Reference[]) => references.map(({ at, named, problem }) => `${at}: ${named}: ${problem}`);

describe('references to documents and files', () => {
  it('finds a link to a page or a heading that is not there, and a path or a page no folder holds', () => {
    const page = join(PROJECT_ROOT, 'docs', 'testing.md');
    expect(report(brokenLinks(page, '# Sample\n\n[ops](operations.md#production), [gone](gone.md), [here](#nowhere), [web](https://example.com)\n'))).toEqual([
      'docs/testing.md:3: gone.md: no such file',
      'docs/testing.md:3: #nowhere: no heading "#nowhere" in docs/testing.md',
    ]);
    const source = join(PROJECT_ROOT, 'src', 'server', 'plugins', 'sample.ts');
    expect(
      report(
        missingPaths(
          source,
          '/**\n * As routes/auth.ts binds it (see docs/architecture.md, notes/security.md §1 and PLAN.md);\n * schemas/<step>.ui.json, firebase/auth, image/jpeg, https://example.com/docs/x.md, src/server/gone.ts.\n * As README §3 and DESIGN §7 say (spec §4, NIST 800-63B §5.2.2).\n */',
        ),
      ),
    ).toEqual([
      'src/server/plugins/sample.ts:2: notes/security.md: not in the repository',
      'src/server/plugins/sample.ts:2: PLAN.md: not in the repository',
      'src/server/plugins/sample.ts:3: src/server/gone.ts: not in the repository',
      'src/server/plugins/sample.ts:4: DESIGN.md: not in the repository',
    ]);
  });

  it('README.md and docs/ link only to files and headings the repository has', () => {
    expect(report(PAGES.flatMap((page) => brokenLinks(page, readFileSync(page, 'utf8'))))).toEqual([]);
  });

  it('README.md and docs/ name only paths the repository has', () => {
    expect(report(PAGES.flatMap((page) => missingPaths(page, readFileSync(page, 'utf8'))))).toEqual([]);
  });

  it('the comments of src/, widgets/ and tools/ and the $comments of schemas/ and flows/ name only paths the repository has', () => {
    const missing = SOURCES.flatMap((file) =>
      commentsOf(file, readFileSync(file, 'utf8')).flatMap((comment) =>
        missingPaths(file, comment.text, (index) => comment.line + lineAt(comment.text, index) - 1),
      ),
    );
    expect(report(missing)).toEqual([]);
  });
});
