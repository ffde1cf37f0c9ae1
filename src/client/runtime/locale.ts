/**
 * The language the page is in: the one chosen on this device (kept across sign-outs), else the
 * first of the browser's that Onramp speaks (src/shared/locales.ts). English is built in; another
 * language's texts load when it is first needed: the flow's translations here, each form's own
 * with the form (StepFormView.tsx). Switching keeps the page and what was typed: the forms already
 * shown are loaded in the new language before the page draws again.
 */
import { useSyncExternalStore } from 'react';
import { DEFAULT_LOCALE, isLocale, preferredLocale, type Locale, type Translations } from '../../shared/locales.js';
import { LOCALE_STORAGE_KEY } from '../../shared/storageKeys.js';
import { translateFlow } from './flow.js';

/** Each translated language's flow texts, in a chunk of their own. */
const FLOW_TRANSLATIONS: Partial<Record<Locale, () => Promise<{ default: unknown }>>> = {
  es: () => import('../../../locales/es/onboarding.flow.json'),
};

function chosenOnThisDevice(): Locale | undefined {
  try {
    const chosen = localStorage.getItem(LOCALE_STORAGE_KEY);
    return isLocale(chosen) ? chosen : undefined;
  } catch {
    // Storage blocked: the browser's languages decide.
    return undefined;
  }
}

let current: Locale = chosenOnThisDevice() ?? preferredLocale(typeof navigator === 'undefined' ? [] : navigator.languages);
const listeners = new Set<() => void>();
/** What else a language needs loaded before the page shows it (the forms on the page: StepFormView.tsx). */
const preparations = new Set<(locale: Locale) => Promise<unknown>>();

/** Adds what a language needs loaded before the page switches to it. */
export function prepareWith(preparation: (locale: Locale) => Promise<unknown>): void {
  preparations.add(preparation);
}

export const currentLocale = (): Locale => current;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The page's language, drawing the caller again when it changes. */
export function useLocale(): Locale {
  return useSyncExternalStore(subscribe, currentLocale, currentLocale);
}

/** Loads what `locale` needs before the page shows it: the flow's texts and the forms already on the page. */
async function prepare(locale: Locale): Promise<void> {
  const translations = (await FLOW_TRANSLATIONS[locale]?.())?.default as Translations | undefined;
  await Promise.all([...preparations].map((preparation) => preparation(locale)));
  translateFlow(locale, translations);
  // On the server (app/serverRender.tsx) the page's html element is the server's to write. Only
  // when it changes: Chromium styles the whole page again for a lang written, even the same one
  // (the drawn page's, as the app starts: 14 ms at the bench's slow phone, and a repaint).
  if (typeof document !== 'undefined' && document.documentElement.lang !== locale) document.documentElement.lang = locale;
}

/** Before the first page: the flow in the page's language; in English when its texts could not be loaded (offline). */
export async function prepareFirstPage(): Promise<void> {
  try {
    await prepare(current);
  } catch {
    // Its texts could not be loaded (offline): the page shows in English, whose texts it holds.
    current = DEFAULT_LOCALE;
    await prepare(current);
  }
}

/** Switches the page to `locale` once what it needs is loaded, and keeps the choice on this device. */
export async function chooseLocale(locale: Locale): Promise<void> {
  await prepare(locale);
  current = locale;
  try {
    localStorage.setItem(LOCALE_STORAGE_KEY, locale);
  } catch {
    // Storage blocked: the choice holds for this page.
  }
  for (const listener of listeners) listener();
}

/**
 * A resource of a language (a form, a screen's words), loaded once per key. The promise says when
 * it has settled (`status`), as React's `use` reads it: one loaded ahead (a language being switched
 * to) shows at once, without suspending the page and losing what was typed.
 */
export function loadOnce<T>(cache: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
  let loaded = cache.get(key);
  if (!loaded) {
    const loading = load();
    const tracked = Object.assign(loading, { status: 'pending' });
    loading.then(
      (value) => Object.assign(tracked, { status: 'fulfilled', value }),
      (reason: unknown) => Object.assign(tracked, { status: 'rejected', reason }),
    );
    loaded = tracked;
    cache.set(key, loaded);
  }
  return loaded;
}
