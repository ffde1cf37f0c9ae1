// @vitest-environment happy-dom
// What a form step reads as it opens (runtime/stepReads.ts): its draft on this device, and what a
// signed-in driver sent of a reviewed step, with its photos, each under a key of the step and the driver.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { removeAllDrafts, saveDraft } from '../../../src/client/runtime/drafts.js';
import { draftRead, storedAnswersRead } from '../../../src/client/runtime/stepReads.js';
import { setItem, setTokenCookie } from '../../../src/client/runtime/storage.js';
import { clearAllPhotos, getPhoto, isKeptPhoto } from '../../../widgets/photoStore.js';

beforeEach(async () => {
  localStorage.clear();
  document.cookie = 'token=; Max-Age=0; Path=/';
  clearAllPhotos();
  await removeAllDrafts();
});
afterEach(() => vi.unstubAllGlobals());

describe('a step’s draft read', () => {
  it('reads the signed-in driver’s draft of the step, under a key of both', async () => {
    setItem('driver_id', 'driver-1');
    await saveDraft('driver-1', 'completeProfile', { values: { firstName: 'Ana' }, photos: {} });
    const read = draftRead('completeProfile');
    expect(read.key).toBe('draft:driver-1:completeProfile');
    expect((await read.read())?.values).toEqual({ firstName: 'Ana' });
    expect(draftRead('signup').key).toBe('draft:driver-1:signup');
  });
});

describe('what a driver sent of a step, read back', () => {
  it('is not read for a step that is not reviewed, nor with no driver signed in', () => {
    setTokenCookie('session-token');
    expect(storedAnswersRead('signup')).toBeNull();
    document.cookie = 'token=; Max-Age=0; Path=/';
    expect(storedAnswersRead('completeProfile')).toBeNull();
  });

  it('reads the answers with the session, and shows each photo as kept, sent back by its id', async () => {
    setItem('driver_id', 'driver-1');
    setTokenCookie('session-token');
    const asked: { path: string; bearer: string | null }[] = [];
    vi.stubGlobal('fetch', async (path: string, init: RequestInit = {}) => {
      asked.push({ path, bearer: new Headers(init.headers).get('Authorization') });
      if (path === '/driver/answers/completeProfile') {
        const body = { answers: { firstName: 'Ana' }, files: { profilePicture: { id: 'upload-1', url: '/files/upload-1', mime: 'image/jpeg' } }, fixes: [] };
        return new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json' } });
      }
      return new Response('jpeg bytes', { headers: { 'Content-Type': 'image/jpeg' } });
    });
    const read = storedAnswersRead('completeProfile');
    expect(read?.key).toBe('answers:driver-1:completeProfile');
    expect((await read?.read())?.answers).toEqual({ firstName: 'Ana' });
    expect(asked).toEqual([
      { path: '/driver/answers/completeProfile', bearer: 'Bearer session-token' },
      { path: '/files/upload-1', bearer: 'Bearer session-token' },
    ]);
    expect(isKeptPhoto('profilePicture')).toBe(true);
    expect(getPhoto('profilePicture')).toBeDefined();
  });

  it('fails with the server’s message', async () => {
    setTokenCookie('session-token');
    vi.stubGlobal(
      'fetch',
      async () => new Response(JSON.stringify({ message: 'Token expired' }), { status: 401, headers: { 'Content-Type': 'application/json' } }),
    );
    await expect(storedAnswersRead('completeProfile')?.read()).rejects.toThrow('Token expired');
  });
});
