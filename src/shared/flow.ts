/**
 * The onboarding flow file as types, and the pure functions that read it: which schema a step
 * renders, where a step goes next, what a call sends and how the server reads it back. The
 * browser and the server both use these; nothing here touches the DOM, storage or the network.
 */
export type Scalar = string | number | boolean | null;
export type Transform = 'lowercase' | 'usPhone' | 'nullIfEmpty' | 'omitIfEmpty';
export type SourceKind = 'form' | 'file' | 'payload' | 'response' | 'storage' | 'cookie' | 'context' | 'state' | 'status' | 'link' | 'const';

export interface Condition {
  source: string;
  equals?: Scalar;
  present?: boolean;
}
export interface NextRule {
  when?: Condition[];
  /** The step to go to; absent when `resume` is set. */
  to?: string;
  /** Instead of `to`: the resume table decides, from the call's answer. */
  resume?: true;
  state?: Record<string, string | number | boolean>;
  /** Targets to remove on going this way. */
  clear?: string[];
  successToast?: string;
  errorToast?: string;
}
export interface PayloadField {
  from: string;
  transform?: Transform[];
}
export interface Call {
  method: 'GET' | 'POST';
  path: string;
  encoding: 'json' | 'multipart';
  auth: 'cookie' | 'storage';
  payload?: Record<string, PayloadField>;
}
export interface Guard {
  require: string;
  toast?: string;
  to: string;
}
export interface AfterCall {
  when?: Condition[];
  call: string;
  onError?: CallError;
}
export interface StepAction {
  label: string;
  call: string;
  successStatus?: number;
  successToast?: string;
}
export interface SocialProvider {
  id: 'google.com' | 'apple.com' | 'facebook.com';
  /** "Google", for `{provider}` in the test-account text. */
  name: string;
  label: string;
  /** Shown when the provider's popup cannot open. */
  popupError: string;
}
export interface SocialSignIn {
  call: string;
  providers: SocialProvider[];
  divider?: string;
  next: NextRule[];
  /** Copy of the local test-account dialog that stands in for the provider's popup. */
  testAccount: { title: string; description: string; emailLabel: string; submit: string; cancel: string };
}
export interface ScreenAction {
  label: string;
  to: string;
}
/** "Already signed up? Sign in": a link to another step. */
export interface StepLink {
  text?: string;
  label: string;
  to: string;
}
/** The journey's end: the view a form step shows after its last successful submit. */
export interface Completion {
  image?: string;
  title: string;
  message: string;
  hint: string;
  /** Posted to an embedding app (window.parent, React Native's web view) so it can close the flow. */
  hostMessage: string;
}
export interface CallError {
  fallback: string;
  clear?: string[];
  to: string;
}
export interface FormStep {
  route: string;
  kind: 'form';
  schema: string;
  variants?: { when: Condition[]; schema: string }[];
  aside?: 'journey';
  guards?: Guard[];
  prepare?: string[];
  call: string;
  store?: Record<string, string>;
  after?: AfterCall[];
  successToast?: string;
  actions?: StepAction[];
  /** Shows the flow's social sign-in buttons under the form. */
  social?: true;
  /** The answers stay in the browser: `prepare` uses them and the call sends what it produced. */
  private?: true;
  passwordReset?: { label: string; sent: string; emailNeeded: string };
  links?: StepLink[];
  /** Where a successful submit goes; absent only on the last step, which has a `completion`. */
  next?: NextRule[];
  completion?: Completion;
}
export interface ScreenStep {
  route: string;
  kind: 'screen';
  screen: string;
  /** The call the screen makes on opening. */
  call?: string;
  guards?: Guard[];
  onEnter?: { clear?: string[] };
  content?: { image?: string; title?: string; message?: string; action?: ScreenAction };
  /** Asks a call again and again; the answer is `status.*` for the rules. */
  poll?: { call: string; everyMs: number; next: NextRule[] };
  rejected?: { title: string; message: string; hint: string; action: ScreenAction; fixes?: { message: string; action: string } };
  panel?: { open: string; title: string; lines: string[]; close: string };
  /** Where the screen goes on; with a `call`, the rules read its answer as `response.*`. */
  next?: NextRule[];
  /** What the screen keeps from its call's answer. */
  store?: Record<string, string>;
  onError?: CallError;
  sections?: { title: string; items: string[] }[];
  links?: StepLink[];
  priceCaption?: string;
  card?: { loading: string; submit: string; retry: string; errors: { provider: string; unexpected: string; thrown: string } };
}
export type Step = FormStep | ScreenStep;
export interface ResumeRule {
  when?: Condition[];
  /** What to keep from the answer (`response.token`, `response.driverId`, …) before going on. */
  store?: Record<string, string>;
  /** Calls made before going on (the code the step asks for). */
  after?: { call: string }[];
  to: string;
  state?: Record<string, string | number | boolean>;
}
export interface Account {
  /** The sign-in step, which the sign-in-again dialog shows too. */
  signIn: string;
  signOut: { label: string; call: string; toast: string; to: string };
  signInAgain: { title: string; message: string; cancel: string };
}
/** What administrators review, and may ask a driver to fix field by field. */
export interface Review {
  steps: string[];
  /** The fields the review queue shows and searches a driver by. */
  name: { step: string; fields: string[] };
  /** The call that answers a step's stored answers (`StepAnswersAnswer`), to prefill its form. */
  answersCall: string;
}
export interface Flow {
  start: string;
  journey: string[];
  /** Said by the browser, and by the server where the spec has it answer in these words. */
  messages: {
    requestFailed: string;
    statusFailed: string;
    timedOut: string;
    identityFailed: string;
    tokenMissing: string;
    signInFailed: string;
    sessionExpired: string;
    invalidPhone: string;
  };
  account: Account;
  review: Review;
  social?: SocialSignIn;
  calls: Record<string, Call>;
  steps: Record<string, Step>;
  resume: ResumeRule[];
}

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

/** Fills `{storage.phone}`-style placeholders of a text from the lookup. */
export function interpolate(text: string, lookup: Lookup): string {
  return text.replace(/\{([a-z]+\.[A-Za-z0-9_.]+)\}/g, (_whole, source: string) => {
    const value = lookup(source);
    return value === undefined || value === null ? '' : String(value);
  });
}
