/**
 * What happens when a form step is submitted, read from the flow file: prepare, send the call,
 * store what the step stores, run its follow-up calls, toast, and pick the next step. The
 * decisions are the pure functions of src/shared/flow.ts; this module adds the browser's state.
 */
import {
  allHold,
  buildPayload,
  failingGuard,
  lookupIn,
  resolveNextStep,
  type Completion,
  type FormStep,
  type Guard,
  type Lookup,
  type SourceKind,
} from '../shared/flow.js';
import { getPhoto } from '../../widgets/photoStore.js';
import { callApi } from './api.js';
import { callByName, flow, routeOf } from './flow.js';
import { PrepareError, runPrepare } from './prepare.js';
import { clearTarget, getTokenCookie, storageSnapshot, writeTarget } from './storage.js';

/** The flow's sources over the browser's current state, plus values of this submit. */
export function browserLookup(extra: Partial<Record<SourceKind, unknown>> = {}): Lookup {
  const base = lookupIn({
    storage: storageSnapshot(),
    cookie: { token: getTokenCookie() },
    state: (window.history.state as Record<string, unknown> | null) ?? {},
    ...extra,
  });
  return (source) => (source.startsWith('file.') ? getPhoto(source.slice('file.'.length)) : base(source));
}

export interface Navigation {
  to: string;
  state?: Record<string, unknown>;
}

export type SubmitOutcome =
  | { ok: true; navigation: Navigation; successToast?: string }
  | { ok: true; completion: Completion; successToast?: string }
  | { ok: false; message: string; fieldErrors?: Record<string, string[]>; navigation?: Navigation };

export function guardRedirect(guards: Guard[] | undefined): Guard | undefined {
  return failingGuard(guards, browserLookup());
}

export async function submitStep(step: FormStep, form: Record<string, unknown>): Promise<SubmitOutcome> {
  let context: Record<string, unknown>;
  try {
    context = await runPrepare(step.prepare, form);
  } catch (error) {
    if (error instanceof PrepareError) return { ok: false, message: error.message };
    throw error;
  }
  const call = callByName(step.call);
  const payload = buildPayload(call, browserLookup({ form, context }));
  const result = await callApi(call, payload);
  if (!result.ok) {
    return { ok: false, message: result.message ?? flow.messages.requestFailed, fieldErrors: result.errors };
  }

  const afterCall = browserLookup({ form, context, payload, response: result.data });
  for (const [target, source] of Object.entries(step.store ?? {})) writeTarget(target, afterCall(source));

  for (const after of step.after ?? []) {
    if (!allHold(after.when, browserLookup({ form, payload, response: result.data }))) continue;
    const followUp = callByName(after.call);
    const followUpResult = await callApi(followUp, buildPayload(followUp, browserLookup({ form, payload })));
    if (!followUpResult.ok && after.onError) {
      for (const target of after.onError.clear ?? []) clearTarget(target);
      return {
        ok: false,
        message: followUpResult.message ?? after.onError.fallback,
        navigation: { to: routeOf(after.onError.to) },
      };
    }
  }

  if (step.completion) return { ok: true, completion: step.completion, successToast: step.successToast };
  const next = resolveNextStep(step.next, browserLookup({ form, payload, response: result.data }));
  if (!next) return { ok: false, message: flow.messages.requestFailed };
  return { ok: true, navigation: { to: routeOf(next.to), state: next.state }, successToast: step.successToast };
}
