// A content folder (ONRAMP_CONTENT_DIR) run as operations staff run theirs: `npm start` on a fresh
// copy of the project (no dist/, no build/) builds the folder's app and serves that build, with
// the field they added; a production server given the folder serves the same build.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_FOLDERS, PROJECT_ROOT } from '../../src/node/projectFiles.js';
import { runningPostgres } from '../../tools/postgres.js';
import { startServerProcess } from '../../tools/serverProcess.js';
import { authEmulatorReady } from '../support/identity.js';
import { productionEnv } from '../support/production.js';
import { scaled } from '../support/machineSpeed.js';

/** What a fresh clone lacks: what builds, starts and installs make. */
const NOT_IN_A_CLONE = new Set(['node_modules', 'dist', 'build', '.data', '.git']);

/** The field operations staff add to the sign-up. */
const ADDED_FIELD = { id: 'root_fleetName', title: 'Fleet name (optional)' };

let folder: string;
let project: string;
let content: string;

function edit(file: string, replace: string, by: string): void {
  const text = readFileSync(file, 'utf8');
  expect(text).toContain(replace);
  writeFileSync(file, text.replace(replace, by));
}

/** `npm start` in the copy until it says where it runs; its address, and a stop that ends it and what it started. */
async function npmStart(env: Record<string, string>): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn('npm', ['start'], {
    cwd: project,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', ...env },
    // Its own process group: npm, the build, tsx and the server stop together.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.pid !== undefined) {
      process.kill(-child.pid, 'SIGTERM');
      await exited;
    }
  };
  const deadline = Date.now() + 240_000;
  for (;;) {
    const url = /Onramp is running at (\S+)/.exec(output)?.[1];
    if (url) return { url, stop };
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`npm start did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The sign-up page as a driver's browser asks for it: its status and what it shows. */
async function signupPage(url: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${url}/signup`, { headers: { accept: 'text/html' } });
  return { status: response.status, body: await response.text() };
}

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'onramp-clone-'));
  project = join(folder, 'project');
  content = join(folder, 'content');
  cpSync(PROJECT_ROOT, project, { recursive: true, filter: (path) => !NOT_IN_A_CLONE.has(relative(PROJECT_ROOT, path).split('/')[0] ?? '') });
  // The packages as `npm ci` would install them, without installing them again.
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(project, 'node_modules'));
  for (const path of CONTENT_FOLDERS) cpSync(join(PROJECT_ROOT, path), join(content, path), { recursive: true });
  edit(
    join(content, 'schemas', 'signup.schema.json'),
    '"referalCode": { "$ref": "common.schema.json#/$defs/referralCode" },',
    '"referalCode": { "$ref": "common.schema.json#/$defs/referralCode" }, "fleetName": { "type": "string", "maxLength": 60 },',
  );
  edit(join(content, 'schemas', 'signup.ui.json'), '"referalCode",', `"referalCode", "fleetName",`);
  edit(join(content, 'schemas', 'signup.ui.json'), '"email": {', `"fleetName": { "ui:title": "${ADDED_FIELD.title}" },\n  "email": {`);
  // `npm start` uses the emulator the tests share rather than start one.
  await authEmulatorReady();
});

afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('a content folder', () => {
  it('is built and served by `npm start` on a fresh copy of the project, with the field operations staff added', { timeout: scaled(300_000) }, async () => {
    const server = await npmStart({ ONRAMP_CONTENT_DIR: content, DATA_DIR: join(folder, 'data') });
    try {
      const page = await signupPage(server.url);
      expect(page.status).toBe(200);
      expect(page.body).toContain(`id="${ADDED_FIELD.id}"`);
      expect(page.body).toContain(ADDED_FIELD.title);
    } finally {
      await server.stop();
    }
  });

  // The build `npm start` made above, served as `npm run start:prod` serves it.
  it('is served by a production server from its own build', { tags: ['postgresql'], timeout: scaled(120_000) }, async () => {
    const postgres = await runningPostgres();
    try {
      const server = await startServerProcess(
        { ...productionEnv(join(folder, 'production')), DATABASE_URL: postgres.url, ONRAMP_CONTENT_DIR: content },
        scaled(90_000),
        project,
      );
      try {
        const page = await signupPage(server.url);
        expect(page.status).toBe(200);
        expect(page.body).toContain(`id="${ADDED_FIELD.id}"`);
      } finally {
        await server.stop();
      }
    } finally {
      postgres.remove();
    }
  });
});
