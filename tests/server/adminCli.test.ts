import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { adminSettings, formatDriverTable, formatTime, parseAdminArgs } from '../../src/cli/admin.js';
import type { QueueDriver } from '../../src/shared/review.js';

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
  it('defaults to the local server and the token the server generated in DATA_DIR', () => {
    const dataDir = join(scratch, 'data');
    expect(() => adminSettings({ DATA_DIR: dataDir })).toThrow(/No admin token: set ADMIN_TOKEN, or start the server once/);
    const token = 'local-admin-token-0123456789abcdefghijk';
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'admin-token'), `${token}\n`);
    expect(adminSettings({ DATA_DIR: dataDir })).toEqual({ baseUrl: 'http://127.0.0.1:3000', token });
  });

  it('takes ONRAMP_URL (without a trailing slash) and ADMIN_TOKEN from the environment', () => {
    expect(adminSettings({ ONRAMP_URL: 'https://onramp.example.com/', ADMIN_TOKEN: 'from-env', DATA_DIR: join(scratch, 'none') })).toEqual({
      baseUrl: 'https://onramp.example.com',
      token: 'from-env',
    });
  });

  it('refuses an ONRAMP_URL that is not an http(s) address', () => {
    expect(() => adminSettings({ ONRAMP_URL: 'localhost:3000', ADMIN_TOKEN: 'x' })).toThrow(/ONRAMP_URL must be an http\(s\) address/);
    expect(() => adminSettings({ ONRAMP_URL: 'not a url', ADMIN_TOKEN: 'x' })).toThrow(/ONRAMP_URL must be an address/);
  });
});
