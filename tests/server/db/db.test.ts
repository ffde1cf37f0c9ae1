import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMENT_AMENDMENTS, migrate, openDb, openPglite } from '../../../src/server/db/db.js';
import { endOfDayRange } from '../../../src/server/lib/insights.js';

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

describe('a range of days on the embedded database', () => {
  it('ends after 9999-12-31 at the last moment it can write (the next day, year 10000, it refuses)', async () => {
    const db = await openDb({ kind: 'pglite', dir: null });
    try {
      const end = endOfDayRange('9999-12-31');
      expect(end.toISOString()).toBe('9999-12-31T23:59:59.999Z');
      expect((await db.query<{ after: boolean }>("SELECT $1::timestamptz > '9999-12-31' AS after", [end])).rows).toEqual([{ after: true }]);
      expect(endOfDayRange('2026-01-31').toISOString()).toBe('2026-02-01T00:00:00.000Z');
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

describe('migrations edited in their comments only', () => {
  const source = join(import.meta.dirname, '../../../src/server/db/migrations');
  const STAFF = '010.do.staff_and_audit.sql';
  const staffNow = readFileSync(join(source, STAFF), 'utf8');
  /** Migration 010 as the databases that ran it before its first line was amended read it. */
  const staffFirstWritten = staffNow.replace(/^[^\n]*/, '-- Staff accounts, roles, sessions, keys, queue claims and the audit record (issue 28; DESIGN §7).');
  /** The migrations folder with `edits` (file name to text) in place of the files as they are. */
  const migrationsWith = (name: string, edits: Record<string, string>) => {
    const dir = join(scratch, name);
    cpSync(source, dir, { recursive: true });
    for (const [file, text] of Object.entries(edits)) writeFileSync(join(dir, file), text);
    return dir;
  };

  it('a database that ran the earlier text still starts, and any other edit of a migration is still refused', async () => {
    const data = join(scratch, 'ran-first-written');
    const before = await openPglite(data);
    try {
      expect(await migrate(before, migrationsWith('first-written', { [STAFF]: staffFirstWritten }))).toContain(STAFF);
    } finally {
      await before.close();
    }
    const started = await openDb({ kind: 'pglite', dir: data });
    try {
      await expect(migrate(started, migrationsWith('statement-edited', { [STAFF]: `${staffNow}CREATE TABLE later (x int);\n` }))).rejects.toThrow(
        'MD5 checksum failed for migration [10]',
      );
      await expect(
        migrate(
          started,
          migrationsWith('comment-added', { '009.do.driver_language.sql': `-- a note\n${readFileSync(join(source, '009.do.driver_language.sql'), 'utf8')}` }),
        ),
      ).rejects.toThrow('MD5 checksum failed for migration [9]');
    } finally {
      await started.close();
    }
  });

  it('declares each amended migration as its file reads now: a later edit of one is refused, not taken', () => {
    const files = readdirSync(source);
    for (const amendment of COMMENT_AMENDMENTS) {
      const file = files.find((name) => Number(name.split('.')[0]) === amendment.version);
      expect(file, `migration ${amendment.version}`).toBeDefined();
      expect(
        createHash('md5')
          .update(readFileSync(join(source, file ?? ''), 'utf8'))
          .digest('hex'),
        file,
      ).toBe(amendment.now);
    }
  });

  it('takes the earlier text to the amended one only: another text of it is refused', async () => {
    const db = await openPglite(null);
    try {
      await migrate(db, migrationsWith('first-written-again', { [STAFF]: staffFirstWritten }));
      await expect(migrate(db, migrationsWith('otherwise-amended', { [STAFF]: staffNow.replace(/^[^\n]*/, '-- Staff accounts.') }))).rejects.toThrow(
        'MD5 checksum failed for migration [10]',
      );
    } finally {
      await db.close();
    }
  });
});
