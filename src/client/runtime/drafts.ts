/**
 * A step's answers as the driver types them, kept on the device (IndexedDB, photos as blobs) so a
 * reload, or the camera app pushing the page out of memory, loses nothing: the step's form comes
 * back as it was. What must never sit on a device is left out by the caller (`keepable`): the
 * fields a schema marks sensitive and anything typed in a password input. A draft is removed
 * once its step is sent, and every draft when the driver signs out. The spec's browser keeps only
 * the keys of its §3: this store is a departure on purpose (docs/departures.md).
 *
 * idb-keyval: IndexedDB's requests and transactions as promises, in about 1 KB. Every call is
 * guarded: a browser without IndexedDB (some web views, private modes) still runs the journey,
 * without drafts.
 */
import { clear, createStore, del, get, set, type UseStore } from 'idb-keyval';
import type { StepValues } from './stepValues.js';
import { noteDraftCookie, removeDraftsCookie } from './storage.js';

export interface Draft {
  values: StepValues;
  photos: Record<string, Blob>;
}

let store: UseStore | null | undefined;

function draftStore(): UseStore | null {
  if (store === undefined) {
    try {
      store = typeof indexedDB === 'undefined' ? null : createStore('onramp-drafts', 'drafts');
    } catch {
      // IndexedDB blocked (private browsing on some browsers): the pages work without drafts.
      store = null;
    }
  }
  return store;
}

/** Drafts are the driver's on this device: a step's draft is kept under the driver it belongs to. */
export const draftKey = (driver: string | undefined, step: string) => `${driver ?? 'new'}:${step}`;

export async function readDraft(driver: string | undefined, step: string): Promise<Draft | undefined> {
  const drafts = draftStore();
  if (!drafts) return undefined;
  try {
    return await get<Draft>(draftKey(driver, step), drafts);
  } catch {
    // A draft that can't be read (the database closed or damaged) is as none: the form opens empty.
    return undefined;
  }
}

/** A change to the drafts; one that fails leaves the page going on without a draft. */
async function write(change: (drafts: UseStore) => Promise<void>): Promise<void> {
  const drafts = draftStore();
  if (!drafts) return;
  try {
    await change(drafts);
  } catch {
    // A full quota, a closed database, nothing to remove: the page goes on without a draft.
  }
}

// Each change is named in the drafts cookie too, for the server to send the step's page undrawn
// (storage.ts): a page drawn empty would show before its draft. The cookie is written before the
// draft and cleared after it, so a reload in between finds at worst a step sent undrawn, never a
// draft under an empty drawn form.
export const saveDraft = (driver: string | undefined, step: string, draft: Draft) =>
  write(async (drafts) => {
    noteDraftCookie(step, true);
    await set(draftKey(driver, step), draft, drafts);
  });

export const removeDraft = (driver: string | undefined, step: string) =>
  write(async (drafts) => {
    await del(draftKey(driver, step), drafts);
    noteDraftCookie(step, false);
  });

/** Forgets every draft on this device (signing out). */
export const removeAllDrafts = () =>
  write(async (drafts) => {
    await clear(drafts);
    removeDraftsCookie();
  });
