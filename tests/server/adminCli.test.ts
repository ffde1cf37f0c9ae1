import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addStaffFromTerminal, adminSettings, formatDriverTable, formatTime, parseAdminArgs } from '../../src/cli/admin.js';
import { readConfig } from '../../src/server/config.js';
import { authEmulatorHost } from '../../src/cli/authEmulator.js';
import { runKeysCommand } from '../../src/cli/adminKeys.js';
import { bearer, deliveredBy, json, startTestServer } from '../support/server.js';
import type { QueueDriver } from '../../src/shared/review.js';
import { scaled } from '../support/machineSpeed.js';
import { seedPglite } from '../../tools/pgliteTemplate.js';

const scratch = mkdtempSync(join(tmpdir(), 'onramp-admin-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const ID = '3f1c2d4e-0000-4000-8000-00000000abcd';

describe('parseAdminArgs', () => {
  it.each([
    [['list'], { kind: 'list', status: 'pending' }],
    [['list', 'approved'], { kind: 'list', status: 'approved' }],
    [['list', 'rejected'], { kind: 'list', status: 'rejected' }],
    [['approve', ID], { kind: 'approve', driverId: ID }],
    [['resume-link', ID], { kind: 'resume-link', driverId: ID }],
    [['reject', ID, 'The licence photo is blurry'], { kind: 'reject', driverId: ID, reason: 'The licence photo is blurry' }],
    [['reject', ID, 'The', 'licence', 'photo', 'is', 'blurry'], { kind: 'reject', driverId: ID, reason: 'The licence photo is blurry' }],
    [['help'], { kind: 'help' }],
    [['whoami'], { kind: 'whoami' }],
    [['key', 'create', 'my', 'laptop'], { kind: 'key-create', label: 'my laptop' }],
    [['sign-in', 'ada@example.com'], { kind: 'sign-in', email: 'ada@example.com' }],
    [['staff', 'add', 'Ada@Example.com', '--role', 'owner'], { kind: 'staff-add', email: 'ada@example.com', roles: ['owner'] }],
    [
      ['staff', 'add', '--role', 'owner', 'ada@example.com', '--role', 'reviewer'],
      { kind: 'staff-add', email: 'ada@example.com', roles: ['reviewer', 'owner'] },
    ],
    [['--help'], { kind: 'help' }],
  ])('reads %j', (args, command) => {
    expect(parseAdminArgs(args)).toEqual(command);
  });

  it.each([
    [[], 'Missing command.'],
    [['lst'], 'Unknown command "lst".'],
    [['list', 'waiting'], 'Unknown state "waiting": use pending, approved, rejected.'],
    [['list', 'pending', 'approved'], 'list takes at most one state.'],
    [['approve'], 'approve takes one driver id.'],
    [['approve', ID, ID], 'approve takes one driver id.'],
    [['resume-link'], 'resume-link takes one driver id.'],
    [['reject'], 'reject takes a driver id and a reason.'],
    [['reject', ID], 'reject needs a reason, e.g.: reject <driverId> The licence photo is blurry'],
    [['reject', ID, '  '], 'reject needs a reason, e.g.: reject <driverId> The licence photo is blurry'],
    [['whoami', 'me'], 'whoami takes nothing more.'],
    [['sign-in'], 'sign-in takes your email.'],
    [['key', 'create'], 'key takes: create <label>, e.g.: key create laptop'],
    [['key', 'list', 'x'], 'key takes: create <label>, e.g.: key create laptop'],
    [['staff'], 'staff takes: add <email> --role <role> [--role <role>…]'],
    [['staff', 'add', 'ada@example.com'], 'roles must list one or more of: reviewer, privacy-officer, owner.'],
    [['staff', 'add', 'ada@example.com', '--role', 'admin'], 'roles must list one or more of: reviewer, privacy-officer, owner.'],
    [['staff', 'add', 'ada@example.com', '--role'], '--role needs a role.'],
    [['staff', 'add', 'not-an-email', '--role', 'owner'], 'email must be an email address.'],
    [['staff', 'add', '--role', 'owner'], 'staff add takes one email.'],
  ])('refuses %j with a usage message', (args, message) => {
    expect(parseAdminArgs(args)).toEqual({ kind: 'usage-error', message });
  });
});

describe('formatDriverTable', () => {
  /** A driver as GET /admin/drivers lists them. */
  const queued = (driver: Pick<QueueDriver, 'id' | 'email' | 'name' | 'submittedAt'>): QueueDriver => ({
    phone: '+12025550143',
    provider: 'password',
    status: 'pending',
    rejectionReason: null,
    reviewVersion: 3,
    isSessionComplete: true,
    isSubscriptionPaid: false,
    createdAt: '2025-06-01T13:00:00.000Z',
    ...driver,
  });

  it('lines up id, name, email, status and submission time', () => {
    const table = formatDriverTable(
      [
        queued({ id: ID, email: 'ada@example.com', name: 'Ada Lovelace', submittedAt: '2025-06-01T14:03:59.123Z' }),
        queued({ id: 'b'.repeat(36), email: 'x@example.com', name: null, submittedAt: null }),
      ],
      'pending',
    );
    expect(table.split('\n')).toEqual([
      `id${' '.repeat(34)}  name          email            status   submitted`,
      `${'-'.repeat(36)}  ------------  ---------------  -------  --------------------`,
      `${ID}  Ada Lovelace  ada@example.com  pending  2025-06-01 14:03 UTC`,
      `${'b'.repeat(36)}  —             x@example.com    pending  —`,
    ]);
  });

  it('says so when there is nobody', () => {
    expect(formatDriverTable([], 'rejected')).toBe('No rejected drivers.');
  });

  it('shows a missing or broken time as a dash', () => {
    expect(formatTime(null)).toBe('—');
    expect(formatTime('not a date')).toBe('—');
  });
});

describe('adminSettings', () => {
  it('defaults to the local server, and needs a staff member’s key or session token', () => {
    expect(() => adminSettings({})).toThrow(/^No staff credential: set ONRAMP_STAFF_TOKEN to your key/);
    expect(adminSettings({ ONRAMP_STAFF_TOKEN: ' onramp-key-x ' })).toEqual({ baseUrl: 'http://127.0.0.1:3000', token: 'onramp-key-x' });
    // ADMIN_TOKEN opens nothing any more.
    expect(() => adminSettings({ ADMIN_TOKEN: 'an-old-shared-token-0123456789abcdef' })).toThrow(/No staff credential/);
  });

  it('takes ONRAMP_URL (without a trailing slash) and ONRAMP_STAFF_TOKEN from the environment', () => {
    expect(adminSettings({ ONRAMP_URL: 'https://onramp.example.com/', ONRAMP_STAFF_TOKEN: 'from-env' })).toEqual({
      baseUrl: 'https://onramp.example.com',
      token: 'from-env',
    });
  });

  it('refuses an ONRAMP_URL that is not an http(s) address', () => {
    expect(() => adminSettings({ ONRAMP_URL: 'localhost:3000', ONRAMP_STAFF_TOKEN: 'x' })).toThrow(/ONRAMP_URL must be an http\(s\) address/);
    expect(() => adminSettings({ ONRAMP_URL: 'not a url', ONRAMP_STAFF_TOKEN: 'x' })).toThrow(/ONRAMP_URL must be an address/);
  });
});

describe('staff add (the first owner, from a terminal)', () => {
  it(
    'adds the person straight into the database, prints their key once, and is recorded as the terminal’s user; anyone after the first owner is emailed an invitation',
    async () => {
      const dataDir = join(scratch, 'bootstrap');
      await seedPglite(join(dataDir, 'pglite'));
      const env = { DATA_DIR: dataDir, DATA_KEY: randomBytes(32).toString('base64'), LOG_LEVEL: 'warn', FIREBASE_AUTH_EMULATOR_HOST: authEmulatorHost() };
      const lines: string[] = [];
      const io = { out: (line: string) => void lines.push(line), err: (line: string) => void lines.push(`ERR ${line}`) };
      const email = `owner-${randomBytes(4).toString('hex')}@example.com`;
      expect(await addStaffFromTerminal({ email, roles: ['owner'] }, io, env)).toBe(0);
      expect(lines[0]).toBe(`Added ${email} as owner.`);
      const key = /ONRAMP_STAFF_TOKEN=(\S+)/.exec(lines.join('\n'))?.[1] ?? '';
      expect(key).toMatch(/^onramp-key-/);
      // The first owner of an install: no invitation, as the server's mail may not be set up yet.
      expect(lines.at(-1)).toBe(
        'As the first owner they get no invitation email: they sign in on the admin page (/admin) with this email, and "Forgot password?" there sets their password.',
      );
      // A second time is refused: they are staff already.
      expect(await addStaffFromTerminal({ email, roles: ['owner'] }, io, env)).toBe(1);
      expect(lines.at(-1)).toBe('ERR Error: This person is a staff member already: change their roles instead.');
      // Anyone after them is invited as the admin page's Add invites them.
      const reviewer = `reviewer-${randomBytes(4).toString('hex')}@example.com`;
      expect(await addStaffFromTerminal({ email: reviewer, roles: ['reviewer'] }, io, env)).toBe(0);
      expect(lines.at(-1)).toMatch(
        /^They are emailed an invitation to choose their password, as the admin page's Add sends one \(the server sends it; its link works until \d{4}-\d\d-\d\d \d\d:\d\d UTC\)\.$/,
      );

      // The server on that database, with its data key, knows the key as that owner.
      const server = await startTestServer({ dataDir, database: { kind: 'pglite', dir: join(dataDir, 'pglite') }, dataKeys: readConfig(env).dataKeys });
      try {
        const me = await server.app.inject({ method: 'GET', url: '/admin/session', headers: bearer(key) });
        expect(json(me)).toEqual({ email, roles: ['owner'], via: 'key', expiresAt: null });
        const { rows } = await server.db.query<{ actor: string; action: string }>('SELECT actor, action FROM audit_events ORDER BY id LIMIT 2');
        expect(rows).toEqual([
          { actor: `terminal:${userInfo().username}`, action: 'staff.add' },
          { actor: `terminal:${userInfo().username}`, action: 'staff.key-create' },
        ]);
        // The server sends the invitation the terminal queued: the one an owner's Add sends.
        const sent = (await deliveredBy(server.db, server.app)).filter((entry) => 'notice' in entry && entry.notice === 'staffInvitation');
        expect(sent.map((entry) => [entry.to, entry.subject, entry.text.split('\n')[0]])).toEqual([
          [reviewer, "You're invited to Onramp's admin page", `terminal:${userInfo().username} added you to Onramp's admin page as Reviewer.`],
        ]);
        const expiresAt = /The link works once, until (\S+ \S+) UTC/.exec(sent[0]!.text)?.[1];
        expect(lines.at(-1)).toContain(`its link works until ${expiresAt} UTC).`);
      } finally {
        await server.close();
      }
    },
    scaled(60_000),
  );
});

describe('keys status and keys rotate (the data keys, from a terminal)', () => {
  it('reads the commands and refuses a batch that is not a whole number', () => {
    expect(parseAdminArgs(['keys', 'status'])).toEqual({ kind: 'keys-status' });
    expect(parseAdminArgs(['keys', 'rotate'])).toEqual({ kind: 'keys-rotate', batchSize: 100 });
    expect(parseAdminArgs(['keys', 'rotate', '--batch', '20'])).toEqual({ kind: 'keys-rotate', batchSize: 20 });
    expect(parseAdminArgs(['keys', 'rotate', '--batch', '0'])).toEqual({ kind: 'usage-error', message: '--batch takes a whole number from 1 to 10000.' });
    expect(parseAdminArgs(['keys', 'drop'])).toEqual({ kind: 'usage-error', message: 'keys takes: status, or rotate [--batch n]' });
  });

  it(
    'opens the server’s data with its keys: the status of a new data folder, then a rotation to a new key',
    async () => {
      const dataDir = join(scratch, 'keys');
      await seedPglite(join(dataDir, 'pglite'));
      const old = randomBytes(32).toString('base64');
      const lines: string[] = [];
      const io = { out: (line: string) => void lines.push(line), err: (line: string) => void lines.push(`ERR ${line}`) };
      expect(await runKeysCommand({ kind: 'keys-status' }, io, { DATA_DIR: dataDir, DATA_KEY: old, LOG_LEVEL: 'warn' })).toBe(0);
      expect(lines).toEqual(['key "0" (current): nothing yet']);
      lines.length = 0;
      const ring = { DATA_DIR: dataDir, DATA_KEYS: `b:${randomBytes(32).toString('base64')},0:${old}`, LOG_LEVEL: 'warn' };
      expect(await runKeysCommand({ kind: 'keys-rotate', batchSize: 10 }, io, ring)).toBe(0);
      expect(lines[0]).toBe('Sealing everything again under the current data key "b", 10 rows at a time.');
      expect(lines).toContain('uploaded documents: 0 looked at, 0 moved');
      expect(lines.at(-1)).toBe('Done: `keys status` says which keys are still used.');
      lines.length = 0;
      expect(await runKeysCommand({ kind: 'keys-status' }, io, ring)).toBe(0);
      expect(lines).toEqual(['key "b" (current): nothing yet', 'key "0": nothing, it can leave DATA_KEYS']);
    },
    scaled(60_000),
  );
});
