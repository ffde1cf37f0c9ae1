// @vitest-environment happy-dom
// A step's draft from the step opening to its sending (form/useDraft.ts): the values the form
// starts from (typed into the drawn form before the scripts ran, over the draft, over what was
// sent before), and the draft kept a moment after each change, until the step is sent.
import { Blob as NodeBlob } from 'node:buffer';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { SWRConfig } from 'swr';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFormValues } from '../../../widgets/formValues.js';
import { clearAllPhotos, getPhoto, keepPhoto, setPhoto } from '../../../widgets/photoStore.js';
import { loadStepForm, type LoadedForm } from '../../../src/client/form/StepFormView.js';
import { DRAFT_SAVE_DELAY_MS, startingValues, useDraft, useDraftSaving, type OpenedDraft } from '../../../src/client/form/useDraft.js';
import { readDraft, removeAllDrafts, saveDraft } from '../../../src/client/runtime/drafts.js';
import { followTypingIn, forgetTypedBeforeScripts, typedBeforeScriptsRan } from '../../../src/client/runtime/serverPage.js';

/** A fresh swr cache for each test, as each page load has: nothing read in one test shows in another. */
const wrapper = ({ children }: { children: ReactNode }) => <SWRConfig value={{ provider: () => new Map() }}>{children}</SWRConfig>;

// The profile step: a sensitive field typed in a password input (SSN) and three photo slots.
let profile: LoadedForm;
const SENSITIVE = ['SSN'];
beforeAll(async () => {
  profile = await loadStepForm('profile');
});

beforeEach(async () => {
  localStorage.clear();
  localStorage.setItem('driver_id', 'driver-1');
  clearAllPhotos();
  await removeAllDrafts();
});
afterEach(() => {
  cleanup();
  forgetTypedBeforeScripts();
  vi.useRealTimers();
  document.body.innerHTML = '';
});

describe('the values a step’s form starts from', () => {
  it('takes the draft over what was sent, and what was typed before the scripts ran over both', () => {
    const sent = { firstName: 'Ana', lastName: 'Diaz', city: 'Newark' };
    const draft = { firstName: 'Anabel', city: 'Trenton' };
    const typed = { city: 'Camden' };
    expect(startingValues(sent, draft, typed)).toEqual({ firstName: 'Anabel', lastName: 'Diaz', city: 'Camden' });
    expect(startingValues(sent, draft, {})).toEqual({ firstName: 'Anabel', lastName: 'Diaz', city: 'Trenton' });
    expect(startingValues(sent, undefined, {})).toEqual(sent);
    expect(startingValues(undefined, undefined, typed)).toEqual(typed);
  });

  it('is none when there is nothing to start from', () => {
    expect(startingValues(undefined, undefined, {})).toBeUndefined();
  });
});

describe('a step opening with its draft (useDraft)', () => {
  const sentNothing = { ready: true };

  it('opens from the draft kept on the device, over what was sent, its photo back in its slot', async () => {
    const photo = new NodeBlob(['jpeg bytes'], { type: 'image/jpeg' }) as unknown as Blob;
    await saveDraft('driver-1', 'completeProfile', { values: { firstName: 'Anabel', city: 'Trenton' }, photos: { profilePicture: photo } });
    const sent = { ready: true, formData: { firstName: 'Ana', lastName: 'Diaz' } };
    const { result } = renderHook(() => useDraft('completeProfile', profile, SENSITIVE, sent), { wrapper });
    await waitFor(() => expect(result.current).not.toBeNull());
    // A photo kept without its value still comes back: its value is its type.
    expect(result.current?.initial).toEqual({ firstName: 'Anabel', lastName: 'Diaz', city: 'Trenton', profilePicture: 'image/jpeg' });
    expect(getPhoto('profilePicture')?.type).toBe('image/jpeg');
  });

  it('finds no draft of another driver on this device', async () => {
    await saveDraft('driver-2', 'completeProfile', { values: { firstName: 'Bea' }, photos: {} });
    const { result } = renderHook(() => useDraft('completeProfile', profile, SENSITIVE, sentNothing), { wrapper });
    await waitFor(() => expect(result.current).not.toBeNull());
    expect(result.current?.initial).toBeUndefined();
  });

  it('waits while what was sent before is read, so nothing shows to be overwritten', async () => {
    const { result, rerender } = renderHook(({ sent }) => useDraft('completeProfile', profile, SENSITIVE, sent), {
      wrapper,
      initialProps: { sent: { ready: false } as { ready: boolean; formData?: Record<string, unknown> } },
    });
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(result.current).toBeNull();
    rerender({ sent: { ready: true, formData: { lastName: 'Diaz' } } });
    await waitFor(() => expect(result.current?.initial).toEqual({ lastName: 'Diaz' }));
  });

  it('keeps no sensitive field and nothing typed in a password input; the photo slots are kept as photos', async () => {
    const { result } = renderHook(() => useDraft('completeProfile', profile, SENSITIVE, sentNothing), { wrapper });
    await waitFor(() => expect(result.current).not.toBeNull());
    expect(result.current?.keep.values).not.toContain('SSN');
    expect(result.current?.keep.values).toEqual(expect.arrayContaining(['firstName', 'city', 'profilePicture']));
    expect(result.current?.keep.photos).toEqual(['profilePicture', 'socialSecurityCardFront', 'socialSecurityCardBack']);
  });

  it('opens with what was typed into the server’s drawn form before the scripts ran, over the draft, its own fields only', async () => {
    await saveDraft('driver-1', 'completeProfile', { values: { firstName: 'Anabel', city: 'Trenton' }, photos: {} });
    document.body.innerHTML = '<div id="root"><form><input id="root_firstName" /><input id="root_elsewhere" /></form></div>';
    const root = document.getElementById('root') as HTMLElement;
    (root.querySelector('#root_firstName') as HTMLInputElement).value = 'Anita';
    (root.querySelector('#root_elsewhere') as HTMLInputElement).value = 'not a profile field';
    followTypingIn(root);
    const { result } = renderHook(() => useDraft('completeProfile', profile, SENSITIVE, { ready: true }), { wrapper });
    await waitFor(() => expect(result.current).not.toBeNull());
    expect(result.current?.typedBefore).toEqual({ firstName: 'Anita' });
    expect(result.current?.initial).toEqual({ firstName: 'Anita', city: 'Trenton' });
    // Taken once: a form opened later starts from its own values.
    expect(typedBeforeScriptsRan()).toEqual({});
  });
});

describe('a step’s draft kept as the driver types (useDraftSaving)', () => {
  const keep = { values: ['firstName', 'city', 'profilePicture'], photos: ['profilePicture'] };
  const opened: OpenedDraft = { keep, typedBefore: {} };
  const kept = () => readDraft('driver-1', 'completeProfile');

  it('keeps the values a moment after a change, only the fields a draft may keep, and a new photo', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const values = createFormValues({});
    renderHook(() => useDraftSaving('completeProfile', values, opened));
    setPhoto('profilePicture', new NodeBlob(['jpeg bytes'], { type: 'image/jpeg' }) as unknown as Blob);
    values.set({ firstName: 'Ana', SSN: '123456789', profilePicture: 'image/jpeg' });
    vi.advanceTimersByTime(DRAFT_SAVE_DELAY_MS - 1);
    expect(await kept()).toBeUndefined();
    vi.advanceTimersByTime(1);
    await vi.waitFor(async () => expect((await kept())?.values).toEqual({ firstName: 'Ana', profilePicture: 'image/jpeg' }));
    expect(Object.keys((await kept())?.photos ?? {})).toEqual(['profilePicture']);
  });

  it('keeps nothing for a step only opened, and no photo sent before (it stays on the server)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const values = createFormValues({ firstName: 'Ana' });
    keepPhoto('profilePicture', new NodeBlob(['sent'], { type: 'image/jpeg' }) as unknown as Blob, 'upload-1');
    renderHook(() => useDraftSaving('completeProfile', values, opened));
    vi.advanceTimersByTime(DRAFT_SAVE_DELAY_MS);
    expect(await kept()).toBeUndefined();
    values.set({ firstName: 'Ana', city: 'Newark', profilePicture: 'image/jpeg' });
    vi.advanceTimersByTime(DRAFT_SAVE_DELAY_MS);
    await vi.waitFor(async () => expect((await kept())?.values).toEqual({ firstName: 'Ana', city: 'Newark', profilePicture: 'image/jpeg' }));
    expect((await kept())?.photos).toEqual({});
  });

  it('keeps at once what was typed into the drawn form before the scripts ran', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const values = createFormValues({ firstName: 'Anita' });
    renderHook(() => useDraftSaving('completeProfile', values, { keep, typedBefore: { firstName: 'Anita' } }));
    vi.advanceTimersByTime(DRAFT_SAVE_DELAY_MS);
    await vi.waitFor(async () => expect((await kept())?.values).toEqual({ firstName: 'Anita' }));
  });

  it('keeps what waits to be kept when the page is left', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const values = createFormValues({});
    renderHook(() => useDraftSaving('completeProfile', values, opened));
    values.set({ firstName: 'Ana' });
    window.dispatchEvent(new Event('pagehide'));
    await vi.waitFor(async () => expect((await kept())?.values).toEqual({ firstName: 'Ana' }));
  });

  it('removes the draft once the step is sent, and keeps nothing typed after', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const values = createFormValues({});
    const { result } = renderHook(() => useDraftSaving('completeProfile', values, opened));
    values.set({ firstName: 'Ana' });
    vi.advanceTimersByTime(DRAFT_SAVE_DELAY_MS);
    await vi.waitFor(async () => expect(await kept()).toBeDefined());
    values.set({ firstName: 'Ana', city: 'Newark' });
    await result.current.sent('driver-1');
    vi.advanceTimersByTime(DRAFT_SAVE_DELAY_MS);
    expect(await kept()).toBeUndefined();
  });
});
