/**
 * A throwaway Redis server (Debian's redis-server; `npm test` installs it where it can) on a free
 * port, with nothing written to disk, for the tests of counters kept in Redis.
 */
import { spawn } from 'node:child_process';
import { freePort } from '../../src/node/freePort.js';

/** Where Debian's redis-server package puts the server. */
export const DEBIAN_REDIS_SERVER = '/usr/bin/redis-server';
/** The server the tests start: REDIS_SERVER, or Debian's. */
export const REDIS_SERVER = process.env.REDIS_SERVER || DEBIAN_REDIS_SERVER;

export async function startRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 15_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}:\n${output}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
