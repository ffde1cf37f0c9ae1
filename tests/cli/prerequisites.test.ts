// What `npm test` does when Chromium, PostgreSQL, Redis or haproxy is missing, each hidden by its setting
// (nothing is uninstalled, and ONRAMP_TEST_INSTALL=never keeps apt-get away): its first step says
// so in one line and the run goes on, or, under CI=true, fails; a run skips the tests that need
// the piece and says so again just above vitest's totals (tests/support/prerequisites.ts).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/node/projectFiles.js';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

const HIDDEN = '/nonexistent';
const PIECES = [
  { name: 'Chromium', setting: 'CHROMIUM_PATH', aptPackage: 'chromium-headless-shell', tests: 'the tests in Chromium' },
  { name: 'PostgreSQL', setting: 'POSTGRES_BIN_DIR', aptPackage: 'postgresql', tests: 'the DATABASE_URL tests' },
  { name: 'Redis', setting: 'REDIS_SERVER', aptPackage: 'redis-server', tests: 'the REDIS_URL tests' },
  { name: 'haproxy', setting: 'HAPROXY', aptPackage: 'haproxy', tests: 'the rolling restart behind a load balancer' },
];
type Piece = (typeof PIECES)[number];

const missing = (piece: Piece) =>
  `${piece.name} is missing (${piece.setting}=${HIDDEN} names nothing); \`${process.getuid?.() === 0 ? '' : 'sudo '}apt-get install ${piece.aptPackage}\` installs it`;

/** A command of the project's, in a process of its own, with settings over the test run's own (but not its vitest's, nor CI unless given). */
function run(args: string[], settings: Record<string, string>, cwd = PROJECT_ROOT): Promise<Run> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST') && name !== 'FORCE_COLOR'));
  const env = { ...inherited, CI: '', NO_COLOR: '1', ONRAMP_TEST_INSTALL: 'never', ...settings };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const TSX = join(PROJECT_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const VITEST = join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const ensurePrerequisites = (settings: Record<string, string>) => run([TSX, 'tests/support/ensurePrerequisites.ts'], settings);
const lines = (text: string) => text.split('\n').filter(Boolean);

const hidden = Object.fromEntries(PIECES.map((piece) => [piece.setting, HIDDEN]));

// Each test's processes are its own: the file's runs go side by side, as they mostly wait on loading modules.
describe.concurrent("npm test's first step, with Chromium, PostgreSQL, Redis and haproxy hidden and installing forbidden", () => {
  it('says in one line each what is skipped, what is missing and how to install it, and goes on', async ({ expect }) => {
    const { status, stdout, stderr } = await ensurePrerequisites(hidden);
    expect(lines(stdout)).toEqual(PIECES.map((piece) => `↓ Skipping ${piece.tests}: ${missing(piece)}`));
    expect(stderr).toBe('');
    expect(status).toBe(0);
  });

  it('fails under CI=true with one line naming each', async ({ expect }) => {
    const { status, stdout, stderr } = await ensurePrerequisites({ ...hidden, CI: 'true' });
    expect(lines(stderr)).toEqual(PIECES.map((piece) => `✗ CI=true needs ${piece.tests}: ${missing(piece)}`));
    expect(stdout).toBe('');
    expect(status).toBe(1);
  });

  it('refuses an ONRAMP_TEST_INSTALL it does not know, rather than install', async ({ expect }) => {
    const { status, stderr } = await ensurePrerequisites({ ONRAMP_TEST_INSTALL: 'no' });
    expect(lines(stderr)).toEqual(['✗ ONRAMP_TEST_INSTALL is `never` or unset, not `no`']);
    expect(status).toBe(1);
  });
});

describe.concurrent('a test run with Chromium, PostgreSQL, Redis and haproxy hidden', () => {
  // The project's tags and reporter, on a test that needs each piece and a file that launches Chromium before its test.
  const testRun = (settings: Record<string, string>) => run([VITEST, 'run', '--config', join('tests', 'cli', 'prerequisites', 'vitest.config.ts')], settings);

  it('skips what needs them, ends green, and says what it skipped and why just above the totals', async ({ expect }) => {
    const { status, stdout } = await testRun(hidden);
    const closing = lines(stdout).slice(-8);
    expect(closing.slice(0, 4)).toEqual([
      `↓ Skipped the tests in Chromium (2 tests): ${missing(PIECES[0]!)}`,
      `↓ Skipped the DATABASE_URL tests (1 test): ${missing(PIECES[1]!)}`,
      `↓ Skipped the REDIS_URL tests (1 test): ${missing(PIECES[2]!)}`,
      `↓ Skipped the rolling restart behind a load balancer (1 test): ${missing(PIECES[3]!)}`,
    ]);
    expect(closing.slice(4).map((line) => line.trim())).toEqual([
      'Test Files  2 skipped (2)',
      'Tests  5 skipped (5)',
      expect.stringMatching(/^Start at /),
      expect.stringMatching(/^Duration /),
    ]);
    expect(status).toBe(0);
  });

  it('fails under CI=true, naming each missing piece', async ({ expect }) => {
    const { status, stdout } = await testRun({ ...hidden, CI: 'true' });
    for (const piece of PIECES) expect(lines(stdout)).toContain(`✗ CI=true needs ${piece.tests}: ${missing(piece)}`);
    expect(lines(stdout).at(-3)?.trim()).toBe('Tests  4 failed | 1 skipped (5)');
    expect(status).toBe(1);
  });
});
