/**
 * The one page that renders every form step of the flow: its schema (or the variant the flow
 * picks), its UI schema, its precompiled validator, its submit and its extra actions.
 */
import type { IChangeEvent } from '@rjsf/core';
import type { ErrorSchema } from '@rjsf/utils';
import { use, useCallback, useEffect, useMemo, useState } from 'react';
import toast from 'react-hot-toast';
import { useLocation } from 'wouter';
import { buildPayload, stepSchemaName, type Completion, type FormStep, type StepAction } from '../shared/flow.js';
import { createFormValues } from '../../widgets/formValues.js';
import { clearPhoto } from '../../widgets/photoStore.js';
import { callApi } from './api.js';
import { CompletionView } from './CompletionView.js';
import { callByName, flow, routeOf } from './flow.js';
import { SocialSignIn } from './SocialSignIn.js';
import { browserLookup, guardRedirect, submitStep, type Navigation } from './stepRuntime.js';
import { loadStepForm, StepFormView, StepLayout, submitTextOf, type FormData } from './StepFormView.js';
import type { StepFormContext } from './templates.js';

/** Server field messages (400 `errors`) in rjsf's error-schema shape. */
function toErrorSchema(errors: Record<string, string[]> | undefined): ErrorSchema | undefined {
  if (!errors) return undefined;
  const schema: Record<string, { __errors: string[] }> = {};
  for (const [field, messages] of Object.entries(errors)) if (field) schema[field] = { __errors: messages };
  return schema as ErrorSchema;
}

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
  const [formData, setFormData] = useState<FormData>({});
  const [values] = useState(() => createFormValues());
  const [touched, setTouched] = useState<ReadonlySet<string>>(() => new Set());
  const [submitCount, setSubmitCount] = useState(0);
  const [busy, setBusy] = useState(false);
  const [extraErrors, setExtraErrors] = useState<ErrorSchema>();
  const [completion, setCompletion] = useState<Completion>();

  const touch = useCallback((id: string | undefined) => {
    if (!id) return;
    setTouched((current) => (current.has(id) ? current : new Set(current).add(id)));
  }, []);

  const go = useCallback(
    (navigation: Navigation) => navigate(navigation.to, { state: navigation.state }),
    [navigate],
  );

  const onChange = useCallback(
    (event: IChangeEvent<FormData>, id?: string) => {
      setFormData(event.formData ?? {});
      values.set(event.formData ?? {});
      setExtraErrors(undefined);
      touch(id);
    },
    [touch, values],
  );

  const onSubmit = async ({ formData: submitted }: IChangeEvent<FormData>) => {
    setSubmitCount((count) => count + 1);
    setBusy(true);
    try {
      const outcome = await submitStep(step, submitted ?? {});
      if (outcome.ok) {
        for (const field of Object.keys(form.schema.properties ?? {})) clearPhoto(field);
        if (outcome.successToast) toast.success(outcome.successToast);
        if ('completion' in outcome) setCompletion(outcome.completion);
        else go(outcome.navigation);
      } else {
        toast.error(outcome.message);
        setExtraErrors(toErrorSchema(outcome.fieldErrors));
        if (outcome.navigation) go(outcome.navigation);
      }
    } catch {
      toast.error(flow.messages.requestFailed);
    } finally {
      setBusy(false);
    }
  };

  // Stable between key presses, so rjsf re-renders only the fields whose own props changed.
  const formContext: StepFormContext = useMemo(() => ({ touched, submitCount, values }), [touched, submitCount, values]);

  if (completion) return <CompletionView completion={completion} />;
  return (
    <StepLayout step={step}>
      <StepFormView
        form={form}
        formData={formData}
        formContext={formContext}
        onChange={onChange}
        onBlur={touch}
        onSubmit={onSubmit}
        onError={() => setSubmitCount((count) => count + 1)}
        extraErrors={extraErrors}
      >
        <button type="submit" className="button button-primary" disabled={busy} aria-busy={busy}>
          {busy && <span className="spinner" aria-hidden="true" />}
          {submitTextOf(form)}
        </button>
      </StepFormView>
      {step.actions?.map((action) => <StepActionButton key={action.label} action={action} disabled={busy} />)}
      {step.social && <SocialSignIn social={step.social} />}
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
