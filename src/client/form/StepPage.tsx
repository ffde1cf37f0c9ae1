/**
 * The one page that renders every form step of the flow: its schema (or the variant the flow
 * picks), its UI schema, its precompiled validator, its submit and its extra actions. When the
 * server asks the driver to sign in again (an ended session, a change that needs a recent
 * sign-in), a dialog asks for it on the page and the submit is sent again: nothing typed is lost,
 * nor by a reload: the answers are kept on the device as a draft (drafts.ts) until the step is sent.
 */
import { use, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { toast } from '../ui/toast.js';
import { useLocation } from 'wouter';
import { buildPayload, stepSchemaName, type Completion, type FormStep, type StepAction } from '../../shared/flow.js';
import { useValuesSelection, type FormValuesStore } from '../../../widgets/formValues.js';
import { clearPhoto, getPhoto, isKeptPhoto, setPhoto } from '../../../widgets/photoStore.js';
import { callApi } from '../runtime/api.js';
import { CompletionView } from './CompletionView.js';
import { removeDraft, saveDraft, type Draft } from '../runtime/drafts.js';
import { callByName, flow, routeOf } from '../runtime/flow.js';
import { PasswordReset } from './PasswordReset.js';
import { SignInAgainDialog } from './SignInAgainDialog.js';
import { loadSocialSignIn, SocialSignIn } from './socialSignInChunk.js';
import { StepLinks } from '../ui/StepLinks.js';
import { browserLookup, guardRedirect, submitStep, type Navigation } from '../runtime/stepFlow.js';
import { Layout } from '../ui/Layout.js';
import { loadStepForm, StepFormView, submitTextOf, type LoadedForm } from './StepFormView.js';
import type { StepValues } from '../runtime/stepValues.js';
import { currentLocale, useLocale } from '../runtime/locale.js';
import { getItem } from '../runtime/storage.js';
import { readPath, useOpeningRead } from '../runtime/reads.js';
import { listPreloads } from '../../../widgets/index.js';
import { draftRead } from '../runtime/stepReads.js';
import { useStepFormState } from './useStepFormState.js';
import { PageSuspense } from '../ui/PageSuspense.js';
import { useStoredAnswers, type StoredAnswers } from './useStoredAnswers.js';
import { forgetTypedBeforeScripts, onServer, typedBeforeScriptsRan, typedWhileHydrating, useHydrated } from '../runtime/serverPage.js';
import { reportFault } from '../runtime/faults.js';

export function StepPage({ id, step }: { id: string; step: FormStep }) {
  const [, navigate] = useLocation();
  // The server draws a step as its driver would see it: its guards and variants are the browser's (serverPage.ts).
  const guard = useMemo(() => (onServer ? undefined : guardRedirect(step.guards)), [step]);
  const schemaName = pageSchemaName(step);
  // The variant the page opened with loads under the page's boundary (App.tsx); another, picked
  // as the page stays, under one of its own.
  const [openedWith] = useState(schemaName);

  useEffect(() => {
    if (!guard) return;
    if (guard.toast) toast.error(guard.toast, { id: guard.toast });
    navigate(routeOf(guard.to), { replace: true });
  }, [guard, navigate]);

  if (guard) return null;
  const form = <StepForm key={schemaName} id={id} step={step} schemaName={schemaName} />;
  return schemaName === openedWith ? form : <PageSuspense key={schemaName}>{form}</PageSuspense>;
}

/** The form the page shows: the variant the device picks; the step's own on the server. */
export const pageSchemaName = (step: FormStep) => (onServer ? step.schema : stepSchemaName(step, browserLookup()));

/** Loads the form a step's page shows (in the variant and the language the page picks): main.tsx waits for it before the first render. */
export const prepareStepPage = (step: FormStep) =>
  Promise.all([loadStepForm(pageSchemaName(step), currentLocale()).then(preloadLists), step.social ? loadSocialSignIn() : undefined]);

/** Begins the lists the form's widgets read (the US states), beside the page's other reads rather than once they are drawn. */
function preloadLists(form: LoadedForm): LoadedForm {
  for (const field of Object.values(form.uiSchema)) {
    const widget = (field as { 'ui:widget'?: unknown } | undefined)?.['ui:widget'];
    if (typeof widget === 'string' && Object.hasOwn(listPreloads, widget)) listPreloads[widget as keyof typeof listPreloads]?.(readPath);
  }
  return form;
}

/** The fields a schema marks `"sensitive": true`. */
const sensitiveFieldsOf = (schema: { properties?: Record<string, unknown> }) =>
  Object.entries(schema.properties ?? {})
    .filter(([, property]) => (property as { sensitive?: unknown }).sensitive === true)
    .map(([field]) => field);

/** What a draft may keep on the device: every field but the sensitive ones and those typed in a password input. */
function draftFieldsOf(form: LoadedForm, sensitive: readonly string[]): { values: string[]; photos: string[] } {
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

/** The step's draft on this device, read afresh each time the step opens; its photos go back in their slots. */
function useDraft(stepId: string): { ready: boolean; values?: StepValues } {
  // None on the server: a draft is the device's.
  const [read] = useState(() => (onServer ? null : draftRead(stepId)));
  const { data, error } = useOpeningRead(read, restoreDraft);
  return { ready: read === null || data !== undefined || error !== undefined, values: data?.values ?? undefined };
}

/** The step's form, once what the driver sent before (a reviewed step they come back to) and their draft are here to fill it. */
function StepForm({ id, step, schemaName }: { id: string; step: FormStep; schemaName: string }) {
  const form = use(loadStepForm(schemaName, useLocale()));
  const sensitiveFields = useMemo(() => sensitiveFieldsOf(form.schema as { properties?: Record<string, unknown> }), [form]);
  // The same object while the form stays: the draft's saving subscribes with it.
  const keep = useMemo(() => draftFieldsOf(form, sensitiveFields), [form, sensitiveFields]);
  const stored = useStoredAnswers(id, sensitiveFields);
  const draft = useDraft(id);
  // What was typed into the server's drawn form before the scripts ran: the newest of all.
  const [typed] = useState(() => pickFields(typedBeforeScriptsRan(), Object.keys(form.schema.properties ?? {})));
  useEffect(forgetTypedBeforeScripts, []);
  if (!stored.ready || !draft.ready) {
    return (
      <Layout>
        <p className="step-loading" role="status">
          <span className="spinner" aria-hidden="true" />
        </p>
      </Layout>
    );
  }
  // The draft is newer than what was sent: what the driver typed since wins.
  const kept = draft.values ? { ...stored.formData, ...draft.values } : stored.formData;
  const initial = Object.keys(typed).length > 0 ? { ...kept, ...typed } : kept;
  return <FilledStepForm id={id} step={step} form={form} stored={stored} initial={initial} keep={keep} typedBefore={typed} />;
}

const pickFields = (values: StepValues, fields: string[]): StepValues => Object.fromEntries(Object.entries(values).filter(([field]) => fields.includes(field)));

/**
 * Saves the answers as a draft a moment after the driver stops typing, once they typed anything
 * (a step only opened keeps nothing; what was typed into the server's drawn form before the
 * scripts ran, `typedBefore`, counts), until the step is sent: then `sent()` stops it.
 */
function useDraftSaving(stepId: string, values: FormValuesStore, keep: { values: string[]; photos: string[] }, typedBefore: boolean) {
  const isSent = useRef(false);
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
    if (typedBefore) saveSoon();
    window.addEventListener('pagehide', saveWaiting);
    return () => {
      unsubscribe();
      clearTimeout(timer);
      window.removeEventListener('pagehide', saveWaiting);
    };
  }, [stepId, values, keep, typedBefore]);
  return {
    sent: () => {
      isSent.current = true;
    },
  };
}

/** Long enough not to write at every key press, short enough that a tab killed right after typing keeps it. */
const DRAFT_SAVE_DELAY_MS = 300;

interface FilledStepFormProps {
  id: string;
  step: FormStep;
  form: LoadedForm;
  stored: StoredAnswers;
  initial?: StepValues;
  keep: { values: string[]; photos: string[] };
  /** What was typed into the server's drawn form before the scripts ran (in `initial` too): kept as a draft at once. */
  typedBefore: StepValues;
}

function FilledStepForm({ id, step, form, stored, initial, keep, typedBefore }: FilledStepFormProps) {
  const [, navigate] = useLocation();
  const state = useStepFormState(initial);
  const draft = useDraftSaving(id, state.values, keep, Object.keys(typedBefore).length > 0);
  // Keyed by the fixes still to make, so the context (and the fields) change only when one is made.
  const openFixes = useValuesSelection(state.values, (all) => JSON.stringify(stored.openFixes(all)));
  const formContext = useMemo(() => {
    const fixes = JSON.parse(openFixes) as { field: string; reason: string }[];
    return fixes.length > 0 ? { ...state.formContext, fixes: new Map(fixes.map(({ field, reason }) => [`root_${field}`, reason])) } : state.formContext;
  }, [state.formContext, openFixes]);
  const [busy, setBusy] = useState(false);
  const [completion, setCompletion] = useState<Completion>();
  /** The answers waiting to be sent again once the driver signed in again, and why the sign-in is asked for. */
  const [waiting, setWaiting] = useState<{ answers: StepValues; reason: string }>();

  const go = useCallback((navigation: Navigation) => navigate(navigation.to, { state: navigation.state }), [navigate]);

  const send = async (submitted: StepValues) => {
    setBusy(true);
    // A new try: the last one's errors no longer stand.
    toast.dismiss();
    state.showServerErrors(undefined);
    const driverBefore = getItem('driver_id');
    try {
      const outcome = await submitStep(id, step, submitted);
      if (outcome.ok) {
        for (const field of Object.keys(form.schema.properties ?? {})) clearPhoto(field);
        // Under the driver it was kept for (a sign-up's draft was kept before the driver had an id).
        draft.sent();
        await removeDraft(driverBefore, id);
        if (outcome.successToast) toast.success(outcome.successToast);
        if ('completion' in outcome) setCompletion(outcome.completion);
        else go(outcome.navigation);
      } else if (outcome.signInAgain) {
        setWaiting({ answers: submitted, reason: outcome.message });
      } else {
        toast.error(outcome.message);
        state.showServerErrors(outcome.fieldErrors);
        if (outcome.navigation) go(outcome.navigation);
      }
    } catch (error) {
      // The API's refusals come back as results; what throws is the browser's (storage, a chunk that did not load) or a fault
      // of our code, which is reported: the driver may try again.
      reportFault(error);
      toast.error(flow.messages.requestFailed);
    } finally {
      setBusy(false);
    }
  };

  if (completion) return <CompletionView completion={completion} />;
  return (
    <Layout>
      <StepFormView
        form={form}
        initialData={initial}
        formContext={formContext}
        onChange={state.onChange}
        onBlur={state.touch}
        onSubmit={({ formData: submitted }) => {
          state.countSubmit();
          void send(submitted ?? {});
        }}
        onError={state.countSubmit}
        extraErrors={state.extraErrors}
        keptValues={stored.masked}
        typedBefore={typedBefore}
        typedMeanwhile={typedWhileHydrating}
        onlyFields={stored.onlyFields}
      >
        <SubmitButton busy={busy} text={submitTextOf(form)} />
      </StepFormView>
      {step.passwordReset && <PasswordReset copy={step.passwordReset} values={state.values} />}
      {step.actions?.map((action) => (
        <StepActionButton key={action.label} action={action} disabled={busy} />
      ))}
      {step.social && flow.social && <SocialSignIn social={flow.social} />}
      <StepLinks links={step.links} />
      {waiting && (
        <SignInAgainDialog
          reason={waiting.reason}
          onSignedIn={(sameDriver, navigation) => {
            const { answers } = waiting;
            setWaiting(undefined);
            // Another account signed in on this page: its own step, not this driver's answers.
            if (sameDriver) void send(answers);
            else go(navigation);
          }}
          onCancel={() => setWaiting(undefined)}
        />
      )}
    </Layout>
  );
}

/**
 * The form's submit, busy while the step is sent and until the scripts have taken the server's
 * drawn form over (a native submit would put the answers in the address). Hydration ending draws
 * it alone: drawn by the page, the form's children would change and rjsf draw every field again.
 */
function SubmitButton({ busy, text }: { busy: boolean; text?: string }) {
  const waiting = busy || !useHydrated();
  return (
    <button type="submit" className="button button-primary" disabled={waiting} aria-busy={waiting}>
      {waiting && <span className="spinner" aria-hidden="true" />}
      {text}
    </button>
  );
}

/** A secondary button of a step (Resend), with its own spinner and toasts; like the submit, it waits for the scripts. */
function StepActionButton({ action, disabled }: { action: StepAction; disabled: boolean }) {
  const hydrated = useHydrated();
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      const call = callByName(action.call);
      const result = await callApi(call, buildPayload(call, browserLookup()));
      const succeeded = result.ok && (action.successStatus === undefined || result.status === action.successStatus);
      if (succeeded) {
        if (action.successToast) toast.success(action.successToast);
      } else {
        toast.error((!result.ok && result.message) || flow.messages.requestFailed);
      }
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" className="button button-secondary" onClick={run} disabled={busy || disabled || !hydrated} aria-busy={busy}>
      {busy && <span className="spinner" aria-hidden="true" />}
      {action.label}
    </button>
  );
}
