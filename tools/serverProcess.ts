/**
 * The built server (build/server/main.mjs) in a process of its own, as an operator runs it: for
 * the tests of more than one instance and of production starts, and for the bench's memory figure.
 * Its address comes from its own "running at" line; its output is kept for the caller to read.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../src/node/projectFiles.js';
import { seedPglite } from './pgliteTemplate.js';
import { scaled } from '../tests/support/machineSpeed.js';

export interface ServerProcess {
  /** http://127.0.0.1:<port> */
  url: string;
  pid: number;
  output(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * `root`: the folder the server runs in (a production install of its own, say); the project by default.
 * `timeoutMs` is of an idle machine, scaled to its load (machineSpeed.ts).
 */
export async function startServerProcess(env: Record<string, string>, timeoutMs = 30_000, root = PROJECT_ROOT): Promise<ServerProcess> {
  const server = join(root, 'build', 'server', 'main.mjs');
  const tracing = join(root, 'build', 'server', 'tracing.mjs');
  if (!existsSync(server)) throw new Error(`${server} is missing: run \`npm run build\` first (npm test does).`);
  // A new data folder's embedded database, migrated already (pgliteTemplate.ts).
  if (env.DATA_DIR && !env.DATABASE_URL) await seedPglite(join(env.DATA_DIR, 'pglite'));
  // As `npm run start:prod` starts it: traces, when the environment asks for them, load first.
  const child: ChildProcess = spawn(process.execPath, ['--import', pathToFileURL(tracing).href, server], {
    cwd: root,
    // MALLOC_ARENA_MAX as `npm run start:prod` sets it: glibc's per-thread arenas would otherwise
    // keep what libvips freed after decoding photos (sharp's and imgproxy's advice).
    // No grace on SIGTERM unless asked for: there is no balancer to wait for (shutdown.ts).
    // The caller's Auth emulator (a test run's own, tests/globalSetup.ts), unless in production.
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'warn',
      MALLOC_ARENA_MAX: '2',
      SHUTDOWN_GRACE_MS: '0',
      ...(process.env.FIREBASE_AUTH_EMULATOR_HOST && env.NODE_ENV !== 'production'
        ? { FIREBASE_AUTH_EMULATOR_HOST: process.env.FIREBASE_AUTH_EMULATOR_HOST }
        : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const limit = scaled(timeoutMs);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`The server did not start within ${limit} ms:\n${output}`));
    }, limit);
    const watch = () => {
      const address = /Onramp is running at (\S+)/.exec(output)?.[1];
      if (!address) return;
      clearTimeout(timer);
      child.stdout!.off('data', watch);
      resolve({
        url: address,
        pid: child.pid!,
        output: () => output,
        async stop() {
          child.kill('SIGTERM');
          return exited;
        },
      });
    };
    child.stdout!.on('data', watch);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`The server exited with ${code} before it started:\n${output}`));
    });
  });
}
