/**
 * The one page that renders every form step of the flow: its schema (or the variant the flow
 * picks), its UI schema, its precompiled validator, its submit and its extra actions. When the
 * server asks the driver to sign in again (an ended session, a change that needs a recent
 * sign-in), a dialog asks for it on the page and the submit is sent again: nothing typed is lost.
 */
import { use, useCallback, useEffect, useMemo, useState } from 'react';
import toast from 'react-hot-toast';
import { useLocation } from 'wouter';
import { buildPayload, stepSchemaName, type Completion, type FormStep, type StepAction } from '../shared/flow.js';
import { clearPhoto } from '../../widgets/photoStore.js';
import { callApi } from './api.js';
import { CompletionView } from './CompletionView.js';
import { callByName, flow, routeOf } from './flow.js';
import { PasswordReset } from './PasswordReset.js';
import { SignInAgainDialog } from './SignInAgainDialog.js';
import { SocialSignIn } from './SocialSignIn.js';
import { StepLinks } from './StepLinks.js';
import { browserLookup, guardRedirect, submitStep, type Navigation } from './stepRuntime.js';
import { loadStepForm, StepFormView, StepLayout, submitTextOf, type FormData, type LoadedForm } from './StepFormView.js';
import { useStepFormState } from './useStepFormState.js';
import { useStoredAnswers, type StoredAnswers } from './useStoredAnswers.js';

export function StepPage({ id, step }: { id: string; step: FormStep }) {
  const [, navigate] = useLocation();
  const guard = useMemo(() => guardRedirect(step.guards), [step]);

  useEffect(() => {
    if (!guard) return;
    if (guard.toast) toast.error(guard.toast, { id: guard.toast });
    navigate(routeOf(guard.to), { replace: true });
  }, [guard, navigate]);

  if (guard) return null;
  return <StepForm id={id} step={step} schemaName={stepSchemaName(step, browserLookup())} />;
}

/** The fields a schema marks `"sensitive": true`. */
const sensitiveFieldsOf = (schema: { properties?: Record<string, unknown> }) =>
  Object.entries(schema.properties ?? {})
    .filter(([, property]) => (property as { sensitive?: unknown }).sensitive === true)
    .map(([field]) => field);

/** The step's form, once what the driver sent before (a reviewed step they come back to) is here to fill it. */
function StepForm({ id, step, schemaName }: { id: string; step: FormStep; schemaName: string }) {
  const form = use(loadStepForm(schemaName));
  const sensitiveFields = useMemo(() => sensitiveFieldsOf(form.schema as { properties?: Record<string, unknown> }), [form]);
  const stored = useStoredAnswers(id, sensitiveFields);
  if (!stored.ready) {
    return (
      <StepLayout step={step}>
        <p className="step-loading" role="status">
          <span className="spinner" aria-hidden="true" />
        </p>
      </StepLayout>
    );
  }
  return <FilledStepForm step={step} form={form} stored={stored} />;
}

function FilledStepForm({ step, form, stored }: { step: FormStep; form: LoadedForm; stored: StoredAnswers }) {
  const [, navigate] = useLocation();
  const state = useStepFormState(stored.formData);
  // Keyed by the fixes still to make, so the context (and the fields) change only when one is made.
  const openFixes = JSON.stringify(stored.openFixes(state.formData));
  const formContext = useMemo(() => {
    const fixes = JSON.parse(openFixes) as { field: string; reason: string }[];
    return fixes.length > 0 ? { ...state.formContext, fixes: new Map(fixes.map(({ field, reason }) => [`root_${field}`, reason])) } : state.formContext;
  }, [state.formContext, openFixes]);
  const [busy, setBusy] = useState(false);
  const [completion, setCompletion] = useState<Completion>();
  /** The answers waiting to be sent again once the driver signed in again. */
  const [waiting, setWaiting] = useState<FormData>();

  const go = useCallback((navigation: Navigation) => navigate(navigation.to, { state: navigation.state }), [navigate]);

  const send = async (submitted: FormData) => {
    setBusy(true);
    try {
      const outcome = await submitStep(step, submitted);
      if (outcome.ok) {
        for (const field of Object.keys(form.schema.properties ?? {})) clearPhoto(field);
        if (outcome.successToast) toast.success(outcome.successToast);
        if ('completion' in outcome) setCompletion(outcome.completion);
        else go(outcome.navigation);
      } else if (outcome.signInAgain) {
        setWaiting(submitted);
      } else {
        toast.error(outcome.message);
        state.showServerErrors(outcome.fieldErrors);
        if (outcome.navigation) go(outcome.navigation);
      }
    } catch {
      toast.error(flow.messages.requestFailed);
    } finally {
      setBusy(false);
    }
  };

  if (completion) return <CompletionView completion={completion} />;
  return (
    <StepLayout step={step}>
      <StepFormView
        form={form}
        formData={state.formData}
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
      >
        <button type="submit" className="button button-primary" disabled={busy} aria-busy={busy}>
          {busy && <span className="spinner" aria-hidden="true" />}
          {submitTextOf(form)}
        </button>
      </StepFormView>
      {step.passwordReset && <PasswordReset copy={step.passwordReset} email={state.formData.email} />}
      {step.actions?.map((action) => (
        <StepActionButton key={action.label} action={action} disabled={busy} />
      ))}
      {step.social && flow.social && <SocialSignIn social={flow.social} />}
      <StepLinks links={step.links} />
      {waiting && (
        <SignInAgainDialog
          onSignedIn={(sameDriver, navigation) => {
            const answers = waiting;
            setWaiting(undefined);
            // Another account signed in on this page: its own step, not this driver's answers.
            if (sameDriver) void send(answers);
            else go(navigation);
          }}
          onCancel={() => setWaiting(undefined)}
        />
      )}
    </StepLayout>
  );
}

/** A secondary button of a step (Resend), with its own spinner and toasts. */
function StepActionButton({ action, disabled }: { action: StepAction; disabled: boolean }) {
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
    <button type="button" className="button button-secondary" onClick={run} disabled={busy || disabled} aria-busy={busy}>
      {busy && <span className="spinner" aria-hidden="true" />}
      {action.label}
    </button>
  );
}
