// `npm run start:prod` as an operator runs it: the built server (build/server/main.mjs) with plain
// node, NODE_ENV=production, no emulator. It refuses to start, in one clear line, without what
// production needs; with it, it makes its folders under DATA_DIR and answers the health checks.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/node/projectFiles.js';
import { installProduction } from '../../tools/productionInstall.js';
import { runningPostgres, type TestPostgres } from '../../tools/postgres.js';
import { freePort } from '../../src/node/freePort.js';
import { startServerProcess } from '../../tools/serverProcess.js';
import { productionEnv } from '../support/production.js';
import { scaled } from '../support/machineSpeed.js';

const SERVER = join(PROJECT_ROOT, 'build', 'server', 'main.mjs');

interface Run {
  code: number | null;
  out: string;
  err: string;
}

/** Runs the built server until it exits, or until `until` sees its output (then `stop` decides what to do). */
function runServer(env: Record<string, string>, until?: (out: string) => boolean, stop?: (out: string) => Promise<void>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVER], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let stopping = false;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (until?.(out) && !stopping) {
        stopping = true;
        stop!(out).then(
          () => child.kill('SIGTERM'),
          (error: unknown) => {
            child.kill('SIGKILL');
            reject(error);
          },
        );
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

describe('npm run start:prod', () => {
  let dataDir: string;
  beforeAll(() => {
    if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: run \`npm run build\` first (npm test does).`);
    dataDir = mkdtempSync(join(tmpdir(), 'onramp-prod-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  // Each other missing setting is refused the same way, by the same check: tests/server/config.test.ts (readConfig).
  it('refuses to start without DATA_KEY, in one line, and writes nothing', async () => {
    const home = join(dataDir, 'without-DATA_KEY');
    const env: Record<string, string> = { ...productionEnv(home), DATABASE_URL: 'postgres://onramp@127.0.0.1:1/onramp' };
    delete env.DATA_KEY;
    const run = await runServer(env);
    expect(run.code).toBe(1);
    expect(run.err.trim().split('\n')).toHaveLength(1);
    expect(run.err).toMatch(/^Onramp cannot start: DATA_KEY is required in production/);
    expect(existsSync(home)).toBe(false);
  });

  it('says in one line that the database cannot be reached, without its password, and exits 1', async () => {
    const port = await freePort();
    const run = await runServer({ ...productionEnv(join(dataDir, 'no-db')), DATABASE_URL: `postgres://onramp:s3cret@127.0.0.1:${port}/onramp` });
    expect(run.code).toBe(1);
    expect(run.err.trim()).toBe(
      `Onramp cannot start: the database at postgres://onramp:***@127.0.0.1:${port}/onramp cannot be reached (connect ECONNREFUSED 127.0.0.1:${port}).`,
    );
    expect(run.out + run.err).not.toContain('s3cret');
  });

  describe('with PostgreSQL', { tags: ['postgresql'] }, () => {
    let postgres: TestPostgres;
    beforeAll(async () => {
      postgres = await runningPostgres();
    });
    afterAll(() => postgres?.remove());

    it('starts, makes its folders under DATA_DIR, answers /healthz and /readyz, serves no local stand-ins, and stops on SIGTERM', async () => {
      const home = join(dataDir, 'running');
      const answers: Record<string, number> = {};
      const run = await runServer(
        { ...productionEnv(home), DATABASE_URL: postgres.url },
        (out) => out.includes('Onramp is running at'),
        async (out) => {
          const base = /Onramp is running at (\S+)/.exec(out)![1]!;
          for (const path of ['/healthz', '/readyz', '/dev/outbox', '/sandbox/confirmPayment']) answers[path] = (await fetch(`${base}${path}`)).status;
        },
      );
      expect(run.code).toBe(0);
      expect(answers).toEqual({ '/healthz': 200, '/readyz': 200, '/dev/outbox': 404, '/sandbox/confirmPayment': 404 });
      // Its folders for documents and for uploads on their way, and no generated secret:
      // production's come from the environment.
      expect(readdirSync(home).sort()).toEqual(['scratch', 'uploads']);
      // No ready-made owner in production: staff are added with `npm run admin -- staff add`.
      expect(run.out).not.toContain('Staff:');
    });

    it(
      'runs from an install without dev dependencies, and answers /readyz',
      async () => {
        const target = join(dataDir, 'install');
        const installed = installProduction(target);
        // The emulator, the build tools and the browser's packages are not there.
        for (const devOnly of ['firebase-tools', 'esbuild', 'react', '@rjsf/core', 'tsx', '@electric-sql/pglite', 'vitest']) {
          expect(existsSync(join(target, 'node_modules', devOnly)), devOnly).toBe(false);
        }
        // Traces (OpenTelemetry's trace SDK, its OTLP exporter, three instrumentations) are 32 of them.
        expect(installed.packages).toBeLessThan(520);
        const server = await startServerProcess(
          { ...productionEnv(join(target, 'data')), DATABASE_URL: postgres.url, NODE_ENV: 'production' },
          scaled(30_000),
          target,
        );
        try {
          expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
        } finally {
          expect(await server.stop()).toBe(0);
        }
      },
      scaled(120_000),
    );
  });
});
