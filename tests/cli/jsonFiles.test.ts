// How the lint reads a JSON file as people type it: slips named at their own line and column,
// keys written twice, and a JSON pointer's line and column for every other problem.
import { describe, expect, it } from 'vitest';
import { locate, parseJsonObject } from '../../src/cli/lint/jsonFiles.js';
import { formatProblem, Problems } from '../../src/cli/lint/problems.js';

function read(text: string): { value: unknown; lines: string[] } {
  const problems = new Problems();
  const value = parseJsonObject('schemas/x.ui.json', text, problems);
  return { value, lines: problems.list.map(formatProblem) };
}

describe('parseJsonObject', () => {
  it.each([
    ['', 'schemas/x.ui.json:1:1: invalid JSON: the file is empty — restore its content (git checkout), or write { } to start it'],
    ['  \n\t\n', 'schemas/x.ui.json:1:1: invalid JSON: the file is empty — restore its content (git checkout), or write { } to start it'],
    [
      '{\n  "a": 1,\n  "b": [1, 2,]\n}',
      'schemas/x.ui.json:3:13: invalid JSON: a comma after the last entry of the list — remove this comma: JSON allows none before "]"',
    ],
    [
      '{\n  "a": "x"\n  "b": 2\n}',
      'schemas/x.ui.json:2:11: invalid JSON: a comma is missing here — put a "," after this value, before the next property or entry',
    ],
    [
      '{ "a": 1 } }',
      'schemas/x.ui.json:1:12: invalid JSON: more text after the end of the JSON — remove the extra "}" or text (or the object closed too early above)',
    ],
    [
      '{ "a": "line\nbreak" }',
      'schemas/x.ui.json:1:8: invalid JSON: a line break or tab inside a text — keep each text on one line, or write \\n for a line break',
    ],
    ['{ "a": [1, 2', 'schemas/x.ui.json:1:13: invalid JSON: the file ends too early — close every open "{", "[" and "\\""'],
    ['[1, 2]', 'schemas/x.ui.json:1:1 /: the file must hold one JSON object, { … } — wrap the content in { }'],
  ])('names the slip in %j at its place', (text, line) => {
    expect(read(text)).toEqual({ value: undefined, lines: [line] });
  });

  it('reads a file with Windows line ends and tabs, and counts lines the same way', () => {
    expect(read('{\r\n\t"a": 1,\r\n\t"b": { "c": true }\r\n}\r\n')).toEqual({ value: { a: 1, b: { c: true } }, lines: [] });
    expect(read('{\r\n\t"a": 1\r\n\t"b": 2\r\n}')).toEqual({
      value: undefined,
      lines: ['schemas/x.ui.json:2:8: invalid JSON: a comma is missing here — put a "," after this value, before the next property or entry'],
    });
  });

  it('reports a key written twice at the second one, however deep', () => {
    expect(read('{\n  "list": [{ "a": 1, "a": 2 }],\n  "b": 1,\n  "b": 1\n}').lines).toEqual([
      'schemas/x.ui.json:2:22 /list/0/a: "a" is written twice in this object: only the last one counts — remove one of them (or merge what they say)',
      'schemas/x.ui.json:4:3 /b: "b" is written twice in this object: only the last one counts — remove one of them (or merge what they say)',
    ]);
  });
});

describe('locate', () => {
  const text = '{\n  "email": {\n    "ui:title": "Email",\n    "ui:options": { "rows": 2 }\n  },\n  "ui:order": ["email", "phone"]\n}';

  it('finds a property at its key, an entry of a list at itself', () => {
    expect(locate(text, '/email/ui:title')).toEqual({ line: 3, column: 5 });
    expect(locate(text, '/email/ui:options/rows')).toEqual({ line: 4, column: 21 });
    expect(locate(text, '/ui:order/1')).toEqual({ line: 6, column: 25 });
  });

  it('finds the nearest place that exists for something missing, and the start for the whole file', () => {
    expect(locate(text, '/email/ui:placeholder')).toEqual({ line: 2, column: 3 });
    expect(locate(text, '/')).toEqual({ line: 1, column: 1 });
  });
});
