// @vitest-environment happy-dom
// A step's draft kept on the device (IndexedDB, here fake-indexeddb: tests/support/indexedDb.ts),
// under the driver it belongs to, and named in the drafts cookie for the server.
import { Blob as NodeBlob } from 'node:buffer';
import { beforeEach, describe, expect, it } from 'vitest';
import { draftSteps } from '../../../src/shared/drawnPage.js';
import { draftKey, readDraft, removeAllDrafts, removeDraft, saveDraft } from '../../../src/client/runtime/drafts.js';

/** The steps the drafts cookie names (happy-dom keeps an expired cookie as empty). */
const namedSteps = () =>
  draftSteps(
    document.cookie
      .split('; ')
      .find((part) => part.startsWith('drafts='))
      ?.slice('drafts='.length),
  );

beforeEach(async () => {
  await removeAllDrafts();
});

describe('the drafts (runtime/drafts.ts)', () => {
  it('keeps a step’s values and photos, and reads them back', async () => {
    // Node's Blob: happy-dom's can't be copied into IndexedDB, a browser's can.
    const photo = new NodeBlob(['jpeg bytes'], { type: 'image/jpeg' }) as unknown as Blob;
    await saveDraft('driver-1', 'completeProfile', { values: { firstName: 'Ana', state: 'NJ' }, photos: { profilePicture: photo } });
    const draft = await readDraft('driver-1', 'completeProfile');
    expect(draft?.values).toEqual({ firstName: 'Ana', state: 'NJ' });
    expect(draft?.photos.profilePicture?.type).toBe('image/jpeg');
    expect(await draft?.photos.profilePicture?.text()).toBe('jpeg bytes');
  });

  it('keeps a draft under its driver: another driver, or no driver yet, finds none', async () => {
    await saveDraft('driver-1', 'completeProfile', { values: { firstName: 'Ana' }, photos: {} });
    await saveDraft(undefined, 'signup', { values: { email: 'ana@example.com' }, photos: {} });
    expect(await readDraft('driver-2', 'completeProfile')).toBeUndefined();
    expect(await readDraft(undefined, 'completeProfile')).toBeUndefined();
    expect((await readDraft(undefined, 'signup'))?.values).toEqual({ email: 'ana@example.com' });
    expect(draftKey(undefined, 'signup')).toBe('new:signup');
    expect(draftKey('driver-1', 'signup')).toBe('driver-1:signup');
  });

  it('names each step with a draft in the drafts cookie, and takes it out when its draft is removed', async () => {
    await saveDraft('driver-1', 'completeProfile', { values: {}, photos: {} });
    await saveDraft('driver-1', 'addVehicle', { values: {}, photos: {} });
    expect(namedSteps()).toEqual(['completeProfile', 'addVehicle']);
    await removeDraft('driver-1', 'completeProfile');
    expect(await readDraft('driver-1', 'completeProfile')).toBeUndefined();
    expect((await readDraft('driver-1', 'addVehicle'))?.values).toEqual({});
    expect(namedSteps()).toEqual(['addVehicle']);
  });

  it('forgets every draft, and the cookie, on signing out', async () => {
    await saveDraft('driver-1', 'completeProfile', { values: { firstName: 'Ana' }, photos: {} });
    await saveDraft(undefined, 'signup', { values: { email: 'ana@example.com' }, photos: {} });
    await removeAllDrafts();
    expect(await readDraft('driver-1', 'completeProfile')).toBeUndefined();
    expect(await readDraft(undefined, 'signup')).toBeUndefined();
    expect(namedSteps()).toEqual([]);
  });

  it('goes on without a draft when one can’t be kept: nothing saved, no error', async () => {
    // A photo IndexedDB can't copy (as a full quota or a closed database would refuse it).
    const uncopyable = { type: 'image/jpeg', read: () => undefined } as unknown as Blob;
    await expect(saveDraft('driver-1', 'completeProfile', { values: { firstName: 'Ana' }, photos: { profilePicture: uncopyable } })).resolves.toBeUndefined();
    expect(await readDraft('driver-1', 'completeProfile')).toBeUndefined();
  });
});
