/**
 * A step the server drew (src/client/app/serverRender.tsx) and the browser hydrates: the two sides
 * must draw the same page, so what only the browser knows (the device's storage, the driver's
 * sign-in, interpolated texts) is drawn once hydration is over (`useHydrated`), and what the
 * driver typed into the drawn form before the scripts ran is read from it and kept.
 */
import { useSyncExternalStore } from 'react';
import { AWAITS_DRAFT_CLASS, SERVER_PAGE_ELEMENT_ID, type ServerPage } from '../../shared/serverPage.js';
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

/** The drawn form's fields, by field. */
function drawnFields(root: HTMLElement): [string, FieldElement][] {
  return [...root.querySelectorAll<FieldElement>('form input, form select, form textarea')].flatMap((element) => {
    const field = fieldOf(element);
    return field ? [[field, element] as [string, FieldElement]] : [];
  });
}

/** What the drawn form was given from the device's draft (`showDraftInDrawnForm`), by field: not typed, so not taken as typed. */
let shownFromDraft: StepValues = {};

/**
 * What the driver typed into the drawn form before the scripts ran, by field. An empty field, an
 * untouched checkbox and a value shown from the draft are left out; the form takes only its own
 * fields (StepPage.tsx).
 */
function typedInDrawnForm(root: HTMLElement): StepValues {
  const typed: StepValues = {};
  for (const [field, element] of drawnFields(root)) {
    const value = valueOf(element);
    if (field in shownFromDraft && value === shownFromDraft[field]) continue;
    if (element instanceof HTMLInputElement && element.type === 'checkbox' ? element.checked !== element.defaultChecked : element.value !== '') {
      typed[field] = value;
    }
  }
  return typed;
}

/**
 * A drawn step the device holds a draft of comes with its form hidden (AWAITS_DRAFT_CLASS): the
 * draft's values are put in its fields as soon as the draft is read (a photo waits for the app's
 * own form), then the form shows, filled, long before the app has drawn it again. With no draft
 * (`values` undefined) it shows as drawn.
 */
export function showDraftInDrawnForm(values: StepValues | undefined): void {
  const root = document.getElementById('root');
  if (!root?.classList.contains(AWAITS_DRAFT_CLASS)) return;
  for (const [field, element] of drawnFields(root)) {
    const value = values?.[field];
    if (value === undefined || element.type === 'password' || (typeof value === 'object' && value !== null)) continue;
    if (element instanceof HTMLInputElement && element.type === 'checkbox') element.checked = value === true;
    else element.value = String(value);
    shownFromDraft[field] = valueOf(element);
  }
  root.classList.remove(AWAITS_DRAFT_CLASS);
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

/** The id of the drawn form's field the driver is in, if any: the app's form, drawn afresh over it, puts them back there. */
let focusedField: string | undefined;

function noteFocus(event: FocusEvent): void {
  focusedField = event.target instanceof HTMLElement && event.target.id ? event.target.id : undefined;
}

/** The page came drawn by the server into `root` (main.tsx): the first form opens with what is typed in it, from now until it is on the page. */
export function followTypingIn(root: HTMLElement): void {
  drawnRoot = root;
  focusedField = root.contains(document.activeElement) && document.activeElement?.id ? document.activeElement.id : undefined;
  root.addEventListener('input', noteTyping, true);
  root.addEventListener('change', noteTyping, true);
  root.addEventListener('focusin', noteFocus, true);
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

/**
 * Once the first form is on the page (as it commits): a driver who was in a field of the drawn
 * form that the app's form, drawn afresh, has replaced is put back in the same field, at the end
 * of what they typed, so their next key is not lost (a hydrated form keeps its elements, and the
 * focus).
 */
export function keepFocusFromDrawnForm(): void {
  if (!drawnRoot || !focusedField || (document.activeElement && document.activeElement !== document.body)) return;
  const field = document.getElementById(focusedField);
  if (!(field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement || field instanceof HTMLSelectElement)) return;
  field.focus();
  try {
    if (!(field instanceof HTMLSelectElement)) field.setSelectionRange(field.value.length, field.value.length);
  } catch {
    // An email or number input has no caret to place: the browser's own place stands.
  }
}

/** Once the first form is on the page: the root holds the app's own form, and a form opened later starts from its own values. */
export function forgetTypedBeforeScripts(): void {
  drawnRoot?.removeEventListener('input', noteTyping, true);
  drawnRoot?.removeEventListener('change', noteTyping, true);
  drawnRoot?.removeEventListener('focusin', noteFocus, true);
  drawnRoot = null;
  typedRead = undefined;
  typedSince = {};
  shownFromDraft = {};
  focusedField = undefined;
}
