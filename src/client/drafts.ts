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

async function read(key: string): Promise<Draft | undefined> {
  const drafts = draftStore();
  if (!drafts) return undefined;
  try {
    return await get<Draft>(key, drafts);
  } catch {
    return undefined;
  }
}

/** The read begun as the page opened (`beginReadingDraft`), until its step's form takes it; `read` once it ended. */
let begun: { key: string; draft: Promise<Draft | undefined>; read?: { draft: Draft | undefined } } | undefined;

/**
 * Starts reading the draft of the step the page opens on while the app's scripts still start
 * (main.tsx): opening IndexedDB takes a while on a slow phone, and the form then waits for its
 * scripts and its draft together, not for one after the other. Answers when it is read.
 */
export function beginReadingDraft(driver: string | undefined, step: string): Promise<unknown> {
  const key = keyOf(driver, step);
  const reading: NonNullable<typeof begun> = { key, draft: read(key) };
  begun = reading;
  return reading.draft.then((draft) => {
    reading.read = { draft };
  });
}

/** The draft read as the page opened, if it is this step's and was read by now (taken once): the form shows with it at its first draw. */
export function takeOpeningDraft(driver: string | undefined, step: string): { draft: Draft | undefined } | undefined {
  if (begun?.key !== keyOf(driver, step) || !begun.read) return undefined;
  const { read } = begun;
  begun = undefined;
  return read;
}

/** The step's draft: the read begun as the page opened if it is this one (taken once), else a new read. */
export function readDraft(driver: string | undefined, step: string): Promise<Draft | undefined> {
  const key = keyOf(driver, step);
  if (begun?.key !== key) return read(key);
  const { draft } = begun;
  begun = undefined;
  return draft;
}

/** Every write goes through here: after one, the read begun as the page opened is out of date. */
async function write(change: (drafts: UseStore) => Promise<void>): Promise<void> {
  begun = undefined;
  const drafts = draftStore();
  if (!drafts) return;
  try {
    await change(drafts);
  } catch {
    // A full quota, a closed database, nothing to remove: the page goes on without a draft.
  }
}

export const saveDraft = (driver: string | undefined, step: string, draft: Draft) => write((drafts) => set(keyOf(driver, step), draft, drafts));

export const removeDraft = (driver: string | undefined, step: string) => write((drafts) => del(keyOf(driver, step), drafts));

/** Forgets every draft on this device (signing out). */
export const removeAllDrafts = () => write(clear);
