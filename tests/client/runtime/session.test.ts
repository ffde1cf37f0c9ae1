// @vitest-environment happy-dom
// Signing out (runtime/session.ts): the browser forgets the driver, their drafts included, whether
// the server's call went through or not.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readDraft, removeAllDrafts, saveDraft } from '../../../src/client/runtime/drafts.js';
import { signOut } from '../../../src/client/runtime/session.js';
import { getTokenCookie, setItem, setTokenCookie, storageSnapshot } from '../../../src/client/runtime/storage.js';

beforeEach(async () => {
  localStorage.clear();
  await removeAllDrafts();
  setItem('email', 'ana@example.com');
  setItem('token', 'session-token');
  setItem('driver_id', 'driver-1');
  setTokenCookie('session-token');
  await saveDraft('driver-1', 'completeProfile', { values: { firstName: 'Ana' }, photos: {} });
});
afterEach(() => vi.unstubAllGlobals());

describe('signing out', () => {
  it('ends the session on the server, then forgets the driver’s keys, token cookie and drafts', async () => {
    const asked: string[] = [];
    vi.stubGlobal('fetch', async (path: string, init: RequestInit = {}) => {
      asked.push(`${init.method} ${path} ${new Headers(init.headers).get('Authorization')}`);
      return new Response('{}', { headers: { 'Content-Type': 'application/json' } });
    });
    await signOut();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/ Bearer session-token$/);
    expect(storageSnapshot()).toEqual({});
    expect(getTokenCookie()).toBeUndefined();
    expect(await readDraft('driver-1', 'completeProfile')).toBeUndefined();
  });

  it('forgets everything even when the call can’t reach the server', async () => {
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('Failed to fetch');
    });
    await signOut();
    expect(storageSnapshot()).toEqual({});
    expect(getTokenCookie()).toBeUndefined();
    expect(await readDraft('driver-1', 'completeProfile')).toBeUndefined();
  });
});
