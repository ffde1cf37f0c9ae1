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
import { loadStepForm, StepFormView, StepLayout, submitTextOf, type FormData } from './StepFormView.js';
import { useStepFormState } from './useStepFormState.js';

export function StepPage({ step }: { step: FormStep }) {
  const [, navigate] = useLocation();
  const guard = useMemo(() => guardRedirect(step.guards), [step]);

  useEffect(() => {
    if (!guard) return;
    if (guard.toast) toast.error(guard.toast, { id: guard.toast });
    navigate(routeOf(guard.to), { replace: true });
  }, [guard, navigate]);

  if (guard) return null;
  return <StepForm step={step} schemaName={stepSchemaName(step, browserLookup())} />;
}

function StepForm({ step, schemaName }: { step: FormStep; schemaName: string }) {
  const form = use(loadStepForm(schemaName));
  const [, navigate] = useLocation();
  const state = useStepFormState();
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
        formContext={state.formContext}
        onChange={state.onChange}
        onBlur={state.touch}
        onSubmit={({ formData: submitted }) => {
          state.countSubmit();
          void send(submitted ?? {});
        }}
        onError={state.countSubmit}
        extraErrors={state.extraErrors}
      >
        <button type="submit" className="button button-primary" disabled={busy} aria-busy={busy}>
          {busy && <span className="spinner" aria-hidden="true" />}
          {submitTextOf(form)}
        </button>
      </StepFormView>
      {step.passwordReset && <PasswordReset copy={step.passwordReset} email={state.formData.email} />}
      {step.actions?.map((action) => <StepActionButton key={action.label} action={action} disabled={busy} />)}
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
