/**
 * A throwaway PostgreSQL server for the tests of the DATABASE_URL path: Debian's binaries
 * (.ci/run installs the postgresql package), a cluster in a temporary folder, one free port. The
 * tests can stop it, start it again and freeze it, as a failing database would.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PG_ROOT = '/usr/lib/postgresql';
/** The bin folder of the installed PostgreSQL, or undefined when there is none (the tests are then skipped). */
export const postgresBinDir = existsSync(PG_ROOT)
  ? readdirSync(PG_ROOT)
      .map((version) => join(PG_ROOT, version, 'bin'))
      .find((dir) => existsSync(join(dir, 'initdb')))
  : undefined;

/** PostgreSQL refuses to run as root; as root, run its tools as the postgres user. */
function pgTool(tool: string, args: string[]): void {
  const path = join(postgresBinDir ?? '', tool);
  if (process.getuid?.() === 0) execFileSync('runuser', ['-u', 'postgres', '--', path, ...args], { stdio: 'pipe' });
  else execFileSync(path, args, { stdio: 'pipe' });
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
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
}

/** A new PostgreSQL cluster, running on a free port. */
export async function runningPostgres(): Promise<TestPostgres> {
  const dataDir = mkdtempSync(join(tmpdir(), 'onramp-pg-'));
  chmodSync(dataDir, 0o700);
  if (process.getuid?.() === 0) {
    const idOf = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString());
    chownSync(dataDir, idOf('-u'), idOf('-g'));
  }
  const port = await freePort();
  const start = () =>
    pgTool('pg_ctl', [
      '-D',
      dataDir,
      '-w',
      '-l',
      join(dataDir, 'server.log'),
      '-o',
      `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      'start',
    ]);
  /** The postmaster and its children: the processes to freeze. */
  const processes = () => {
    const postmaster = readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]!.trim();
    const children = execFileSync('pgrep', ['-P', postmaster]).toString().split('\n').filter(Boolean);
    return [postmaster, ...children];
  };
  pgTool('initdb', ['-D', dataDir, '-U', 'onramp', '-A', 'trust', '--no-sync']);
  start();
  return {
    url: `postgres://onramp@127.0.0.1:${port}/postgres`,
    start,
    stop: () => pgTool('pg_ctl', ['-D', dataDir, '-w', '-m', 'fast', 'stop']),
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
