import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { checkFlow } from '../../src/cli/lint/flowChecks.js';
import { formatProblem, Problems } from '../../src/cli/lint/problems.js';
import { runLint } from '../../src/cli/lint.js';
import { lintProject } from '../../src/cli/lintProject.js';
import { SCREEN_NAMES, WIDGET_NAMES } from '../../src/shared/registries.js';
import type { JsonObject } from '../../src/shared/schemaFiles.js';
import type { Flow } from '../../src/shared/flow.js';
import { PROJECT_ROOT } from '../../src/node/projectFiles.js';
import { copyProject, listBrokenEdits, makeEdit } from '../support/brokenEdits.js';

const registry = { widgets: [...WIDGET_NAMES], screens: [...SCREEN_NAMES] };
const run = promisify(execFile);
const lintCommand = (...args: string[]) => run(join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx'), ['src/cli/lint.ts', ...args], { cwd: PROJECT_ROOT });

describe('npm run lint:schemas', () => {
  // One lint of the shipped files (seconds of CPU): a problem or a warning would be a line of its own above the count.
  it('finds no problem in the shipped schemas, UI schemas and flow, says so with the time it took, and answers 0', async () => {
    const printed: string[] = [];
    expect(await runLint(PROJECT_ROOT, (line) => printed.push(line))).toBe(0);
    expect(printed).toEqual([expect.stringMatching(/^schemas and flow: 0 problems \(checked in \d+ ms, \d+ ms in all\)$/)]);
  });

  it('prints one line per problem and exits with 1, run as a command', async () => {
    const edit = listBrokenEdits().find((e) => e.name === 'payload-field-renamed-in-schema-only')!;
    const root = copyProject();
    makeEdit(root, edit);
    try {
      const failure = await lintCommand(root).then(
        () => null,
        (error: { code: number; stdout: string }) => error,
      );
      expect(failure?.code).toBe(1);
      const lines = failure?.stdout.trimEnd().split('\n') ?? [];
      expect(lines.slice(0, -1)).toEqual(edit.expect);
      const warnings = edit.expect.filter((line) => line.includes(': warning: ')).length;
      expect(lines.at(-1)).toMatch(
        new RegExp(`^schemas and flow: ${edit.expect.length - warnings} problems, ${warnings} warnings \\(checked in \\d+ ms, \\d+ ms in all\\)$`),
      );
    } finally {
      rmSync(root, { recursive: true });
    }
  });
});

describe('a file that describes others, refused by Ajv', () => {
  it('is the same problem line at each lint of the process, as npm run dev lints at each save', async () => {
    const root = copyProject();
    const file = join(root, 'flows', 'notices.schema.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"type": "object"', '"type": "objekt"'));
    try {
      const lint = async () =>
        (await lintProject(root, registry, { fixturesAndTranslations: false })).filter((p) => p.file === 'flows/notices.schema.json').map(formatProblem);
      const expected = [
        'flows/notices.schema.json:1:1 /: this file no longer describes the files it checks (schema is invalid: data/type must be equal to one of the allowed values, data/type must be array, data/type must match a schema in anyOf) — restore it (git checkout) — editors and the lint need it',
      ];
      expect(await lint()).toEqual(expected);
      expect(await lint()).toEqual(expected);
    } finally {
      rmSync(root, { recursive: true });
    }
  });
});

describe('a message the server answers with, deleted', () => {
  it('is one problem line, not a stack trace from loading the server’s code, when the lint runs on that content', async () => {
    const edit = listBrokenEdits().find((e) => e.name === 'server-message-deleted')!;
    const root = copyProject();
    makeEdit(root, edit);
    try {
      // The server's code reads its content folder's messages as it loads: that folder is the edited copy.
      const failure = await run(join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx'), ['src/cli/lint.ts', root], {
        cwd: PROJECT_ROOT,
        env: { ...process.env, ONRAMP_CONTENT_DIR: root },
      }).then(
        () => null,
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect(failure?.code).toBe(1);
      expect(failure?.stderr).not.toMatch(/\n\s+at /);
      expect(failure?.stdout.trimEnd().split('\n').slice(0, -1)).toEqual(edit.expect);
    } finally {
      rmSync(root, { recursive: true });
    }
  });
});

describe('an English edit whose translation is still to write', () => {
  it('passes (exit 0), with a warning that names the entry to write', async () => {
    const edit = listBrokenEdits().find((e) => e.name === 'translation-stale-english-fixed')!;
    const root = copyProject();
    makeEdit(root, edit);
    try {
      const { stdout } = await lintCommand(root);
      const lines = stdout.trimEnd().split('\n');
      expect(lines.slice(0, -1)).toEqual(edit.expect);
      expect(lines[0]).toContain(': warning: the English changed since this was translated');
      expect(lines.at(-1)).toMatch(/^schemas and flow: 0 problems, 1 warning \(checked in \d+ ms, \d+ ms in all\)$/);
    } finally {
      rmSync(root, { recursive: true });
    }
  });
});

describe('a form step with no way on', () => {
  const shipped = JSON.parse(readFileSync(join(PROJECT_ROOT, 'flows', 'onboarding.flow.json'), 'utf8')) as Flow & JsonObject;
  const withoutNext = (extra: object) => {
    const flow = structuredClone(shipped);
    const { next: _next, ...step } = flow.steps.addVehicle as Flow['steps'][string] & { next: unknown };
    flow.steps.addVehicle = { ...step, ...extra } as Flow['steps'][string];
    const problems = new Problems();
    checkFlow(flow, { schemas: new Map(), screenNames: [...SCREEN_NAMES] }, problems);
    return problems.list.map(formatProblem).filter((line) => line.includes('way on'));
  };

  it('is reported', () => {
    expect(withoutNext({})).toEqual([
      'flows/onboarding.flow.json /steps/addVehicle: form step "addVehicle" has no way on: nothing says where to go once its form is sent — add "next": [{ "to": "<step>" }], or a "completion" block if the journey ends here',
    ]);
  });

  it('is the end of the journey when it has a completion block', () => {
    expect(withoutNext({ completion: { title: 'Done' } })).toEqual([]);
  });
});
