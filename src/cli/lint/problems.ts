/**
 * A lint problem as operations staff read it: `file:line:column /pointer: what is wrong — how to
 * fix it`. The line and column take an editor or a terminal straight there; the JSON pointer
 * ("/properties/email/format") names the place in the file's own terms. A file that is not JSON
 * has no pointer; a missing file has neither.
 */
import { pointerKeys, pointerOf } from '../../shared/jsonPointer.js';
import { isObject, type Json } from '../../shared/schemaFiles.js';

export interface Problem {
  /** From the project's root: "schemas/signup.schema.json". */
  file: string;
  /** A JSON pointer ("/" for the whole file), or "" when the file is not JSON. */
  at: string;
  /** Where `at` is in the file (both from 1), when the file can be read. */
  line?: number;
  column?: number;
  /** "what is wrong — how to fix it". */
  message: string;
  /** Something to do that breaks nothing meanwhile (a translation still to write): said, and the lint still passes. */
  warning?: true;
}

export function formatProblem({ file, at, line, column, message, warning }: Problem): string {
  const position = line === undefined ? '' : `:${line}:${column}`;
  const place = at === '' || (at === '/' && position === '') ? '' : ` ${at}`;
  return `${file}${position}${place}: ${warning ? 'warning: ' : ''}${message}`;
}

/** The problems that fail the lint: all but the warnings. */
export const errorsIn = (problems: readonly Problem[]) => problems.filter((problem) => !problem.warning);

/** Where a problem is, as a JSON pointer of its keys; the whole file is "/", as the lint writes it. */
export const pointer = (...keys: (string | number)[]): string => (keys.length === 0 ? '/' : pointerOf(keys));

export { pointerKeys };

/** The value at the keys of a pointer, if there is one. */
export function valueAt(root: Json, keys: string[]): Json | undefined {
  let node: Json | undefined = root;
  for (const key of keys) {
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObject(node)) node = Object.hasOwn(node, key) ? node[key] : undefined;
    else return undefined;
  }
  return node;
}

/** Whether pointer `inner` is `outer` or below it. */
export const isWithin = (inner: string, outer: string) => outer === '/' || inner === outer || inner.startsWith(`${outer}/`);

/** Edits (insert, delete, replace, swap two neighbours) between two words, ignoring case. */
function distance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const rows: number[][] = Array.from({ length: s.length + 1 }, (_, i) => [i, ...Array<number>(t.length).fill(0)]);
  for (let j = 1; j <= t.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const row = rows[i]!;
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      row[j] = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
    }
  }
  return rows[s.length]![t.length]!;
}

/** The candidate a mistyped word most likely meant, if one is close enough (a quarter of its letters by default). */
export function closest(word: string, candidates: Iterable<string>, allowed = Math.max(1, Math.floor(word.length / 4))): string | undefined {
  let best: { candidate: string; edits: number } | undefined;
  for (const candidate of candidates) {
    const edits = distance(word, candidate);
    if (edits <= allowed && (!best || edits < best.edits)) best = { candidate, edits };
  }
  return best?.candidate;
}

const quoted = (words: Iterable<string>) => [...words].map((word) => `"${word}"`).join(', ');

/** "did you mean "x"?" when a candidate is close, else "use one of: …". */
export function suggestion(word: string, candidates: string[]): string {
  const near = closest(word, candidates);
  if (near) return `did you mean "${near}"?`;
  return candidates.length > 0 ? `use one of: ${quoted(candidates)}` : 'there is nothing to choose from yet';
}

/** Collects problems in the order they are found. */
export class Problems {
  readonly list: Problem[] = [];

  /** Adds a problem, once: a shared file's problem is met again through each file that uses it. */
  add(file: string, at: string, what: string, fix: string, position?: { line: number; column: number }): void {
    this.push({ file, at, ...position, message: `${what} — ${fix}` });
  }

  /** Adds a warning (Problem.warning), once. */
  warn(file: string, at: string, what: string, fix: string): void {
    this.push({ file, at, message: `${what} — ${fix}`, warning: true });
  }

  private push(problem: Problem): void {
    if (!this.list.some((p) => p.file === problem.file && p.at === problem.at && p.message === problem.message)) this.list.push(problem);
  }

  /** Whether anything but a warning was found. */
  get failed(): boolean {
    return this.list.some((problem) => !problem.warning);
  }

  /** Gives each problem found by its pointer the line and column of that place, from the file's text (`textOf`). */
  locate(textOf: (file: string) => string | undefined, find: (text: string, at: string) => { line: number; column: number } | undefined): void {
    for (const problem of this.list) {
      if (problem.line !== undefined || problem.at === '') continue;
      const text = textOf(problem.file);
      const position = text === undefined ? undefined : find(text, problem.at);
      if (position) Object.assign(problem, position);
    }
  }

  /** Whether a problem was already found in `file` at `at` or above it. */
  covers(file: string, at: string): boolean {
    return this.list.some((p) => p.file === file && isWithin(at, p.at));
  }

  hasAny(file: string): boolean {
    return this.list.some((p) => p.file === file);
  }
}

/** How to mend a `{placeholder}` a text may not use: the `near` one it was likely meant to be, or the ones it may use. */
export function placeholderFix(near: string | undefined, offered: readonly string[]): string {
  if (near) return `did you mean {${near}}?`;
  return offered.length ? `use one of ${offered.map((each) => `{${each}}`).join(', ')}` : 'this message takes no placeholder: write the text out';
}
