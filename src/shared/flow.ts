/**
 * The onboarding flow file as types, and the pure functions that read it: which schema a step
 * renders, where a step goes next, what a call sends and how the server reads it back. The
 * browser and the server both use these; nothing here touches the DOM, storage or the network.
 */
import type { Call, Conditions, Flow, FormStep, Guards, Links, NextRules, ScreenStep } from './generated/flow.js';

/** The flow's types are generated from flows/flow.schema.json (`npm run types`); these name its parts. */
export type { Call, Flow, FormStep, ScreenStep };
export type Step = FormStep | ScreenStep;
export type Condition = Conditions[number];
export type Scalar = Exclude<Condition['equals'], undefined>;
export type NextRule = NextRules[number];
export type PayloadField = NonNullable<Call['payload']>[string];
export type Transform = NonNullable<PayloadField['transform']>[number];
export type Guard = Guards[number];
export type AfterCall = NonNullable<FormStep['after']>[number];
export type CallError = NonNullable<AfterCall['onError']>;
export type StepAction = NonNullable<FormStep['actions']>[number];
export type StepLink = Links[number];
export type Completion = NonNullable<FormStep['completion']>;
export type ScreenAction = NonNullable<NonNullable<ScreenStep['content']>['action']>;
export type SocialSignIn = NonNullable<Flow['social']>;
export type SocialProvider = SocialSignIn['providers'][number];
export type ResumeRule = Flow['resume'][number];
export type Account = Flow['account'];
export type Review = Flow['review'];

/**
 * A step's stage of the journey: its index in `journey` (-1: none). Read in the flow as written,
 * where a step names its stage by the stage's English label; a translation shows the label at
 * that index, so a step's label is never translated itself.
 */
export const stageOf = (flow: Flow, step: Pick<Step, 'journey'> | undefined): number => (step?.journey === undefined ? -1 : flow.journey.indexOf(step.journey));
/** Where a source reads from: the part of "storage.email" before the first dot. */
export type SourceKind = 'form' | 'file' | 'payload' | 'response' | 'storage' | 'cookie' | 'context' | 'state' | 'status' | 'link' | 'const';

/** Reads a value named by a source ("storage.email", "response.data.vehicle.id"). */
export type Lookup = (source: string) => unknown;

export function splitSource(source: string): { kind: SourceKind; path: string[] } {
  const [kind, ...path] = source.split('.');
  return { kind: kind as SourceKind, path };
}

/**
 * A lookup over plain objects, one per source kind; missing kinds read as undefined.
 * `const.x` reads as the text "x".
 */
export function lookupIn(values: Partial<Record<SourceKind, unknown>>): Lookup {
  return (source) => {
    const { kind, path } = splitSource(source);
    if (kind === 'const') return path.join('.');
    let node: unknown = values[kind];
    for (const key of path) {
      if (node === null || typeof node !== 'object') return undefined;
      node = (node as Record<string, unknown>)[key];
    }
    return node;
  };
}

const isEmpty = (value: unknown) => value === undefined || value === null || value === '';

export function conditionHolds(condition: Condition, lookup: Lookup): boolean {
  const value = lookup(condition.source);
  if (condition.present !== undefined && condition.present === isEmpty(value)) return false;
  if ('equals' in condition && value !== condition.equals) return false;
  return true;
}

export const allHold = (conditions: Condition[] | undefined, lookup: Lookup) => (conditions ?? []).every((c) => conditionHolds(c, lookup));

/** The first rule whose conditions hold; rules without `when` always hold. */
export function resolveNextStep(rules: NextRule[] | undefined, lookup: Lookup): NextRule | undefined {
  return rules?.find((rule) => allHold(rule.when, lookup));
}

/** A call's answer as the resume table reads it: `status.*` is its `data`, `response.*` the whole answer. */
export const resumeLookup = (answer: Record<string, unknown>, link?: { id: string; token?: string }): Lookup =>
  lookupIn({ status: answer.data, response: answer, link });

export function resolveResume(rules: ResumeRule[], lookup: Lookup): ResumeRule | undefined {
  return rules.find((rule) => allHold(rule.when, lookup));
}

/**
 * What the browser of a driver with this status keeps, as far as the resume table's row for it
 * says from the status alone (constants and status values; not the answer's token): the server
 * reads the flow's own rules, e.g. a form's variant by `storage.isSocial`, with it.
 */
export function storageForStatus(flow: Pick<Flow, 'resume'>, status: Record<string, unknown>): Record<string, string> {
  const lookup = lookupIn({ status });
  const rule = resolveResume(flow.resume, lookup);
  const storage: Record<string, string> = {};
  for (const [target, source] of Object.entries(rule?.store ?? {})) {
    const { kind } = splitSource(source);
    if (!target.startsWith('storage.') || (kind !== 'const' && kind !== 'status')) continue;
    const value = lookup(source);
    if (value !== undefined && value !== null) storage[target.slice('storage.'.length)] = String(value);
  }
  return storage;
}

/** The schema a form step renders: the first variant whose conditions hold, else its own. */
export function stepSchemaName(step: FormStep, lookup: Lookup): string {
  return step.variants?.find((v) => allHold(v.when, lookup))?.schema ?? step.schema;
}

/** The first guard whose required value is missing, if any. */
export function failingGuard(guards: Guard[] | undefined, lookup: Lookup): Guard | undefined {
  return guards?.find((guard) => isEmpty(lookup(guard.require)));
}

/** Marker for a key to leave out of the payload. */
const OMIT = Symbol('omit');

function applyTransform(transform: Transform, value: unknown): unknown {
  switch (transform) {
    case 'lowercase':
      return typeof value === 'string' ? value.trim().toLowerCase() : value;
    case 'usPhone':
      return typeof value === 'string' && value !== '' ? `+1${value.replace(/\D/g, '')}` : value;
    case 'nullIfEmpty':
      return isEmpty(value) ? null : value;
    case 'omitIfEmpty':
      return isEmpty(value) ? OMIT : value;
  }
}

/**
 * The payload a call sends, built from its mapping (spec §3: lower-cased email, +1 phone,
 * zipCode → zipcode, referalCode null when empty, MI/suffix only when non-empty). A `file.x`
 * source is read through the lookup too; the caller decides what a file is.
 */
export function buildPayload(call: Call, lookup: Lookup): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(call.payload ?? {})) {
    let value: unknown = lookup(field.from);
    for (const transform of field.transform ?? []) {
      if (value === OMIT) break;
      value = applyTransform(transform, value);
    }
    if (value !== OMIT && value !== undefined) payload[key] = value;
  }
  return payload;
}

function undoTransform(transform: Transform, value: unknown): unknown {
  switch (transform) {
    case 'usPhone':
      return typeof value === 'string' && value.startsWith('+1') ? value.slice(2) : value;
    case 'nullIfEmpty':
      return value === null ? undefined : value;
    case 'lowercase':
    case 'omitIfEmpty':
      return value;
  }
}

export interface ReceivedPayload {
  /** The form's values, as the step's schema describes them. */
  form: Record<string, unknown>;
  /** Payload keys that map to a `file.x` source, by form field. */
  files: Record<string, string>;
}

/**
 * The server's reading of a payload: the inverse of `buildPayload`, so the server validates
 * the form's values with the same schema the browser used. Empty strings count as absent, as
 * rjsf treats an emptied field, so both sides report the same "required" message.
 */
export function readPayload(call: Call, body: Record<string, unknown>): ReceivedPayload {
  const received: ReceivedPayload = { form: {}, files: {} };
  const mapping = call.payload ?? {};
  for (const [key, field] of Object.entries(mapping)) {
    const { kind, path } = splitSource(field.from);
    const name = path.join('.');
    if (kind === 'file') {
      received.files[name] = key;
      continue;
    }
    if (kind !== 'form' || !Object.hasOwn(body, key)) continue;
    let value = body[key];
    for (const transform of [...(field.transform ?? [])].reverse()) value = undoTransform(transform, value);
    if (value !== undefined && value !== '') received.form[name] = value;
  }
  return received;
}

/** A value as a driver reads it in a text: a US phone number kept as "+12025550143" reads "(202) 555-0143". */
function shown(value: unknown): string {
  const text = String(value);
  const phone = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(text);
  return phone ? `(${phone[1]}) ${phone[2]}-${phone[3]}` : text;
}

/**
 * Fills `{storage.phone}`-style placeholders of a text from the lookup; undefined when one has no
 * value, for the text's own words without it (a UI schema's "ui:descriptionUnfilled"), never a blank.
 */
export function interpolate(text: string, lookup: Lookup): string | undefined {
  let unknown = false;
  const filled = text.replace(/\{([a-z]+\.[A-Za-z0-9_.]+)\}/g, (_whole, source: string) => {
    const value = lookup(source);
    unknown ||= isEmpty(value);
    return isEmpty(value) ? '' : shown(value);
  });
  return unknown ? undefined : filled;
}
