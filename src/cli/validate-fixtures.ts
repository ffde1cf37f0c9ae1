// `npm run validate [-- [--locale es] [--step NAME [--variant SCHEMA] [--body]] [--junit REPORT.xml] [FILE|FOLDER …]]`:
// runs each fixture (every one under tests/fixtures/ by default) through the browser's
// validator and the server's, and prints per file what each field got. With --step, each file is
// a form's values, or with --body the request body the step's call sends. With --locale, only the
// fixtures in that language run (a fixture names its own: "locale": "es"), and a payload is checked
// in it. For testers adding cases and for ops staff who changed a rule or a message (docs/authoring.md).
import { writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Flow } from '../shared/flow.js';
import { loadFlow, ProjectFileError, readJsonFile, shownPath } from '../node/projectFiles.js';
import { FixtureProblem, schemaOfStep } from '../shared/fixtureFiles.js';
import { DEFAULT_LOCALE, isLocale, LOCALES, type Locale } from '../shared/locales.js';
import { listFixtureFiles } from '../node/projectFiles.js';
import { checkFixture, expandPaths, formatResult, type BarePayload } from './fixtures.js';
import { junitReport } from './junit.js';

const USAGE = `usage: npm run validate -- [--locale ${Object.keys(LOCALES).join('|')}] [--junit REPORT.xml] [FILE|FOLDER …]
       npm run validate -- [--locale ${Object.keys(LOCALES).join('|')}] --step NAME [--variant SCHEMA] [--body] [--junit REPORT.xml] PAYLOAD.json …`;

/** Where the command prints, and the folder its paths are read from (the tester's, when npm runs it). */
export interface CommandIo {
  out(line: string): void;
  err(line: string): void;
  cwd: string;
}

/** The language a fixture file names (English when it names none); undefined when the file cannot be read. */
function readFixtureLocale(file: string): Locale | undefined {
  try {
    const { locale = DEFAULT_LOCALE } = readJsonFile(file);
    return isLocale(locale) ? locale : undefined;
  } catch (error) {
    // A fixture that can't be read is reported as such by the run; it has no locale to pick.
    if (error instanceof ProjectFileError) return undefined;
    throw error;
  }
}

/** A usage mistake: exit status 2, with the usage. */
class UsageError extends Error {}

/** The command with its arguments: prints what each fixture got and answers the exit status (0 all passed, 1 a failure, 2 a usage mistake). */
export function runValidate(argv: string[], io: CommandIo): number {
  try {
    return validate(argv, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n${USAGE}`);
      return 2;
    }
    if (error instanceof ProjectFileError) {
      io.err(error.message);
      return 1;
    }
    throw error;
  }
}

function validate(argv: string[], io: CommandIo): number {
  let args: ReturnType<
    typeof parseArgs<{
      options: { step: { type: 'string' }; variant: { type: 'string' }; body: { type: 'boolean' }; junit: { type: 'string' }; locale: { type: 'string' } };
      allowPositionals: true;
    }>
  >;
  try {
    args = parseArgs({
      args: argv,
      options: { step: { type: 'string' }, variant: { type: 'string' }, body: { type: 'boolean' }, junit: { type: 'string' }, locale: { type: 'string' } },
      allowPositionals: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = args;
  const fromCaller = (path: string) => resolve(io.cwd, path);

  const { locale } = values;
  if (locale !== undefined && !isLocale(locale)) throw new UsageError(`--locale ${locale}: Onramp speaks ${Object.keys(LOCALES).join(', ')}`);
  const flow: Flow = loadFlow();
  let bare: BarePayload | undefined;
  if (values.step !== undefined) {
    if (positionals.length === 0) throw new UsageError('--step names the step of the payload files that follow it: give at least one file');
    bare = {
      step: values.step,
      ...(values.variant === undefined ? {} : { variant: values.variant }),
      ...(values.body ? { body: true } : {}),
      ...(locale === undefined ? {} : { locale }),
    };
    try {
      schemaOfStep(flow, bare.step, bare.variant);
    } catch (error) {
      if (!(error instanceof FixtureProblem)) throw error;
      throw new UsageError(`--${error.place} ${error.place === 'step' ? values.step : values.variant}: ${error.message}`);
    }
  } else if (values.variant !== undefined || values.body) {
    throw new UsageError(`--${values.body ? 'body' : 'variant'} goes with --step`);
  }

  const listed = positionals.length > 0 ? expandPaths(positionals.map(fromCaller)) : listFixtureFiles();
  // A fixture in another language is left out; one that cannot be read is kept, to say why.
  const files = bare || locale === undefined ? listed : listed.filter((file) => (readFixtureLocale(file) ?? locale) === locale);
  if (files.length === 0) throw new UsageError(`no fixture files${locale ? ` in ${LOCALES[locale]}` : ''} in ${positionals.join(', ') || 'tests/fixtures/'}`);
  const results = files.map((file) => checkFixture(file, flow, bare));
  for (const result of results) io.out(formatResult(result));
  const failed = results.filter((r) => !r.passed).length;
  io.out(`${results.length - failed} passed, ${failed} failed`);
  if (values.junit !== undefined) {
    const report = fromCaller(values.junit);
    writeFileSync(report, junitReport(results));
    io.out(`JUnit report: ${shownPath(report)}`);
  }
  return failed > 0 ? 1 : 0;
}

if (process.argv[1] && import.meta.url.endsWith(basename(process.argv[1]))) {
  process.exitCode = runValidate(process.argv.slice(2), {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
    // npm runs scripts from the project's root; paths are the tester's, from where they typed them.
    cwd: process.env.INIT_CWD ?? process.cwd(),
  });
}
