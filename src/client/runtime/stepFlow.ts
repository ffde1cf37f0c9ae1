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
  resolveResume,
  resumeLookup,
  splitSource,
  type Completion,
  type FormStep,
  type Guard,
  type Lookup,
  type NextRule,
  type ResumeRule,
  type Call,
  type SourceKind,
} from '../../shared/flow.js';
import { keepSentPhoto, photoPayload, setSentShares } from '../../../widgets/photoStore.js';
import { callApi, isSignInAgain, sendFileAhead, type ApiFailure, type ApiResult } from './api.js';
import { callByName, flow, routeOf } from './flow.js';
import { PrepareError, runPrepare } from './prepare.js';
import { forgetDriverStatus } from './reads.js';
import { applyStore, clearTarget, getTokenCookie, storageSnapshot } from './storage.js';

/** The flow's sources over the browser's current state, plus values of this submit. */
export function browserLookup(extra: Partial<Record<SourceKind, unknown>> = {}): Lookup {
  const base = lookupIn({
    storage: storageSnapshot(),
    cookie: { token: getTokenCookie() },
    state: (window.history.state as Record<string, unknown> | null) ?? {},
    ...extra,
  });
  return (source) => (source.startsWith('file.') ? photoPayload(source.slice('file.'.length)) : base(source));
}

export interface Navigation {
  to: string;
  state?: Record<string, unknown>;
}

export type SubmitOutcome =
  | { ok: true; navigation: Navigation; successToast?: string }
  | { ok: true; completion: Completion; successToast?: string }
  | { ok: false; message: string; fieldErrors?: Record<string, string[]>; navigation?: Navigation; signInAgain?: boolean };

export function guardRedirect(guards: Guard[] | undefined): Guard | undefined {
  return failingGuard(guards, browserLookup());
}

/**
 * Keeps what the resume table's row for this answer says (a resume link's, or a sign-in's: the
 * token, the driver's id, …) and returns the row. `link` is the resume link's id and token.
 */
export function storeReturningDriver(answer: Record<string, unknown>, link?: { id: string; token?: string }): ResumeRule | undefined {
  const lookup = resumeLookup(answer, link);
  const rule = resolveResume(flow.resume, lookup);
  applyStore(rule?.store, lookup);
  return rule;
}

/**
 * A returning driver (a resume link, a sign-in) to the step the flow's resume table names: what
 * the row keeps is stored, its calls are made (a failed one is left to the step's own Resend),
 * and the step is where to go.
 */
export async function followResume(answer: Record<string, unknown>, link?: { id: string; token?: string }): Promise<Navigation> {
  const rule = storeReturningDriver(answer, link);
  for (const after of rule?.after ?? []) {
    const call = callByName(after.call);
    await callApi(call, buildPayload(call, browserLookup()));
  }
  return { to: routeOf(rule?.to ?? flow.start), state: rule?.state };
}

/** Where a step goes once its call answered: the first of its next rules that holds, to a step or by the resume table. */
export async function nextNavigation(next: NextRule[] | undefined, answer: Record<string, unknown>, lookup: Lookup): Promise<Navigation | undefined> {
  const rule = resolveNextStep(next, lookup);
  if (!rule) return undefined;
  if (rule.resume || rule.to === undefined) return followResume(answer);
  return { to: routeOf(rule.to), state: rule.state };
}

/** A step's call sent: its answer with what it was built from, or the message of a `prepare` that failed. */
type SentStep = { ok: true; result: ApiResult; context: Record<string, unknown>; payload: Record<string, unknown> } | { ok: false; message: string };

/**
 * The step's new photos, each sent ahead of the step in a request of its own, its slot showing
 * how much has gone, and kept as sent: the step's call then carries its id (`kept:<id>`), so a
 * retry after a dropped connection sends only the photos that had not arrived. The first that
 * fails stops the step; its message goes on its field. Undefined when every photo arrived.
 */
async function sendPhotosAhead(stepId: string, call: Call): Promise<ApiFailure | undefined> {
  const slots = Object.entries(call.payload ?? {}).flatMap(([key, { from }]) => {
    const { kind, path } = splitSource(from);
    const field = path.join('.');
    return kind === 'file' ? [{ key, field, photo: photoPayload(field) }] : [];
  });
  const photos = slots.flatMap(({ key, field, photo }) => (photo instanceof Blob ? [{ key, field, photo }] : []));
  // The photos the server has already (sent ahead by an earlier try, or before) show as sent.
  const shares = Object.fromEntries(slots.flatMap(({ field, photo }) => (photo === undefined ? [] : [[field, photo instanceof Blob ? 0 : 1]])));
  try {
    for (const { key, field, photo } of photos) {
      const result = await sendFileAhead(call, stepId, field, key, photo, (share) => setSentShares({ ...shares, [field]: share }));
      if (!result.ok) return { ...result, errors: result.errors ?? { [field]: [result.message ?? flow.messages.requestFailed] } };
      keepSentPhoto(field, result.data.id);
      shares[field] = 1;
    }
    return undefined;
  } finally {
    if (photos.length > 0) setSentShares(undefined);
  }
}

/** Runs the step's `prepare`, sends its new photos ahead, and sends its call with the payload the flow maps from the form. */
export async function sendStep(stepId: string, step: FormStep, form: Record<string, unknown>): Promise<SentStep> {
  let context: Record<string, unknown>;
  try {
    context = await runPrepare(step.prepare, form);
  } catch (error) {
    if (error instanceof PrepareError) return { ok: false, message: error.message };
    throw error;
  }
  const call = callByName(step.call);
  const photoFailure = await sendPhotosAhead(stepId, call);
  if (photoFailure) return { ok: true, result: photoFailure, context, payload: {} };
  const payload = buildPayload(call, browserLookup({ form, context }));
  return { ok: true, result: await callApi(call, payload), context, payload };
}

export async function submitStep(stepId: string, step: FormStep, form: Record<string, unknown>): Promise<SubmitOutcome> {
  const sent = await sendStep(stepId, step, form);
  if (!sent.ok) return sent;
  const { result, context, payload } = sent;
  if (!result.ok) {
    return { ok: false, message: result.message ?? flow.messages.requestFailed, fieldErrors: result.errors, signInAgain: isSignInAgain(result) };
  }
  // What was sent changed the driver's status: the next screen reads it afresh (a fix sent no longer shows as asked for).
  await forgetDriverStatus();

  const afterCall = browserLookup({ form, context, payload, response: result.data });
  applyStore(step.store, afterCall);

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
  const navigation = await nextNavigation(step.next, result.data, browserLookup({ form, payload, response: result.data }));
  if (!navigation) return { ok: false, message: flow.messages.requestFailed };
  return { ok: true, navigation, successToast: step.successToast };
}
