/**
 * Reads the project's JSON files for the lint. A file that is not JSON becomes a problem at its
 * line and column, with the likely fix, instead of JSON.parse's "position 412".
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isObject, type Json, type JsonObject } from '../../shared/schemaFiles.js';
import type { Problems } from './problems.js';

/** JSON.parse's complaints (V8's wording, Node 20 and later), what they mean and how to fix them. */
const SYNTAX_HINTS: { test: RegExp; what: string; fix: string }[] = [
  {
    test: /Expected ',' or '}' after property value/,
    what: 'expected "," or "}" here',
    fix: 'a comma is missing between two properties (at the end of the line before?), or a "}" is missing',
  },
  {
    test: /Expected ',' or ']' after array element/,
    what: 'expected "," or "]" here',
    fix: 'a comma is missing between two entries of a list, or a "]" is missing',
  },
  {
    test: /Expected double-quoted property name/,
    what: 'expected a property name in double quotes',
    fix: 'remove the comma before "}" (JSON allows none after the last property), or put the name in double quotes',
  },
  {
    test: /Expected property name or '}'/,
    what: 'expected a property name in double quotes',
    fix: 'put the name in double quotes: "name": …',
  },
  { test: /Unexpected end of JSON input|Unterminated string/, what: 'the file ends too early', fix: 'close every open "{", "[" and "\\""' },
  {
    test: /Unexpected non-whitespace character after JSON/,
    what: 'more text after the end of the JSON',
    fix: 'remove the extra "}" or text (or the object closed too early above)',
  },
  {
    test: /Bad control character in string literal/,
    what: 'a line break or tab inside a text',
    fix: 'keep each text on one line, or write \\n for a line break',
  },
  { test: /Bad escaped character/, what: 'an unknown escape after "\\" in a text', fix: 'write \\\\ for a backslash' },
];

/** line:column of a character offset (both from 1). */
function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `${before.length}:${(before.at(-1)?.length ?? 0) + 1}`;
}

/** A JSON text as an object, or a problem (at line:column for bad syntax). */
export function parseJsonObject(file: string, text: string, problems: Problems): JsonObject | undefined {
  let value: Json;
  try {
    value = JSON.parse(text) as Json;
  } catch (error) {
    const message = (error as Error).message;
    const position = /at position (\d+)/.exec(message);
    const at = lineColumn(text, position ? Number(position[1]) : text.trimEnd().length);
    const hint = SYNTAX_HINTS.find((h) => h.test.test(message));
    const raw = message.replace(/,? ?(in JSON )?at position \d+.*$/, '').replace(/^JSON\.parse: /, '');
    problems.add(file, at, `invalid JSON: ${hint?.what ?? raw}`, hint?.fix ?? 'check the quotes, commas and brackets around this place');
    return undefined;
  }
  if (!isObject(value)) {
    problems.add(file, '/', 'the file must hold one JSON object, { … }', 'wrap the content in { }');
    return undefined;
  }
  return value;
}

/** The text of a file of the project, or undefined if it does not exist. */
export function readProjectFile(root: string, file: string): string | undefined {
  try {
    return readFileSync(join(root, file), 'utf8');
  } catch {
    return undefined;
  }
}
