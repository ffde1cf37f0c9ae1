/**
 * A throwaway PostgreSQL server, for the tests and for `npm run bench`: Debian's binaries (`npm
 * test` installs the postgresql package where it can), a cluster in a temporary folder, one free
 * port. The tests can stop it, start it again and freeze it, as a failing database would.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { freePort } from '../src/node/freePort.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** Where Debian's postgresql package puts each version's programs: <root>/<version>/bin. */
export const DEBIAN_POSTGRES_ROOT = '/usr/lib/postgresql';

/**
 * The bin folder of PostgreSQL: POSTGRES_BIN_DIR, or that of a version Debian installed; undefined
 * when it holds no initdb (the tests that need PostgreSQL are then skipped: tests/support/prerequisites.ts).
 */
export function findPostgresBinDir(): string | undefined {
  const candidates = process.env.POSTGRES_BIN_DIR
    ? [process.env.POSTGRES_BIN_DIR]
    : existsSync(DEBIAN_POSTGRES_ROOT)
      ? readdirSync(DEBIAN_POSTGRES_ROOT).map((version) => join(DEBIAN_POSTGRES_ROOT, version, 'bin'))
      : [];
  return candidates.find((dir) => existsSync(join(dir, 'initdb')));
}

export const postgresBinDir = findPostgresBinDir();

/** PostgreSQL refuses to run as root; as root, its tools run as the postgres user. */
function pgCommand(tool: string, args: string[]): [string, string[]] {
  // Hidden or missing (POSTGRES_BIN_DIR=/nonexistent), PostgreSQL is missing: a tool found on PATH instead would
  // run the tests that CI=true must fail, and skip nothing a run without CI=true skips.
  if (postgresBinDir === undefined)
    throw new Error(`PostgreSQL is missing: no initdb in ${process.env.POSTGRES_BIN_DIR ?? `${DEBIAN_POSTGRES_ROOT}/<version>/bin`}`);
  const path = join(postgresBinDir, tool);
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
}

function pgTool(tool: string, args: string[]): void {
  execFileSync(...pgCommand(tool, args), { stdio: 'pipe' });
}

/** The same, without blocking the event loop (vitest's main process starts a cluster while it runs). */
async function pgToolAsync(tool: string, args: string[]): Promise<void> {
  await promisify(execFile)(...pgCommand(tool, args));
}

export interface TestPostgres {
  /** postgres://onramp@127.0.0.1:<port>/postgres */
  url: string;
  start(): void;
  /** A fast shutdown: every connection is ended, as in a restart or a failover. */
  stop(): void;
  /** Every process of the server frozen (SIGSTOP): connections stay open and nothing answers. */
  freeze(): void;
  thaw(): void;
  /** Stops the server and removes its folder. */
  remove(): void;
  /** pg_dump's archive of the database (its custom format), as an operator backs one up. */
  dump(): Buffer;
  /** pg_restore of such an archive into the database, which must be empty. */
  restore(archive: Buffer): void;
}

/** A new PostgreSQL cluster, running on a free port. */
export async function runningPostgres(): Promise<TestPostgres> {
  const launched = await launchPostgres();
  await launched.ready;
  return launched;
}

/** A new PostgreSQL cluster on a free port, its URL known at once; `ready` settles once it runs. */
export async function launchPostgres(): Promise<TestPostgres & { ready: Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'onramp-pg-'));
  chmodSync(dataDir, 0o700);
  if (process.getuid?.() === 0) {
    const idOf = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString());
    chownSync(dataDir, idOf('-u'), idOf('-g'));
  }
  const port = await freePort();
  const startArgs = [
    '-D',
    dataDir,
    '-w',
    '-l',
    join(dataDir, 'server.log'),
    '-o',
    `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1 -c fsync=off`,
    'start',
  ];
  const start = () => pgTool('pg_ctl', startArgs);
  /** The postmaster and its children: the processes to freeze. */
  const processes = () => {
    const postmaster = readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]!.trim();
    const children = execFileSync('pgrep', ['-P', postmaster]).toString().split('\n').filter(Boolean);
    return [postmaster, ...children];
  };
  const ready = (async () => {
    await pgToolAsync('initdb', ['-D', dataDir, '-U', 'onramp', '-A', 'trust', '--no-sync']);
    await pgToolAsync('pg_ctl', startArgs);
  })();
  const url = `postgres://onramp@127.0.0.1:${port}/postgres`;
  /** An archive passes through the tool's standard input or output, whatever its size. */
  const pgPipe = (tool: string, args: string[], input?: Buffer) => execFileSync(...pgCommand(tool, args), { input, maxBuffer: 1 << 30 });
  return {
    url,
    ready,
    start,
    stop: () => pgTool('pg_ctl', ['-D', dataDir, '-w', '-m', 'fast', 'stop']),
    dump: () => pgPipe('pg_dump', ['--format=custom', `--dbname=${url}`]),
    restore: (archive) => void pgPipe('pg_restore', ['--exit-on-error', `--dbname=${url}`], archive),
    freeze: () => execFileSync('kill', ['-STOP', ...processes()]),
    thaw: () => execFileSync('kill', ['-CONT', ...processes()]),
    remove() {
      try {
        pgTool('pg_ctl', ['-D', dataDir, '-m', 'immediate', 'stop']);
      } catch {
        // Already stopped.
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}
