/**
 * A step's answers as the driver types them, kept on the device (IndexedDB, photos as blobs) so a
 * reload, or the camera app pushing the page out of memory, loses nothing: the step's form comes
 * back as it was. What must never sit on a device is left out by the caller (`keepable`): the
 * fields a schema marks sensitive and anything typed in a password input. A draft is removed
 * once its step is sent, and every draft when the driver signs out.
 *
 * idb-keyval: IndexedDB's requests and transactions as promises, in about 1 KB. Every call is
 * guarded: a browser without IndexedDB (some web views, private modes) still runs the journey,
 * without drafts.
 */
import { clear, createStore, del, get, set, type UseStore } from 'idb-keyval';
import type { FormData } from './StepFormView.js';

export interface Draft {
  values: FormData;
  photos: Record<string, Blob>;
}

let store: UseStore | null | undefined;

function draftStore(): UseStore | null {
  if (store === undefined) {
    try {
      store = typeof indexedDB === 'undefined' ? null : createStore('onramp-drafts', 'drafts');
    } catch {
      store = null;
    }
  }
  return store;
}

/** Drafts are the driver's on this device: a step's draft is kept under the driver it belongs to. */
const keyOf = (driver: string | undefined, step: string) => `${driver ?? 'new'}:${step}`;

export async function readDraft(driver: string | undefined, step: string): Promise<Draft | undefined> {
  const drafts = draftStore();
  if (!drafts) return undefined;
  try {
    return await get<Draft>(keyOf(driver, step), drafts);
  } catch {
    return undefined;
  }
}

export async function saveDraft(driver: string | undefined, step: string, draft: Draft): Promise<void> {
  const drafts = draftStore();
  if (!drafts) return;
  try {
    await set(keyOf(driver, step), draft, drafts);
  } catch {
    // A full quota or a closed database: the page goes on without a draft.
  }
}

export async function removeDraft(driver: string | undefined, step: string): Promise<void> {
  const drafts = draftStore();
  if (!drafts) return;
  try {
    await del(keyOf(driver, step), drafts);
  } catch {
    // Nothing to remove.
  }
}

/** Forgets every draft on this device (signing out). */
export async function removeAllDrafts(): Promise<void> {
  const drafts = draftStore();
  if (!drafts) return;
  try {
    await clear(drafts);
  } catch {
    // Nothing to remove.
  }
}
