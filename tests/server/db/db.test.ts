import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, openDb } from '../../../src/server/db/db.js';

const scratch = mkdtempSync(join(tmpdir(), 'onramp-migrate-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('migrate', () => {
  it('runs a migration of several statements and comment lines, once', async () => {
    const dir = join(scratch, 'statements');
    mkdirSync(dir);
    writeFileSync(join(dir, '001.do.a_table.sql'), '-- a table\nCREATE TABLE a (x int);\n\nCREATE INDEX i ON a (x);\n');
    const db = await openDb({ kind: 'pglite', dir: null });
    try {
      await db.exec('DROP SCHEMA public CASCADE; CREATE SCHEMA public;');
      expect(await migrate(db, dir)).toEqual(['001.do.a_table.sql']);
      expect(await migrate(db, dir)).toEqual([]);
      expect((await db.query("SELECT indexname FROM pg_indexes WHERE tablename = 'a'")).rows).toEqual([{ indexname: 'i' }]);
    } finally {
      await db.close();
    }
  });
});

describe('migration 003 (resume tokens)', () => {
  it('makes every existing session a normal one, and takes only the two kinds', async () => {
    const source = join(import.meta.dirname, '../../../src/server/db/migrations');
    const dir = join(scratch, 'migrations');
    mkdirSync(dir);
    for (const name of ['001.do.onboarding.sql', '002.do.admin_review.sql']) copyFileSync(join(source, name), join(dir, name));
    const db = await openDb({ kind: 'pglite', dir: null });
    try {
      // openDb ran all of them; start over on a fresh schema with the first two only.
      await db.exec('DROP SCHEMA public CASCADE; CREATE SCHEMA public;');
      expect(await migrate(db, dir)).toEqual(['001.do.onboarding.sql', '002.do.admin_review.sql']);
      const { rows } = await db.query<{ id: string }>(
        "INSERT INTO drivers (email, firebase_uid, provider) VALUES ('a@example.com', 'uid-a', 'password') RETURNING id",
      );
      await db.query("INSERT INTO sessions (token_hash, driver_id, created_at, expires_at) VALUES ('h1', $1, now(), now() + interval '1 day')", [rows[0]!.id]);
      copyFileSync(join(source, '003.do.resume_tokens.sql'), join(dir, '003.do.resume_tokens.sql'));
      expect(await migrate(db, dir)).toEqual(['003.do.resume_tokens.sql']);
      expect((await db.query('SELECT token_hash, kind FROM sessions')).rows).toEqual([{ token_hash: 'h1', kind: 'session' }]);
      await expect(
        db.query("INSERT INTO sessions (token_hash, driver_id, created_at, expires_at, kind) VALUES ('h2', $1, now(), now(), 'admin')", [rows[0]!.id]),
      ).rejects.toThrow();
    } finally {
      await db.close();
    }
  });
});
