/**
 * The one page that renders every form step of the flow: its schema (or the variant the flow
 * picks), its UI schema, its precompiled validator, its submit and its extra actions. When the
 * server asks the driver to sign in again (an ended session, a change that needs a recent
 * sign-in), a dialog asks for it on the page and the submit is sent again: nothing typed is lost,
 * nor by a reload: the answers are kept on the device as a draft (drafts.ts) until the step is sent.
 */
import { use, useCallback, useEffect, useMemo, useState } from 'react';
import { toast } from '../ui/toast.js';
import { useLocation } from 'wouter';
import { buildPayload, stepSchemaName, type Completion, type FormStep, type StepAction } from '../../shared/flow.js';
import { sensitiveFieldsOf } from '../../shared/schemaFiles.js';
import { useValuesSelection } from '../../../widgets/formValues.js';
import { clearPhoto } from '../../../widgets/photoStore.js';
import { callApi } from '../runtime/api.js';
import { callByName, flow, routeOf } from '../runtime/flow.js';
import { PasswordReset } from './PasswordReset.js';
import { loadSocialSignIn, SocialSignIn } from './socialSignInChunk.js';
import { StepLinks } from '../ui/StepLinks.js';
import { browserLookup, guardRedirect, submitStep, type Navigation } from '../runtime/stepFlow.js';
import { Layout } from '../ui/Layout.js';
import { loadStepForm, StepFormView, submitTextOf, type LoadedForm } from './StepFormView.js';
import type { StepValues } from '../runtime/stepValues.js';
import { currentLocale, useLocale } from '../runtime/locale.js';
import { getItem } from '../runtime/storage.js';
import { readPath } from '../runtime/reads.js';
import { listPreloads } from '../../../widgets/index.js';
import { useDraft, useDraftSaving, type OpenedDraft } from './useDraft.js';
import { useStepFormState } from './useStepFormState.js';
import { PageSuspense } from '../ui/PageSuspense.js';
import { preloadable } from '../ui/preloadable.js';
import { useStoredAnswers, type StoredAnswers } from './useStoredAnswers.js';
import { onServer, typedWhileHydrating, useHydrated } from '../runtime/serverPage.js';
import { reportFault } from '../runtime/faults.js';

/**
 * What a step shows only once it was sent (the journey's end, a sign-in asked for again): not in
 * the scripts the page is drawn and hydrated with, loaded once it is the driver's (FilledStepForm),
 * and waited for before it shows, should the driver send sooner.
 */
const completionView = preloadable(
  () => import('./CompletionView.js'),
  (module) => module.CompletionView,
);
const signInAgainDialog = preloadable(
  () => import('./SignInAgainDialog.js'),
  (module) => module.SignInAgainDialog,
);
const CompletionView = completionView.Component;
const SignInAgainDialog = signInAgainDialog.Component;

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

/** The step's form, once what the driver sent before (a reviewed step they come back to) and their draft are here to fill it. */
function StepForm({ id, step, schemaName }: { id: string; step: FormStep; schemaName: string }) {
  const form = use(loadStepForm(schemaName, useLocale()));
  const sensitiveFields = useMemo(() => sensitiveFieldsOf(form.schema), [form]);
  const stored = useStoredAnswers(id, sensitiveFields);
  const opened = useDraft(id, form, sensitiveFields, stored);
  if (!opened) {
    return (
      <Layout>
        <p className="step-loading" role="status">
          <span className="spinner" aria-hidden="true" />
        </p>
      </Layout>
    );
  }
  return <FilledStepForm id={id} step={step} form={form} stored={stored} opened={opened} />;
}

interface FilledStepFormProps {
  id: string;
  step: FormStep;
  form: LoadedForm;
  stored: StoredAnswers;
  opened: OpenedDraft;
}

function FilledStepForm({ id, step, form, stored, opened }: FilledStepFormProps) {
  const [, navigate] = useLocation();
  const { initial, typedBefore } = opened;
  const state = useStepFormState(initial);
  const draft = useDraftSaving(id, state.values, opened);
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
  // After the first commit (hydration's, on a drawn page): never before the page is the driver's.
  useEffect(() => {
    void Promise.all([completionView.load(), signInAgainDialog.load()]).catch(() => undefined);
  }, []);

  const send = async (submitted: StepValues) => {
    setBusy(true);
    // A new try: the last one's errors no longer stand.
    toast.dismiss();
    state.showServerErrors(undefined);
    // The draft is kept under the driver it was saved for: a sign-up's, before the driver had an id.
    const driverBefore = getItem('driver_id');
    try {
      const outcome = await submitStep(id, step, submitted);
      if (outcome.ok) {
        for (const field of Object.keys(form.schema.properties ?? {})) clearPhoto(field);
        await draft.sent(driverBefore);
        if (outcome.successToast) toast.success(outcome.successToast);
        if ('completion' in outcome) {
          await completionView.load();
          setCompletion(outcome.completion);
        } else go(outcome.navigation);
      } else if (outcome.signInAgain) {
        await signInAgainDialog.load();
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
