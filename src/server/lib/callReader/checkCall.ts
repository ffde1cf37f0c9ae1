/**
 * The check of a call's values, as the flow file says the call sends them: the one implementation
 * of the mapping back from a payload to a form's values, so the server validates them with the
 * very schema the browser rendered, and answers with the schema's own messages. Pure: it reads the
 * payload's values (a JSON body's, or a multipart form's text fields with its files' types), and
 * needs no request, so it is tested without Fastify (tests/server/lib/callReader/checkCall.test.ts).
 *
 *   values → readPayload (flow.ts: the flow's transforms undone) → unknown keys refused → kept
 *   files and masked values taken back → multipart "true"/"false" become booleans where the schema
 *   says boolean → the step schema (the variant the flow's own rule picks) → 400 { message, errors }.
 *
 * The values that are not the form's (an ID token, the address, the stored email or vehicle id)
 * are checked by schemas/call-context.schema.json. What a route gets is validated: the form's
 * values, the payload as the flow maps it from them (`sent`: its transforms applied once, here:
 * the email lower-cased, the phone with +1), and the context.
 */
import { createHash } from 'node:crypto';
import { httpErrors } from '@fastify/sensible';
import { compileOnce } from '../../../shared/ajv.js';
import { expandErrors, fieldOf, fromAjvErrors, messagesByField, type ValidationErrorLike } from '../../../shared/errors.js';
import { buildPayload, lookupIn, readPayload, splitSource, stepSchemaName } from '../../../shared/flow.js';
import { loadSchema, schemaNamesOf } from '../../../node/projectFiles.js';
import { DEFAULT_LOCALE, type Locale } from '../../../shared/locales.js';
import type { JsonObject } from '../../../shared/schemaFiles.js';
import type { CallContext } from '../../../shared/generated/callContext.js';
import type { CallForms } from '../../../shared/generated/forms.js';
import { formError } from '../../errors.js';
import type { StoredFile } from '../uploadStore.js';
import { refusal } from '../../serverMessages.js';
import { createFormSchemas, type FormSchema } from '../formSchemas.js';
import { contextNamesOf, payloadKeyOf, type FlowIndex } from './flowIndex.js';

export type ContextName = keyof CallContext;

/** A call as `check` reads it, before its form and context take their types; files by payload key. */
export interface CheckedCall extends Omit<CallValues, 'files' | 'context'> {
  context: Record<string, unknown>;
  files: Record<string, string>;
}

/**
 * The checked values with their types: the form passed its step's schema, and each context value
 * the call maps passed the context schema (`expects` must be among them).
 */
export const typed = <CallName extends string, Names extends ContextName>(checked: CheckedCall) => ({
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

/** A call's values as they came, for `check`. */
export interface CallInput {
  /** By payload key: a JSON body's values, or a multipart form's text fields (each file and kept file as `true`). */
  body: Record<string, unknown>;
  /** The files received, by payload key: their types as read from their bytes. */
  files?: Record<string, { mime: string }>;
  /** The files kept from the step's earlier answers: upload id by payload key. */
  kept?: Record<string, string>;
  /** A multipart form's values are all text: "true"/"false" become booleans where the schema says boolean. */
  fromMultipart?: boolean;
  /** The language of the answer's messages. */
  locale: Locale;
}

/**
 * A check of a call's context values: the context schema narrowed to the values the call maps; the
 * first problem, or null. Compiled once per text in the process: a reader made again (`npm run dev`
 * after each edit, the lint's server) compiles only the checks whose schema or call changed.
 */
function contextCheckOf(context: JsonObject, names: string[]): (values: Record<string, unknown>) => { message?: string } | null {
  const pick = (object: unknown) => Object.fromEntries(Object.entries((object ?? {}) as JsonObject).filter(([name]) => names.includes(name)));
  const errorMessage = (context.errorMessage ?? {}) as JsonObject;
  const validate = compileOnce({
    ...context,
    properties: pick(context.properties),
    required: names,
    additionalProperties: false,
    errorMessage: { ...errorMessage, required: pick(errorMessage.required) },
  });
  return (values) => (validate(values) ? null : { message: expandErrors(fromAjvErrors(validate.errors ?? []))[0]?.message });
}

/** A schema message stands alone; Ajv's own ("must be boolean") needs the field's name (its payload key). */
export const messageOf = (error: ValidationErrorLike, key: string) =>
  error.name === 'errorMessage' ? (error.message ?? '') : `${key} ${error.message ?? 'is not valid'}`;

export interface CallCheck {
  /** The call's values checked, or a refusal thrown (400 { message, errors }). */
  check(callName: string, input: CallInput, options?: ReadOptions<ContextName>): CheckedCall;
  /** A step schema by name, compiled once per language. */
  schemaNamed(name: string, locale?: Locale): FormSchema;
}

/** Every call's context check and every step schema of the flow compiled now: a broken file stops the start, not a driver's request. */
export function createCallCheck(index: FlowIndex): CallCheck {
  const { flow } = index;
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

  const contextChecksIn = new Map<Locale, Map<string, (values: Record<string, unknown>) => { message?: string } | null>>();
  /** Each call's context check, with the context schema's messages in `locale` (compiled the first time one is asked for). */
  const contextChecks = (locale: Locale) => {
    let checks = contextChecksIn.get(locale);
    if (!checks) {
      const contextSchema = loadSchema('call-context', locale);
      checks = new Map(
        Object.entries(flow.calls).map(([name, theCall]) => [name, contextCheckOf(contextSchema, [...new Set(contextNamesOf(theCall).values())])]),
      );
      contextChecksIn.set(locale, checks);
    }
    return checks;
  };
  contextChecks(DEFAULT_LOCALE);
  for (const name of schemaNamesOf(flow)) schemaNamed(name);

  function check(
    callName: string,
    { body, files = {}, kept = {}, fromMultipart = false, locale }: CallInput,
    options: ReadOptions<ContextName> = {},
  ): CheckedCall {
    const theCall = index.call(callName);
    const mapped = new Set(contextNamesOf(theCall).values());
    const missing = (options.expects ?? []).find((name) => !mapped.has(name));
    if (missing) throw new Error(`flows/onboarding.flow.json: the call "${callName}" no longer sends ${missing}, which its route reads`);
    const mapping = theCall.payload ?? {};
    // Own keys only: a key such as "constructor" is no field of the call.
    const unknown = Object.keys(body).find((key) => !Object.hasOwn(mapping, key));
    if (unknown !== undefined) throw refusal(400, 'request.unknownField', { field: unknown });
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
        if (!mime) throw refusal(400, 'form.keptFileGone', { field: key });
        keptFiles[field] = kept[key];
        received.form[field] = mime;
      }
    }
    // A sensitive value sent back as the mask it was shown: the stored value, checked again.
    for (const [field, value] of Object.entries(received.form)) {
      const plain = typeof value === 'string' ? options.keep?.masked(field, value) : undefined;
      if (plain !== undefined) received.form[field] = plain;
    }
    const formStep = index.formStepOf(callName);
    // The variant the flow's own rule picks, from what the driver's browser keeps.
    const schemaName = formStep ? stepSchemaName(formStep.step, lookupIn({ storage: options.storage ?? {} })) : null;
    if (schemaName) {
      const { errorsOf, properties } = schemaNamed(schemaName, locale);
      for (const field of Object.keys(received.form)) {
        // A field the call can carry but this variant does not take (phoneNo in the password profile).
        if (!Object.hasOwn(properties, field)) throw refusal(400, 'request.unknownField', { field: payloadKeyOf(theCall, field) });
        const value = received.form[field];
        if (fromMultipart && properties[field]?.type === 'boolean' && (value === 'true' || value === 'false')) {
          received.form[field] = value === 'true';
        }
      }
      const errors = errorsOf(received.form);
      if (errors.length > 0) {
        const first = expandErrors(errors)[0];
        if (!first) throw refusal(400, 'form.notValid');
        throw formError(400, messageOf(first, payloadKeyOf(theCall, fieldOf(first.property))), messagesByField(errors));
      }
    }
    // After the form's own check: the driver's answers are told field by field first. The
    // message is the context schema's own, in the request's language already.
    if (contextProblem) throw contextProblem.message ? httpErrors.badRequest(contextProblem.message) : refusal(400, 'request.notValid');
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

  return { check, schemaNamed };
}
