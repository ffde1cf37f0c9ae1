// db.withLock: one holder at a time for a name, on the embedded database and on PostgreSQL (as
// two servers would hold it: two connections to one database).
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { LockBusy, openDb, openPglite, type Db } from '../../../src/server/db/db.js';
import { scaled } from '../../support/machineSpeed.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

function lockBehaviour(open: () => Promise<Db[]>) {
  let servers: Db[] = [];
  beforeAll(async () => {
    servers = await open();
  });
  afterAll(async () => {
    await Promise.all(servers.map((db) => db.close()));
  });
  const on = (index: number) => servers[index % servers.length]!;

  it('runs the work of one name one at a time, in the order asked', async () => {
    const seen: string[] = [];
    const holder = (index: number) =>
      on(index).withLock('lock-test:order', 5_000, async () => {
        seen.push(`start ${index}`);
        await tick();
        seen.push(`end ${index}`);
        return index;
      });
    const first = holder(0);
    // Asked once the first holds it (a fixed wait lost the race on a loaded machine).
    await vi.waitFor(() => expect(seen).toContain('start 0'), { timeout: scaled(5_000) });
    expect(await Promise.all([first, holder(1)])).toEqual([0, 1]);
    expect(seen).toEqual(['start 0', 'end 0', 'start 1', 'end 1']);
  });

  it('lets two names be held at once', async () => {
    let inside = 0;
    let most = 0;
    const holder = (name: string, index: number) =>
      on(index).withLock(name, 5_000, async () => {
        most = Math.max(most, ++inside);
        await tick();
        inside--;
      });
    await Promise.all([holder('lock-test:a', 0), holder('lock-test:b', 1)]);
    expect(most).toBe(2);
  });

  it('gives up with LockBusy after the wait, and the name is free again once its holder ends', async () => {
    let release: (() => void) | undefined;
    const held = on(0).withLock('lock-test:busy', 5_000, () => new Promise<void>((resolve) => (release = resolve)));
    // Once the first holds it: after a fixed wait, a loaded machine could let the second take it
    // first, and the first then held it, never released, so the database's close waited forever.
    await vi.waitFor(() => expect(release).toBeDefined(), { timeout: scaled(5_000) });
    await expect(on(1).withLock('lock-test:busy', 100, async () => 'taken')).rejects.toBeInstanceOf(LockBusy);
    release?.();
    await held;
    expect(await on(1).withLock('lock-test:busy', 100, async () => 'taken')).toBe('taken');
  });

  it('frees the name when the work throws', async () => {
    await expect(on(0).withLock('lock-test:throws', 1_000, async () => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    expect(await on(1).withLock('lock-test:throws', 100, async () => 'taken')).toBe('taken');
  });
}

describe('on the embedded database (one process)', () => {
  lockBehaviour(async () => [await openPglite(null)]);
});

describe('on PostgreSQL, across two servers', { tags: ['postgresql'] }, () => {
  const url = inject('postgresUrl');
  if (!url) return;
  const name = `onramp_locks_${randomBytes(6).toString('hex')}`;
  lockBehaviour(async () => {
    const admin = new pg.Client(url);
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const database = { kind: 'postgres', url: `${url.replace(/\/postgres$/, '')}/${name}` } as const;
    return Promise.all([openDb(database), openDb(database)]);
  });
});
