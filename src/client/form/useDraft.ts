/**
 * A step's draft, from the step opening to its sending: read from the device as the step opens
 * (its photos back in their slots), the values the form starts from, then kept a moment after
 * each change until the step is sent, and then removed (runtime/drafts.ts keeps it in IndexedDB).
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { getPhoto, isKeptPhoto, setPhoto } from '../../../widgets/photoStore.js';
import type { FormValuesStore } from '../../../widgets/formValues.js';
import { removeDraft, saveDraft, type Draft } from '../runtime/drafts.js';
import { useOpeningRead } from '../runtime/reads.js';
import { forgetTypedBeforeScripts, onServer, typedBeforeScriptsRan } from '../runtime/serverPage.js';
import { draftRead } from '../runtime/stepReads.js';
import { getItem } from '../runtime/storage.js';
import type { StepValues } from '../runtime/stepValues.js';
import type { LoadedForm } from './StepFormView.js';

/** The fields a draft may keep, and those of them that are photos. */
export interface DraftFields {
  values: string[];
  photos: string[];
}

/** The step's form as it opens, once its draft and what the driver sent before are read. */
export interface OpenedDraft {
  /** The values the form starts from (startingValues); undefined: none. */
  initial?: StepValues;
  /** What was typed into the server's drawn form before the scripts ran (in `initial` too): kept as a draft at once. */
  typedBefore: StepValues;
  /** What a draft of this form keeps. */
  keep: DraftFields;
}

/**
 * The values a step's form starts from, newest on top: what the driver sent before (a reviewed
 * step they come back to), under their draft (typed since), under what they typed into the
 * server's drawn form before the scripts ran (the newest of all). Undefined when there is none.
 */
export function startingValues(sent: StepValues | undefined, draft: StepValues | undefined, typed: StepValues): StepValues | undefined {
  const layers = [sent, draft, Object.keys(typed).length > 0 ? typed : undefined].filter((layer) => layer !== undefined);
  return layers.length > 0 ? Object.assign({}, ...layers) : undefined;
}

/** What a draft may keep on the device: every field but the sensitive ones and those typed in a password input. */
function draftFieldsOf(form: LoadedForm, sensitive: readonly string[]): DraftFields {
  const widgetOf = (field: string) => (form.uiSchema[field] as { 'ui:widget'?: unknown } | undefined)?.['ui:widget'];
  const fields = Object.keys(form.schema.properties ?? {}).filter((field) => !sensitive.includes(field) && widgetOf(field) !== 'password');
  return { values: fields, photos: fields.filter((field) => widgetOf(field) === 'photo') };
}

/** Puts a draft's photos back in their slots; answers the values the form starts from (null: no draft). */
function restoreDraft(draft: Draft | undefined): { values: StepValues } | null {
  if (!draft) return null;
  const values = { ...draft.values };
  for (const [field, photo] of Object.entries(draft.photos)) {
    setPhoto(field, photo);
    // A photo's value is its type: a draft saved between a photo and its value still brings back both.
    values[field] ??= photo.type || undefined;
  }
  return { values };
}

const pickFields = (values: StepValues, fields: string[]): StepValues => Object.fromEntries(Object.entries(values).filter(([field]) => fields.includes(field)));

/**
 * The step's form as it opens: its draft on this device, read afresh each time the step opens
 * (none on the server: a draft is the device's), over `sent`, what the driver sent before; null
 * while either is read, so that nothing typed is overwritten.
 */
export function useDraft(stepId: string, form: LoadedForm, sensitive: readonly string[], sent: { ready: boolean; formData?: StepValues }): OpenedDraft | null {
  const [read] = useState(() => (onServer ? null : draftRead(stepId)));
  const { data, error } = useOpeningRead(read, restoreDraft);
  const [typedBefore] = useState(() => pickFields(typedBeforeScriptsRan(), Object.keys(form.schema.properties ?? {})));
  // Once the first form is on the page, a form opened later starts from its own values.
  useEffect(forgetTypedBeforeScripts, []);
  // The same object while the form stays: the draft's saving subscribes with it.
  const keep = useMemo(() => draftFieldsOf(form, sensitive), [form, sensitive]);
  if (!sent.ready || !(read === null || data !== undefined || error !== undefined)) return null;
  return { initial: startingValues(sent.formData, data?.values, typedBefore), typedBefore, keep };
}

/** Long enough not to write at every key press, short enough that a tab killed right after typing keeps it. */
export const DRAFT_SAVE_DELAY_MS = 300;

/**
 * Saves the form's values as the step's draft a moment after the driver stops typing, once they
 * typed anything (a step only opened keeps nothing; what was typed into the server's drawn form
 * before the scripts ran counts), until the step is sent: `sent(driver)` stops it and removes the
 * draft, kept under `driver` (the one before the step was sent: a sign-up's draft was kept
 * before the driver had an id).
 */
export function useDraftSaving(stepId: string, values: FormValuesStore, { keep, typedBefore }: OpenedDraft) {
  const isSent = useRef(false);
  const typed = Object.keys(typedBefore).length > 0;
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const save = () => {
      timer = undefined;
      if (isSent.current) return;
      const kept = Object.fromEntries(Object.entries(values.all()).filter(([field]) => keep.values.includes(field)));
      // A photo sent before stays on the server; only a new one is kept here.
      const photos = Object.fromEntries(
        keep.photos.flatMap((field) => {
          const photo = isKeptPhoto(field) ? undefined : getPhoto(field);
          return photo ? [[field, photo]] : [];
        }),
      );
      void saveDraft(getItem('driver_id'), stepId, { values: kept, photos });
    };
    const saveSoon = () => {
      clearTimeout(timer);
      timer = setTimeout(save, DRAFT_SAVE_DELAY_MS);
    };
    // Leaving the page (a reload, another app, the tab closed) with keys not yet kept: kept now.
    const saveWaiting = () => {
      if (timer === undefined) return;
      clearTimeout(timer);
      save();
    };
    const unsubscribe = values.subscribe(saveSoon);
    if (typed) saveSoon();
    window.addEventListener('pagehide', saveWaiting);
    return () => {
      unsubscribe();
      clearTimeout(timer);
      window.removeEventListener('pagehide', saveWaiting);
    };
  }, [stepId, values, keep, typed]);
  return {
    sent: (driver: string | undefined) => {
      isSent.current = true;
      return removeDraft(driver, stepId);
    },
  };
}
