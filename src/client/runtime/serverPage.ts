/**
 * A step the server drew (src/client/app/serverRender.tsx) and the browser hydrates: the two sides
 * must draw the same page, so what only the browser knows (the device's storage, the driver's
 * sign-in, interpolated texts) is drawn once hydration is over (`useHydrated`), and what the
 * driver typed into the drawn form before the scripts ran is read from it and kept.
 */
import { useSyncExternalStore } from 'react';
import { SERVER_PAGE_ELEMENT_ID, type ServerPage } from '../../shared/serverPage.js';
import { isoDateOffset } from '../../shared/dates.js';
import type { StepValues } from './stepValues.js';

/** True while the page is drawn on the server, where there is no window, storage or cookie. */
export const onServer = typeof window === 'undefined';

const subscribeToNothing = () => () => undefined;

/**
 * False on the server and during hydration, true from then on (and at once in a page drawn in
 * the browser alone): what differs between the two sides is drawn only when it is true.
 */
export const useHydrated = (): boolean =>
  useSyncExternalStore(
    subscribeToNothing,
    () => true,
    () => false,
  );

/** The day the server drew the page for (YYYY-MM-DD, its local date): date limits use it until hydration is over. */
export function drawnToday(): string | undefined {
  return onServer ? isoDateOffset(0, 0) : serverPage()?.today;
}

/** The page the server drew, if it drew this one. */
export function serverPage(): ServerPage | null {
  const text = onServer ? null : document.getElementById(SERVER_PAGE_ELEMENT_ID)?.textContent;
  return text ? (JSON.parse(text) as ServerPage) : null;
}

type FieldElement = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** The field an input of the drawn form stands for (an rjsf input's id is `root_<field>`); none for a file or hidden input. */
function fieldOf(element: FieldElement): string | undefined {
  if (!element.id.startsWith('root_') || element.type === 'file' || element.type === 'hidden') return undefined;
  return element.id.slice('root_'.length);
}

/** What an input holds, as the form keeps it: a number field's text is its number, a checkbox its state, an empty field nothing. */
function valueOf(element: FieldElement): unknown {
  if (element instanceof HTMLInputElement && element.type === 'checkbox') return element.checked;
  if (element.value === '') return undefined;
  return element instanceof HTMLInputElement && element.type === 'number' ? Number(element.value) : element.value;
}

/**
 * What the driver typed into the drawn form before the scripts ran, by field. An empty field and
 * an untouched checkbox are left out; the form takes only its own fields (StepPage.tsx).
 */
function typedInDrawnForm(root: HTMLElement): StepValues {
  const typed: StepValues = {};
  for (const element of root.querySelectorAll<FieldElement>('form input, form select, form textarea')) {
    const field = fieldOf(element);
    if (!field) continue;
    if (element instanceof HTMLInputElement && element.type === 'checkbox' ? element.checked !== element.defaultChecked : element.value !== '') {
      typed[field] = valueOf(element);
    }
  }
  return typed;
}

/** The root holding the server's drawn form, until the app's first form has taken what was typed in it. */
let drawnRoot: HTMLElement | null = null;
/** What was typed there, as first read: a first drawing React sets aside and draws again finds the same (hydration may have reset a checkbox meanwhile). */
let typedRead: StepValues | undefined;
/** Each field's newest value typed since the scripts started, by its `input` and `change` events. */
let typedSince: StepValues = {};

/**
 * Notes a key (or a paste, a pick) in the drawn form. React hydrates in slices, letting the
 * browser run between them: what is typed after the first form read the drawn form and before its
 * handlers are attached reaches no handler of the form's, and React sets the input back to the
 * value it holds. Caught on its way down, before anything can stop it.
 */
function noteTyping(event: Event): void {
  const element = event.target;
  if (!(element instanceof HTMLInputElement || element instanceof HTMLSelectElement || element instanceof HTMLTextAreaElement)) return;
  const field = fieldOf(element);
  if (field) typedSince[field] = valueOf(element);
}

/** The page came drawn by the server into `root` (main.tsx): the first form opens with what is typed in it, from now until it is on the page. */
export function followTypingIn(root: HTMLElement): void {
  drawnRoot = root;
  root.addEventListener('input', noteTyping, true);
  root.addEventListener('change', noteTyping, true);
}

/**
 * What was typed into the drawn form, read as the app's first form draws (hydrating it, or drawing
 * the page afresh), not before: keys typed while the scripts were starting are kept too.
 */
export function typedBeforeScriptsRan(): StepValues {
  if (!drawnRoot) return {};
  typedRead ??= typedInDrawnForm(drawnRoot);
  return typedRead;
}

/** What was typed into the drawn form since the scripts started (newest value by field): the first form takes it once it is on the page (StepFormView). */
export const typedWhileHydrating = (): StepValues => (drawnRoot ? typedSince : {});

/** Once the first form is on the page: the root holds the app's own form, and a form opened later starts from its own values. */
export function forgetTypedBeforeScripts(): void {
  drawnRoot?.removeEventListener('input', noteTyping, true);
  drawnRoot?.removeEventListener('change', noteTyping, true);
  drawnRoot = null;
  typedRead = undefined;
  typedSince = {};
}
