/**
 * `npm run dev` (src/cli/start.ts --watch) as a child process on a copy of the project's
 * schemas/ and flows/ (ONRAMP_CONTENT_DIR), so the tests and the bench can edit them; with its own data folder,
 * a free port, and everything it printed.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Page } from 'playwright-core';
import { CONTENT_FOLDERS, PROJECT_ROOT } from '../src/node/projectFiles.js';
import { seedPglite } from './pgliteTemplate.js';
import { scaled } from '../tests/support/machineSpeed.js';

export interface DevServer {
  baseUrl: string;
  /** The copy being served: edit root/schemas/… and root/flows/…. */
  root: string;
  /** Everything printed so far, stdout and stderr. */
  output(): string;
  /** Waits until the output (from `from` on) matches; returns the match. `timeoutMs` of an idle machine, scaled to its load (machineSpeed.ts). */
  waitForOutput(pattern: RegExp, from?: number, timeoutMs?: number): Promise<RegExpMatchArray>;
  close(): Promise<void>;
}

/** `files`: more files for the copy, by path inside it (e.g. fixtures). */
export async function startDevServer(files: Record<string, unknown> = {}): Promise<DevServer> {
  const root = await mkdtemp(join(tmpdir(), 'onramp-dev-'));
  for (const folder of CONTENT_FOLDERS) await cp(join(PROJECT_ROOT, folder), join(root, folder), { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), JSON.stringify(content, null, 2));
  }
  // Its data folder's embedded database, migrated already (pgliteTemplate.ts).
  await seedPglite(join(root, '.data', 'pglite'));
  const child = spawn(join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx'), ['src/cli/start.ts', '--watch'], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      ONRAMP_CONTENT_DIR: root,
      DATA_DIR: join(root, '.data'),
      DATA_KEY: randomBytes(32).toString('base64'),
      PORT: '0',
      LOG_LEVEL: 'warn',
    },
    // Its own process group, so closing ends tsx's child too.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  child.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  async function waitForOutput(pattern: RegExp, from = 0, timeoutMs = 10_000): Promise<RegExpMatchArray> {
    const limit = scaled(timeoutMs);
    const deadline = Date.now() + limit;
    for (;;) {
      const match = printed.slice(from).match(pattern);
      if (match) return match;
      if (child.exitCode !== null) throw new Error(`npm run dev exited (${child.exitCode}):\n${printed}`);
      if (Date.now() > deadline) throw new Error(`npm run dev did not print ${pattern} within ${limit} ms:\n${printed.slice(from)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  const close = async () => {
    if (child.exitCode === null && child.pid !== undefined) {
      process.kill(-child.pid, 'SIGTERM');
      await exited;
    }
    await rm(root, { recursive: true, force: true });
  };

  try {
    // Loading the code and bundling the app: allow for a busy machine.
    const running = await waitForOutput(/Onramp is running at (http:\/\/\S+)/, 0, 90_000);
    await waitForOutput(/Watching schemas\//, 0, 10_000);
    return { baseUrl: running[1] ?? '', root, output: () => printed, waitForOutput, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Milliseconds from `edit()` until `page`, reloaded by the dev server, shows `message` for the
 * empty sign-up's email after Sign Up. Each try runs in the page; the old page is told apart by a mark.
 */
export async function msUntilReloadedPageShows(page: Page, message: string, edit: () => Promise<void>, timeoutMs = 10_000): Promise<number> {
  await page.evaluate(() => Object.assign(window, { beforeEdit: true }));
  const started = performance.now();
  await edit();
  const limit = scaled(timeoutMs);
  while (performance.now() - started < limit) {
    const shown = await page
      .evaluate((expected) => {
        if ('beforeEdit' in window) return false;
        document.querySelector<HTMLButtonElement>('button[type="submit"]')?.click();
        return document.getElementById('root_email__error')?.textContent === expected;
      }, message)
      .catch(() => false); // the page is being reloaded
    if (shown) return Math.round(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`The page did not show "${message}" within ${limit} ms of the edit`);
}
