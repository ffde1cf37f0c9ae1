/**
 * Reads a request the way the flow file says its call sends it: the one implementation of the
 * mapping back from a payload to a form's values, so the server validates them with the very
 * schema the browser rendered, and answers with the schema's own messages. JSON and multipart
 * bodies go the same way:
 *
 *   body → readPayload (flow.ts: the flow's transforms undone) → unknown keys refused → each file
 *   received to a scratch file and its type read by sharp from its header → multipart "true"/"false"
 *   become booleans where the schema says boolean → the step schema (the variant the flow's own
 *   rule picks) → 400 { message, errors } → each image decoded and encoded again (reencodeImage.ts:
 *   no EXIF/GPS kept, at most 40 megapixels, unreadable bytes refused) and stored.
 *
 * The values that are not the form's (an ID token, the address, the stored email or vehicle id)
 * are checked by schemas/call-context.schema.json. What a route gets is validated: the form's
 * values, the payload as the flow maps it from them (`sent`: its transforms applied once, here:
 * the email lower-cased, the phone with +1), and the context.
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { MultipartFile, MultipartValue } from '@fastify/multipart';
import { httpErrors } from '@fastify/sensible';
import type { FastifyRequest } from 'fastify';
import { createAjv } from '../../shared/ajv.js';
import type Ajv from 'ajv';
import { expandErrors, fieldOf, fromAjvErrors, messagesByField, type ValidationErrorLike } from '../../shared/errors.js';
import { buildPayload, lookupIn, readPayload, splitSource, stepSchemaName, type Call, type Flow, type FormStep } from '../../shared/flow.js';
import { FLOW_FILE, loadSchema, readTranslations, schemaNamesOf } from '../../node/projectFiles.js';
import { DEFAULT_LOCALE, localize, preferredLocale, type Locale } from '../../shared/locales.js';
import { KEPT_FILE_PREFIX } from '../../shared/review.js';
import type { JsonObject } from '../../shared/schemaFiles.js';
import { formError } from '../errors.js';
import { MAX_FILE_BYTES, type ReceivedFile, type StoredFile } from '../plugins/uploads.js';
import { createFormSchemas } from './formSchemas.js';
import { isWellFormedText } from './wellFormedText.js';
import { SERVER_MESSAGES } from '../serverMessages.js';
import type { CallContext } from '../../shared/generated/callContext.js';
import type { CallForms } from '../../shared/generated/forms.js';

export type ContextName = keyof CallContext;

/** A call as `check` reads it, before its form and context take their types; files by upload id. */
interface CheckedCall extends Omit<CallValues, 'files' | 'context'> {
  context: Record<string, unknown>;
  files: Record<string, string>;
}

/**
 * The checked values with their types: the form passed its step's schema, and each context value
 * the call maps passed the context schema (`expects` must be among them).
 */
const typed = <CallName extends string, Names extends ContextName>(checked: CheckedCall) => ({
  ...checked,
  form: checked.form as Partial<FormOf<CallName>>,
  context: checked.context as Pick<CallContext, Names>,
});

/** The form a call sends, as its step's schemas type it (none for a call without a form). */
export type FormOf<CallName extends string> = CallName extends keyof CallForms ? CallForms[CallName] : Record<string, never>;

export interface CallValues<Names extends ContextName = never, Form = Record<string, unknown>> {
  /** The form's values, validated by its step's schema (files are in `files` and `keptFiles`). */
  form: Partial<Form>;
  /** The payload as the flow maps it from those values and the context (file fields left out). */
  sent: Record<string, unknown>;
  /** The context values the route expects, each checked by the context schema. */
  context: Pick<CallContext, Names>;
  /**
   * Uploaded files by form field, stored (re-encoded, encrypted): the route keeps them by writing
   * their rows, or they go with the request when it fails (plugins/uploads.ts).
   */
  files: Record<string, StoredFile>;
  /** Files kept from the step's earlier answers: upload id by form field. */
  keptFiles: Record<string, string>;
  /** The form step the call sends; null for a call with no form. */
  step: string | null;
  /**
   * The form's schema (the variant's name), its version (a hash of its content) and its sensitive
   * fields; null for a call with no form.
   */
  schema: { name: string; version: string; sensitive: string[] } | null;
}

/**
 * What a driver sending a step again may keep from the last time (a prefilled form): a file,
 * sent as the text `kept:<upload id>` in its field, and a sensitive value, sent back as the mask
 * it was shown ("•••••6789").
 */
export interface KeptAnswers {
  /** The type of the driver's upload kept in this field, or undefined if it is not theirs there. */
  file(field: string, uploadId: string): string | undefined;
  /** The value behind the mask the driver was shown in this field, or undefined if `value` is not that mask. */
  masked(field: string, value: string): string | undefined;
}

export const KEPT_FILE_GONE = 'A file you kept from before is no longer there. Please add it again:';

export interface ReadOptions<Names extends ContextName> {
  /** What the step's earlier answers let the driver keep; nothing when absent. */
  keep?: KeptAnswers;
  /** What the driver's browser keeps, for the flow's variant rules (`storageForStatus`). */
  storage?: Record<string, string>;
  /**
   * The context values the route reads: the call must map each one (checked when the request is
   * read, so a flow edit that drops one fails the route's tests, not a driver's data).
   */
  expects?: readonly Names[];
}

declare module 'fastify' {
  interface FastifyInstance {
    callReader: CallReader;
  }
  interface FastifyRequest {
    /** The language the answer is in: the first of the request's Accept-Language that Onramp speaks. */
    readonly locale: Locale;
  }
}

/** Gives each request its `locale` (read from its Accept-Language when first asked for). */
export function decorateLocale(app: { decorateRequest(name: 'locale', value: { getter(this: FastifyRequest): Locale }): unknown }): void {
  app.decorateRequest('locale', {
    getter(this: FastifyRequest) {
      return preferredLocale(this.headers['accept-language']);
    },
  });
}

export const UNREADABLE_FORM = 'The form could not be read: it was cut short or is not a multipart form. Please send it again.';

/** Longest text a multipart field may carry (the longest form value is an email: 254). */
const MAX_FIELD_BYTES = 4 * 1024;

export interface CallReader {
  /** The flow the reader reads calls by (the last good edit's, under `npm run dev`). */
  readonly flow: Flow;
  /** The same flow with its texts (messages, toasts) in a language: a request's answers are in its own (`request.locale`). */
  flowIn(locale: Locale): Flow;
  /** The call of the flow file by name; throws at start if the flow lacks it. */
  call(name: string): Call;
  /** The form step whose answers a call sends, or null. */
  stepOf(callName: string): string | null;
  /** The call's path as a Fastify route ("/driver/status/{id}" → "/driver/status/:id"). */
  routePath(callName: string): string;
  json<CallName extends string, Names extends ContextName = never>(
    callName: CallName,
    request: FastifyRequest,
    options?: ReadOptions<Names>,
  ): CallValues<Names, FormOf<CallName>>;
  multipart<CallName extends string, Names extends ContextName = never>(
    callName: CallName,
    request: FastifyRequest,
    options?: ReadOptions<Names>,
  ): Promise<CallValues<Names, FormOf<CallName>>>;
  /**
   * One file of a step sent ahead of it, in a request of its own (so that a retry resends only
   * what did not arrive): checked by the step's schema as the step checks it, then decoded,
   * encoded again and stored. 404 when the step takes no file in `field`.
   */
  fileAhead(step: string, field: string, request: FastifyRequest): Promise<StoredFile>;
}

export const NO_FILE_FIELD = 'This step takes no file there.';

/** The step whose form a call sends, if it sends one (a private step's answers never reach the server). */
function formStepOf(flow: Flow, callName: string): { id: string; step: FormStep } | null {
  for (const [id, step] of Object.entries(flow.steps)) if (step.kind === 'form' && step.call === callName && !step.private) return { id, step };
  return null;
}

/** The names a call's non-form values go by in the context schema (storage.email → "email"), by payload key. */
function contextNamesOf(call: Call): Map<string, string> {
  const names = new Map<string, string>();
  for (const [key, mapping] of Object.entries(call.payload ?? {})) {
    const { kind, path } = splitSource(mapping.from);
    if (kind === 'storage' || kind === 'context') names.set(key, path.join('.'));
  }
  return names;
}

/** A check of a call's context values: the context schema narrowed to the values the call maps. */
function contextCheckOf(ajv: Ajv, context: JsonObject, names: string[]): (values: Record<string, unknown>) => string | null {
  const pick = (object: unknown) => Object.fromEntries(Object.entries((object ?? {}) as JsonObject).filter(([name]) => names.includes(name)));
  const errorMessage = (context.errorMessage ?? {}) as JsonObject;
  const validate = ajv.compile({
    ...context,
    properties: pick(context.properties),
    required: names,
    additionalProperties: false,
    errorMessage: { ...errorMessage, required: pick(errorMessage.required) },
  });
  return (values) => {
    if (validate(values)) return null;
    const [first] = expandErrors(fromAjvErrors(validate.errors ?? []));
    return first?.message ?? 'The request is not valid.';
  };
}

/** A schema message stands alone; Ajv's own ("must be boolean") needs the field's name (its payload key). */
const messageOf = (error: ValidationErrorLike, key: string) =>
  error.name === 'errorMessage' ? (error.message ?? '') : `${key} ${error.message ?? 'is not valid'}`;

/** The pieces of a multipart body the parser could not read (no boundary, cut short): our refusals and its limits' (413) pass as they are. */
function readable(error: unknown): unknown {
  const status = (error as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && status < 500 ? error : httpErrors.badRequest(UNREADABLE_FORM);
}

export function createCallReader(flow: Flow): CallReader {
  const schemaNamed = createFormSchemas();
  const versions = new Map<string, string>();
  const versionOf = (name: string) => {
    let version = versions.get(name);
    if (!version) {
      version = createHash('sha256')
        .update(JSON.stringify(loadSchema(name)))
        .digest('hex')
        .slice(0, 16);
      versions.set(name, version);
    }
    return version;
  };

  const call = (name: string): Call => {
    const found = Object.hasOwn(flow.calls, name) ? flow.calls[name] : undefined;
    if (!found) throw new Error(`flows/onboarding.flow.json has no call "${name}"`);
    return found;
  };

  // Every call's context check and every step schema compiled now: a broken file stops the start, not a driver's request.
  // One Ajv for the context checks: setting one up costs more than compiling a check.
  const contextAjv = createAjv();
  const contextChecksIn = new Map<Locale, Map<string, (values: Record<string, unknown>) => string | null>>();
  /** Each call's context check, with the context schema's messages in `locale` (compiled the first time one is asked for). */
  const contextChecks = (locale: Locale) => {
    let checks = contextChecksIn.get(locale);
    if (!checks) {
      const contextSchema = loadSchema('call-context', locale);
      checks = new Map(
        Object.entries(flow.calls).map(([name, theCall]) => [name, contextCheckOf(contextAjv, contextSchema, [...new Set(contextNamesOf(theCall).values())])]),
      );
      contextChecksIn.set(locale, checks);
    }
    return checks;
  };
  contextChecks(DEFAULT_LOCALE);
  /** The flow with its texts in `locale`, made once per language. */
  const flows = new Map<Locale, Flow>([[DEFAULT_LOCALE, flow]]);
  const flowIn = (locale: Locale): Flow => {
    let localized = flows.get(locale);
    if (!localized) {
      localized = localize(flow, readTranslations(locale, basename(FLOW_FILE)), locale);
      flows.set(locale, localized);
    }
    return localized;
  };
  for (const name of schemaNamesOf(flow)) schemaNamed(name);

  /** Payload key of a form field, for messages ("zipcode" for the form's zipCode). */
  const payloadKeyOf = (theCall: Call, field: string) =>
    Object.entries(theCall.payload ?? {}).find(([, mapping]) => splitSource(mapping.from).path.join('.') === field)?.[0] ?? field;

  function check(
    callName: string,
    body: Record<string, unknown>,
    files: Record<string, { mime: string }>,
    kept: Record<string, string>,
    options: ReadOptions<ContextName>,
    fromMultipart: boolean,
    locale: Locale,
  ): CheckedCall {
    const theCall = call(callName);
    const mapped = new Set(contextNamesOf(theCall).values());
    const missing = (options.expects ?? []).find((name) => !mapped.has(name));
    if (missing) throw new Error(`flows/onboarding.flow.json: the call "${callName}" no longer sends ${missing}, which its route reads`);
    const mapping = theCall.payload ?? {};
    // Own keys only: a key such as "constructor" is no field of the call.
    const unknown = Object.keys(body).find((key) => !Object.hasOwn(mapping, key));
    if (unknown !== undefined) throw httpErrors.badRequest(`Unknown field: ${unknown}`);
    const received = readPayload(theCall, body);

    const context: Record<string, unknown> = {};
    for (const [key, name] of contextNamesOf(theCall)) if (Object.hasOwn(body, key)) context[name] = body[key];
    const contextProblem = contextChecks(locale).get(callName)!(context);

    /** Payload key by form field, for the files that came. */
    const filesByField: Record<string, string> = {};
    const keptFiles: Record<string, string> = {};
    for (const [field, key] of Object.entries(received.files)) {
      const file = files[key];
      if (file) {
        filesByField[field] = key;
        received.form[field] = file.mime;
      } else if (kept[key] !== undefined) {
        const mime = options.keep?.file(field, kept[key]);
        if (!mime) throw httpErrors.badRequest(`${KEPT_FILE_GONE} ${key}`);
        keptFiles[field] = kept[key];
        received.form[field] = mime;
      }
    }
    // A sensitive value sent back as the mask it was shown: the stored value, checked again.
    for (const [field, value] of Object.entries(received.form)) {
      const plain = typeof value === 'string' ? options.keep?.masked(field, value) : undefined;
      if (plain !== undefined) received.form[field] = plain;
    }
    const formStep = formStepOf(flow, callName);
    // The variant the flow's own rule picks, from what the driver's browser keeps.
    const schemaName = formStep ? stepSchemaName(formStep.step, lookupIn({ storage: options.storage ?? {} })) : null;
    if (schemaName) {
      const { errorsOf, properties } = schemaNamed(schemaName, locale);
      for (const field of Object.keys(received.form)) {
        // A field the call can carry but this variant does not take (phoneNo in the password profile).
        if (!Object.hasOwn(properties, field)) throw httpErrors.badRequest(`Unknown field: ${payloadKeyOf(theCall, field)}`);
        const value = received.form[field];
        if (fromMultipart && properties[field]?.type === 'boolean' && (value === 'true' || value === 'false')) {
          received.form[field] = value === 'true';
        }
      }
      const errors = errorsOf(received.form);
      if (errors.length > 0) {
        const first = expandErrors(errors)[0];
        const message = first ? messageOf(first, payloadKeyOf(theCall, fieldOf(first.property))) : 'The form is not valid.';
        throw formError(400, message, messagesByField(errors));
      }
    }
    // After the form's own check: the driver's answers are told field by field first.
    if (contextProblem) throw httpErrors.badRequest(contextProblem);
    const sent = buildPayload(theCall, (source) => {
      const { kind, path } = splitSource(source);
      const name = path.join('.');
      if (kind === 'form') return received.form[name];
      if (kind === 'storage' || kind === 'context') return context[name];
      return undefined;
    });
    return {
      form: received.form,
      sent,
      context,
      files: filesByField,
      keptFiles,
      step: formStep?.id ?? null,
      schema: schemaName ? { name: schemaName, version: versionOf(schemaName), sensitive: schemaNamed(schemaName).sensitive } : null,
    };
  }

  return {
    flow,
    flowIn,
    call,
    stepOf: (callName) => formStepOf(flow, callName)?.id ?? null,
    routePath: (callName) => call(callName).path.replace(/\{(\w+)\}/g, ':$1'),

    json<CallName extends string, Names extends ContextName = never>(callName: CallName, request: FastifyRequest, options: ReadOptions<Names> = {}) {
      if (request.isMultipart()) throw httpErrors.unsupportedMediaType('This request must be sent as JSON.');
      const body: unknown = request.body ?? {};
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw httpErrors.badRequest('The request body must be a JSON object.');
      return { ...typed<CallName, Names>(check(callName, body as Record<string, unknown>, {}, {}, options, false, request.locale)), files: {} };
    },

    async multipart<CallName extends string, Names extends ContextName = never>(callName: CallName, request: FastifyRequest, options: ReadOptions<Names> = {}) {
      if (!request.isMultipart()) throw httpErrors.unsupportedMediaType('This request must be sent as a multipart form.');
      const mapping = call(callName).payload ?? {};
      const fileKeys = new Set(Object.keys(mapping).filter((key) => splitSource(mapping[key]!.from).kind === 'file'));
      const textKeyCount = Object.keys(mapping).length - fileKeys.size;
      const fields: Record<string, string> = {};
      const files: Record<string, ReceivedFile> = {};
      const kept: Record<string, string> = {};
      const uploads = request.server.uploads;
      const parts = request.parts({
        // Exactly as many files as the call maps; a few spare text fields so an unknown one is
        // reported by name rather than as "too many".
        limits: {
          files: fileKeys.size,
          fileSize: MAX_FILE_BYTES,
          fields: textKeyCount + 10,
          fieldSize: MAX_FIELD_BYTES,
          parts: fileKeys.size + textKeyCount + 10,
        },
      });
      try {
        try {
          for await (const part of parts) {
            const name = part.fieldname;
            if (part.type === 'file') {
              const file = part as MultipartFile;
              if (!fileKeys.has(name)) {
                file.file.resume();
                throw httpErrors.badRequest(Object.hasOwn(mapping, name) ? `${name} must be text, not a file.` : `Unknown field: ${name}`);
              }
              if (files[name] || Object.hasOwn(kept, name)) {
                file.file.resume();
                throw httpErrors.badRequest(`Only one file can be sent as ${name}.`);
              }
              // To a scratch file as it arrives: memory holds a chunk at a time, not the photo.
              const received = await uploads.receive(file.file);
              // An empty file input sends an empty part with no name: the field is simply absent.
              if (received.size === 0 && !file.filename) await uploads.discard(received);
              else files[name] = received;
            } else {
              const field = part as MultipartValue;
              if (Object.hasOwn(fields, name) || Object.hasOwn(kept, name)) throw httpErrors.badRequest(`${name} was sent more than once.`);
              if (fileKeys.has(name)) {
                if (typeof field.value !== 'string' || !field.value.startsWith(KEPT_FILE_PREFIX) || files[name])
                  throw httpErrors.badRequest(`${name} must be a file.`);
                kept[name] = field.value.slice(KEPT_FILE_PREFIX.length);
                continue;
              }
              if (field.valueTruncated) throw httpErrors.badRequest(`${name} is too long.`);
              if (typeof field.value !== 'string') throw httpErrors.badRequest(`${name} must be text.`);
              if (!isWellFormedText(field.value)) throw httpErrors.badRequest(SERVER_MESSAGES.request.illFormedText);
              fields[name] = field.value;
            }
          }
        } catch (error) {
          throw readable(error);
        }
        const body: Record<string, unknown> = { ...fields };
        for (const key of [...Object.keys(files), ...Object.keys(kept)]) body[key] = true;
        const checked = check(callName, body, files, kept, options, true, request.locale);
        // Only a valid form's images are decoded (the costly part), one at a time in the whole
        // server to bound memory. What is stored is the re-encoded image: no GPS or other EXIF
        // from the driver's phone in their identity documents, and no pixel bombs (reencodeImage.ts).
        const stored: Record<string, StoredFile> = {};
        for (const [field, key] of Object.entries(checked.files)) {
          stored[field] = await uploads.store(files[key]!, field);
          // Removed with the request if it fails before its rows are written (plugins/uploads.ts).
          (request.uncommittedUploads ??= []).push(stored[field]);
          checked.form[field] = stored[field].mime;
        }
        return { ...typed<CallName, Names>(checked), files: stored };
      } finally {
        await Promise.all(Object.values(files).map((file) => uploads.discard(file)));
      }
    },

    async fileAhead(stepId, field, request) {
      const step = Object.hasOwn(flow.steps, stepId) ? flow.steps[stepId] : undefined;
      const payload = step?.kind === 'form' && !step.private ? (call(step.call).payload ?? {}) : {};
      const key = Object.keys(payload).find((each) => {
        const { kind, path } = splitSource(payload[each]!.from);
        return kind === 'file' && path.join('.') === field;
      });
      const schemaName =
        step?.kind === 'form' && key !== undefined
          ? [step.schema, ...(step.variants ?? []).map((variant) => variant.schema)].find((name) => Object.hasOwn(schemaNamed(name).properties, field))
          : undefined;
      if (!schemaName || key === undefined) throw httpErrors.notFound(NO_FILE_FIELD);
      if (!request.isMultipart()) throw httpErrors.unsupportedMediaType('This request must be sent as a multipart form.');
      const uploads = request.server.uploads;
      let received: ReceivedFile | undefined;
      try {
        try {
          for await (const part of request.parts({ limits: { files: 1, fileSize: MAX_FILE_BYTES, fields: 0, parts: 1 } })) {
            if (part.type !== 'file' || part.fieldname !== key) {
              if (part.type === 'file') part.file.resume();
              throw httpErrors.badRequest(`Send one file, as ${key}.`);
            }
            received = await uploads.receive(part.file);
          }
        } catch (error) {
          throw readable(error);
        }
        const form = received && received.size > 0 ? { [field]: received.mime } : {};
        const problem = expandErrors(schemaNamed(schemaName, request.locale).errorsOf(form)).find((error) => fieldOf(error.property) === field);
        if (problem || !received) {
          const message = problem ? messageOf(problem, key) : 'The form is not valid.';
          throw formError(400, message, { [field]: [message] });
        }
        const stored = await uploads.store(received, field);
        // Removed with the request if it fails before its row is written (plugins/uploads.ts).
        (request.uncommittedUploads ??= []).push(stored);
        return stored;
      } finally {
        if (received) await uploads.discard(received);
      }
    },
  };
}
