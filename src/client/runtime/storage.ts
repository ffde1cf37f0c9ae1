/**
 * The only module that touches browser storage (with drafts.ts, the answers being typed, in
 * IndexedDB, which signing out clears beside this: session.ts): the spec's local storage keys and
 * the `token` cookie (path /). Every access is guarded, because storage can throw (private mode, a web view
 * with storage disabled, a full quota) and a driver must never see a crash for it.
 */
import { draftSteps } from '../../shared/drawnPage.js';
import { DRAFT_STEP_SEPARATOR, DRAFTS_COOKIE, SENT_AWAY_COOKIE, STORAGE_KEYS, TOKEN_COOKIE, type StorageKey } from '../../shared/storageKeys.js';

const COOKIE_MAX_AGE_SECONDS = 24 * 60 * 60; // as long as a server session lives

const isStorageKey = (key: string): key is StorageKey => (STORAGE_KEYS as readonly string[]).includes(key);

export function getItem(key: StorageKey): string | undefined {
  try {
    return window.localStorage.getItem(key) ?? undefined;
  } catch {
    // Storage blocked (private browsing, a sandboxed frame): nothing is stored to read.
    return undefined;
  }
}

export function setItem(key: StorageKey, value: string): void {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // Storage unavailable: the step still works for this page view.
  }
}

export function removeItem(key: StorageKey): void {
  try {
    window.localStorage.removeItem(key);
  } catch {
    // Nothing stored, nothing to remove.
  }
}

function getCookie(name: string): string | undefined {
  try {
    const prefix = `${name}=`;
    const entry = document.cookie.split('; ').find((part) => part.startsWith(prefix));
    return entry ? decodeURIComponent(entry.slice(prefix.length)) || undefined : undefined;
  } catch {
    // Cookies blocked, or a value not ours (not URI-encoded): no such cookie for this page.
    return undefined;
  }
}

export const getTokenCookie = (): string | undefined => getCookie(TOKEN_COOKIE);

/** As long as a cookie may live in Chromium: a draft stays on the device until its step is sent or the driver signs out. */
const DRAFTS_COOKIE_MAX_AGE_SECONDS = 400 * 24 * 60 * 60;

/** Names `step` in the drafts cookie (a draft of it is kept on the device), or takes it out. */
export function noteDraftCookie(step: string, kept: boolean): void {
  const steps = new Set(draftSteps(getCookie(DRAFTS_COOKIE)));
  if (kept === steps.has(step)) return;
  if (kept) steps.add(step);
  else steps.delete(step);
  const value = [...steps].join(DRAFT_STEP_SEPARATOR);
  const secure = window.location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${DRAFTS_COOKIE}=${value}; Path=/; Max-Age=${value ? DRAFTS_COOKIE_MAX_AGE_SECONDS : 0}; SameSite=Strict${secure}`;
}

/** Forgets the drafts cookie (every draft removed: signing out). */
export function removeDraftsCookie(): void {
  document.cookie = `${DRAFTS_COOKIE}=; Path=/; Max-Age=0; SameSite=Strict`;
}

export function setTokenCookie(token: string): void {
  const secure = window.location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${TOKEN_COOKIE}=${encodeURIComponent(token)}; Path=/; Max-Age=${COOKIE_MAX_AGE_SECONDS}; SameSite=Strict${secure}`;
}

export function removeTokenCookie(): void {
  document.cookie = `${TOKEN_COOKIE}=; Path=/; Max-Age=0; SameSite=Strict`;
}

/** The step whose guard the server decided (its redirect brought the visitor here), read once: the cookie is removed. */
export function takeSentAwayCookie(): string | undefined {
  const step = getCookie(SENT_AWAY_COOKIE);
  if (step !== undefined) document.cookie = `${SENT_AWAY_COOKIE}=; Path=/; Max-Age=0; SameSite=Strict`;
  return step;
}

/** Whether this browser holds a driver's token (a session or a sign-up's): there is something to sign out of. */
export const holdsDriverToken = (): boolean => getItem('token') !== undefined || getTokenCookie() !== undefined;

/** Forgets the driver's keys and token cookie (signing out, session.ts). */
export function clearDriverStorage(): void {
  for (const key of STORAGE_KEYS) removeItem(key);
  removeTokenCookie();
}

/** All stored values, for the flow's `storage.*` sources. */
export function storageSnapshot(): Partial<Record<StorageKey, string>> {
  const snapshot: Partial<Record<StorageKey, string>> = {};
  for (const key of STORAGE_KEYS) {
    const value = getItem(key);
    if (value !== undefined) snapshot[key] = value;
  }
  return snapshot;
}

/** Writes a flow target: "storage.<key>" or "cookie.token". */
export function writeTarget(target: string, value: unknown): void {
  if (target === `cookie.${TOKEN_COOKIE}`) {
    if (typeof value === 'string' && value) setTokenCookie(value);
    return;
  }
  const key = target.replace(/^storage\./, '');
  if (isStorageKey(key) && value !== undefined && value !== null) setItem(key, String(value));
}

/** Keeps what a step's or a resume row's `store` map names: each target gets the value its source reads. */
export function applyStore(store: Readonly<Record<string, string>> | undefined, lookup: (source: string) => unknown): void {
  for (const [target, source] of Object.entries(store ?? {})) writeTarget(target, lookup(source));
}

export function clearTarget(target: string): void {
  if (target === `cookie.${TOKEN_COOKIE}`) return removeTokenCookie();
  const key = target.replace(/^storage\./, '');
  if (isStorageKey(key)) removeItem(key);
}

// ---------------------------------------------------------------------------------------------
// Admin review page (/admin) and the form studio. Not one of the spec's keys (§3 lists the
// driver's only, and the flow may name only those): the staff member's session token. It lives in
// sessionStorage, so it goes when the tab closes and is never mixed up with a driver's `token`.

const STAFF_TOKEN_KEY = 'onrampStaffSession';

export function getStaffToken(): string | undefined {
  try {
    return window.sessionStorage.getItem(STAFF_TOKEN_KEY) || undefined;
  } catch {
    // Storage blocked: no session kept, so the staff member signs in.
    return undefined;
  }
}

export function setStaffToken(token: string): void {
  try {
    window.sessionStorage.setItem(STAFF_TOKEN_KEY, token);
  } catch {
    // Storage unavailable: the page keeps the token in memory for this view.
  }
}

export function clearStaffToken(): void {
  try {
    window.sessionStorage.removeItem(STAFF_TOKEN_KEY);
  } catch {
    // Nothing stored, nothing to remove.
  }
}
