// The ready-made local owner `npm start` prints, with two local servers on the one Auth emulator
// (two clones, or a test's server beside a developer's): each data folder has its own owner, and
// the owner a server printed can still sign in once another server started.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StaffSession } from '../../src/shared/review.js';
import { startServerProcess, type ServerProcess } from '../../tools/serverProcess.js';
import { authEmulatorReady, signInEmulatorUser } from '../support/identity.js';
import { scaled } from '../support/machineSpeed.js';

let folder: string;
const servers: ServerProcess[] = [];
/** What each server printed, in the order they started. */
const owners: { email: string; password: string }[] = [];

/**
 * The owner a server prints once it made them, after it says where it runs: "Staff: sign in at
 * <address>/admin as <email>, password <password> (…)".
 */
async function printedOwner(server: ServerProcess): Promise<{ email: string; password: string }> {
  const deadline = Date.now() + scaled(30_000);
  for (;;) {
    const printed = /Staff: sign in at \S+\/admin as (\S+), password (\S+) \(a local owner with every role\)\./.exec(server.output());
    if (printed) return { email: printed[1] ?? '', password: printed[2] ?? '' };
    if (Date.now() > deadline) throw new Error(`The server printed no owner:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'onramp-owners-'));
  await authEmulatorReady();
  // One after the other, each with a fresh data folder: the second sets its owner's password once the first printed its own.
  for (const name of ['first', 'second']) {
    const server = await startServerProcess({ DATA_DIR: join(folder, name), STATIC_DIR: join(folder, 'no-web-app') }, scaled(90_000));
    servers.push(server);
    owners.push(await printedOwner(server));
  }
}, scaled(240_000));

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  rmSync(folder, { recursive: true, force: true });
});

describe('two local servers with their own data folders, on one Auth emulator', () => {
  it('each print an owner of their own who can sign in to it', async () => {
    for (const [index, server] of servers.entries()) {
      const { email, password } = owners[index]!;
      const idToken = await signInEmulatorUser(email, password);
      const response = await fetch(`${server.url}/admin/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ idToken }),
      });
      expect(response.status).toBe(200);
      const session = (await response.json()) as StaffSession;
      expect({ email: session.email, roles: session.roles }).toEqual({ email, roles: ['reviewer', 'privacy-officer', 'owner'] });
    }
  });
});
