// The production database path: the same migrations and queries on a real PostgreSQL server
// (DATABASE_URL), started here in a temporary folder. .ci/run installs Debian's postgresql;
// where its binaries are missing the test says so and is skipped.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, completeProfile, json, signIn, startTestServer, verifyPhone, type TestServer } from '../support/server.js';

const PG_ROOT = '/usr/lib/postgresql';
const binDir = existsSync(PG_ROOT)
  ? readdirSync(PG_ROOT)
      .map((version) => join(PG_ROOT, version, 'bin'))
      .find((dir) => existsSync(join(dir, 'initdb')))
  : undefined;

/** PostgreSQL refuses to run as root; as root, run its tools as the postgres user. */
function pgTool(tool: string, args: string[]): void {
  const path = join(binDir ?? '', tool);
  if (process.getuid?.() === 0) execFileSync('runuser', ['-u', 'postgres', '--', path, ...args], { stdio: 'pipe' });
  else execFileSync(path, args, { stdio: 'pipe' });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe.skipIf(!binDir)('with DATABASE_URL (PostgreSQL)', () => {
  let dataDir: string;
  let server: TestServer;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'onramp-pg-'));
    chmodSync(dataDir, 0o700);
    if (process.getuid?.() === 0) {
      const idOf = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString());
      chownSync(dataDir, idOf('-u'), idOf('-g'));
    }
    const port = await freePort();
    pgTool('initdb', ['-D', dataDir, '-U', 'onramp', '-A', 'trust', '--no-sync']);
    pgTool('pg_ctl', ['-D', dataDir, '-w', '-l', join(dataDir, 'server.log'), '-o', `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1 -c fsync=off`, 'start']);
    server = await startTestServer({ database: { kind: 'postgres', url: `postgres://onramp@127.0.0.1:${port}/postgres` } });
  });

  afterAll(async () => {
    await server?.close();
    if (dataDir) {
      try {
        pgTool('pg_ctl', ['-D', dataDir, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  });

  it('runs the migrations and walks a driver from sign-up to a saved profile', async () => {
    const driver = await signIn(server.app);
    await verifyPhone(server.app, driver);
    await completeProfile(server.app, driver);
    const status = await server.app.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(driver.token) });
    expect(json(status)).toEqual({ data: { status: 'pending', isSessionComplete: false, isSubscriptionPaid: false } });
    const row = await server.db.query<{ ssn_ciphertext: string | null; ssn_last4: string }>('select ssn_ciphertext, ssn_last4 from drivers where id = $1', [driver.driverId]);
    expect(row.rows[0]?.ssn_last4).toBe('6789');
    expect(String(row.rows[0]?.ssn_ciphertext)).not.toContain('123456789');
  });

  it('exchanges a resume link once, even for concurrent requests (the DELETE waits for the other transaction)', async () => {
    const driver = await signIn(server.app);
    for (let round = 0; round < 3; round++) {
      const link = await server.app.inject({
        method: 'POST',
        url: `/admin/drivers/${driver.driverId}/resume-link`,
        headers: bearer(server.config.adminToken),
      });
      expect(link.statusCode, link.body).toBe(200);
      const token = decodeURIComponent(json<{ url: string }>(link).url.split('/').pop()!);
      const use = () => server.app.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(token) });
      const responses = await Promise.all([use(), use(), use()]);
      expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 401, 401]);
      const winner = json<{ data: unknown; token: string }>(responses.find((response) => response.statusCode === 200)!);
      expect(winner).toEqual({ data: { status: 'pending', isSessionComplete: false, isSubscriptionPaid: false }, token: expect.any(String) });
      const session = await server.app.inject({ method: 'GET', url: `/driver/status/${driver.driverId}`, headers: bearer(winner.token) });
      expect(json(session)).toEqual({ data: winner.data });
    }
  });
});
