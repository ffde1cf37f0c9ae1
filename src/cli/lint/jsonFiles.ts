/**
 * Reads the project's JSON files for the lint as people type them: with a parser that keeps
 * positions (jsonc-parser, VS Code's), so a slip is reported at its own line and column and named
 * (a trailing comma, a comment, a curly quote, a byte order mark, a non-breaking space, a quote
 * that ends a text early, a missing comma…), a key written twice is a problem rather than the last
 * one silently winning, and every other problem's JSON pointer is given its line and column.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Node, type ParseError, parseTree, printParseErrorCode } from 'jsonc-parser';
import { hasStrayBrace } from '../../shared/placeholders.js';
import { isObject, type Json, type JsonObject } from '../../shared/schemaFiles.js';
import { pointer, pointerKeys, type Problems } from './problems.js';
import { isMissingFile } from '../../node/fileErrors.js';

const STRICT_JSON = { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false };

/** Line and column (both from 1) of a character offset. */
export function positionOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

const CURLY_QUOTES = /[\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u00ab\u00bb]/;
const ODD_SPACES = /[\u00a0\u1680\u2000-\u200b\u202f\u205f\u3000]/;

/** Where the slip behind a parse error is, what it is and how to fix it. */
function slipOf(text: string, error: ParseError | undefined): { offset: number; what: string; fix: string } {
  const at = error?.offset ?? 0;
  const code = error ? printParseErrorCode(error.error) : 'ValueExpected';
  const char = text[at] ?? '';
  let before = at - 1;
  while (before >= 0 && /\s/.test(text[before] ?? '')) before--;
  const previous = text[before] ?? '';

  if (text.trim() === '') return { offset: 0, what: 'the file is empty', fix: 'restore its content (git checkout), or write { } to start it' };
  if (text.charCodeAt(0) === 0xfeff && at === 0) {
    return { offset: 0, what: 'the file starts with a byte order mark (BOM)', fix: 'save it as UTF-8 without BOM (in VS Code: "Save with Encoding", UTF-8)' };
  }
  if (code === 'InvalidCommentToken' || text.startsWith('//', at) || text.startsWith('/*', at)) {
    return { offset: at, what: 'a comment: JSON has none', fix: 'remove it, or keep the note in a "$comment": "…" property' };
  }
  if (CURLY_QUOTES.test(char)) {
    return {
      offset: at + text.slice(at).search(CURLY_QUOTES),
      what: 'a curly quote where JSON needs a straight one',
      fix: 'type " (a straight double quote) around names and texts',
    };
  }
  if (ODD_SPACES.test(char)) {
    return { offset: at, what: 'a non-breaking or other special space outside a text', fix: 'replace it with a plain space' };
  }
  if ((code === 'PropertyNameExpected' || code === 'ValueExpected') && previous === ',' && (char === '}' || char === ']')) {
    const last = char === '}' ? 'property' : 'entry of the list';
    return { offset: before, what: `a comma after the last ${last}`, fix: `remove this comma: JSON allows none before "${char}"` };
  }
  if ((code === 'InvalidSymbol' || code === 'CommaExpected') && previous === '"' && /[\p{L}\p{N}]/u.test(char)) {
    return { offset: before, what: 'a double quote inside a text ends it early', fix: 'write \\" for a quote inside a text, or use ’ or “ ”' };
  }
  if (code === 'CommaExpected') {
    return { offset: before + 1, what: 'a comma is missing here', fix: 'put a "," after this value, before the next property or entry' };
  }
  if (code === 'ColonExpected') return { offset: at, what: 'expected ":" after a property name', fix: 'write "name": value' };
  if (code === 'PropertyNameExpected')
    return { offset: at, what: 'expected a property name in double quotes', fix: 'put the name in double quotes: "name": …' };
  if (code === 'InvalidEscapeCharacter') return { offset: at, what: 'an unknown escape after "\\" in a text', fix: 'write \\\\ for a backslash' };
  // A text broken over two lines: the parser sees a text that never ends.
  const lineBreak = code === 'UnexpectedEndOfString' ? text.slice(at + 1).search(/["\n]/) : -1;
  if (code === 'InvalidCharacter' || (lineBreak >= 0 && text[at + 1 + lineBreak] === '\n')) {
    return { offset: at, what: 'a line break or tab inside a text', fix: 'keep each text on one line, or write \\n for a line break' };
  }
  if (code === 'EndOfFileExpected') {
    return { offset: at, what: 'more text after the end of the JSON', fix: 'remove the extra "}" or text (or the object closed too early above)' };
  }
  if (code === 'UnexpectedEndOfString' || at >= text.trimEnd().length) {
    return { offset: Math.min(at, text.trimEnd().length), what: 'the file ends too early', fix: 'close every open "{", "[" and "\\""' };
  }
  if (code === 'CloseBraceExpected' || code === 'CloseBracketExpected') {
    return {
      offset: at,
      what: `expected "${code === 'CloseBraceExpected' ? '}' : ']'}" here`,
      fix: 'a comma or a closing bracket is missing before this place',
    };
  }
  return { offset: at, what: 'this is not JSON', fix: 'check the quotes, commas and brackets around this place' };
}

/** Keys written twice in one object: the parser keeps the last, silently. */
function reportDuplicateKeys(file: string, text: string, node: Node, keys: string[], problems: Problems): void {
  if (node.type === 'object') {
    const seen = new Set<string>();
    for (const property of node.children ?? []) {
      const [key, value] = property.children ?? [];
      const name = String(key?.value);
      if (seen.has(name)) {
        problems.add(
          file,
          pointer(...keys, name),
          `"${name}" is written twice in this object: only the last one counts`,
          'remove one of them (or merge what they say)',
          positionOf(text, key?.offset ?? 0),
        );
      }
      seen.add(name);
      if (value) reportDuplicateKeys(file, text, value, [...keys, name], problems);
    }
  } else if (node.type === 'array') {
    node.children?.forEach((child, index) => reportDuplicateKeys(file, text, child, [...keys, String(index)], problems));
  }
}

/** A JSON text as an object, or a problem at the line and column of the slip. */
export function parseJsonObject(file: string, text: string, problems: Problems): JsonObject | undefined {
  // Read as UTF-8 (readProjectFile), a byte that is not UTF-8 became U+FFFD: drivers would read "�".
  const unreadable = text.indexOf('\uFFFD');
  if (unreadable !== -1) {
    problems.add(
      file,
      '',
      'the file is not saved as UTF-8: a character here cannot be read (Windows\' "ANSI" and "UTF-16" encodings save files so), and drivers would read "�"',
      'save the file again as UTF-8 (in Notepad: Save as → Encoding: UTF-8)',
      positionOf(text, unreadable),
    );
    return undefined;
  }
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, STRICT_JSON);
  const [first] = errors;
  if (first || !tree) {
    // No tree and no error: a file of nothing but spaces.
    const slip = slipOf(text, first);
    problems.add(file, '', `invalid JSON: ${slip.what}`, slip.fix, positionOf(text, slip.offset));
    return undefined;
  }
  const value = JSON.parse(text) as Json;
  if (!isObject(value)) {
    problems.add(file, '/', 'the file must hold one JSON object, { … }', 'wrap the content in { }', positionOf(text, tree.offset));
    return undefined;
  }
  reportDuplicateKeys(file, text, tree, [], problems);
  if (holdsTexts(file)) reportStrayBraces(file, value, [], problems);
  return value;
}

/** The content files whose strings people read (the editors' own schemas describe, and are not shown). */
const holdsTexts = (file: string) =>
  /^(schemas|flows|locales)\//.test(file) && !file.startsWith('schemas/meta/') && !(file.startsWith('flows/') && file.endsWith('.schema.json'));

/** A `{` or `}` in a text that is no `{name}` placeholder: drivers would read it as written. */
function reportStrayBraces(file: string, node: Json, keys: string[], problems: Problems): void {
  if (typeof node === 'string') {
    const key = keys.at(-1) ?? '';
    // A rule's pattern is a regular expression, and "$…" keys are the editors' and the developers'.
    if (key === 'pattern' || key.startsWith('$') || !hasStrayBrace(node)) return;
    const spaced = /\{\s+([\w.]+)\s*\}|\{\s*([\w.]+)\s+\}/.exec(node);
    const doubled = /\{\{([\w.]+)\}\}/.exec(node);
    const unclosed = /\{([\w.]+)(?![\w.}])/.exec(node);
    const meant = spaced?.[1] ?? spaced?.[2] ?? doubled?.[1] ?? unclosed?.[1];
    problems.add(
      file,
      pointer(...keys),
      'a brace here is no placeholder, so readers would see it as written',
      meant ? `write {${meant}}: one brace on each side, no spaces inside` : 'write a placeholder as {name}, both braces and no spaces, or take the brace out',
    );
    return;
  }
  if (Array.isArray(node)) node.forEach((child, at) => reportStrayBraces(file, child, [...keys, String(at)], problems));
  else if (isObject(node)) for (const [key, value] of Object.entries(node)) reportStrayBraces(file, value, [...keys, key], problems);
}

/**
 * Where a JSON pointer is in a file's text: the key of the property it names (or of the nearest
 * one that exists, for a pointer to something missing), an entry of a list, or the file's start.
 */
export function locate(text: string, at: string): { line: number; column: number } | undefined {
  const tree = parseTree(text, [], STRICT_JSON);
  if (!tree) return undefined;
  let place = tree.offset;
  let node: Node | undefined = tree;
  for (const key of pointerKeys(at)) {
    const next: Node | undefined =
      node?.type === 'object'
        ? node.children?.find((property) => property.children?.[0]?.value === key)
        : node?.type === 'array'
          ? node.children?.[Number(key)]
          : undefined;
    if (!next) break;
    // A property's place is its key's: where a person looks for it.
    place = next.offset;
    node = next.type === 'property' ? next.children?.[1] : next;
  }
  return positionOf(text, place);
}

/** The text of a file of the project, or undefined if it does not exist. */
export function readProjectFile(root: string, file: string): string | undefined {
  try {
    return readFileSync(join(root, file), 'utf8');
  } catch (error) {
    if (isMissingFile(error)) return undefined;
    throw error;
  }
}
