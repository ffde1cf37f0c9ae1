/**
 * Reads a request body the way the flow file says its call sends it, and validates the form's
 * values with the very schema the browser rendered, so the server answers with the schema's
 * own messages. JSON and multipart bodies go the same way:
 *
 *   body → readPayload (flow.ts) → unknown keys refused → each file received to a scratch file and
 *   its type sniffed from its bytes → multipart "true"/"false" become booleans where the schema says
 *   boolean → the step schema → 400 { message, errors } → each image decoded and encoded again
 *   (reencodeImage.ts: no EXIF/GPS kept, at most 40 megapixels, unreadable bytes refused) and stored.
 *
 * What is not a form value (idToken, ip, vehicleId, email and phone from storage) comes back
 * as `extras` for the route's own small rules.
 */
import type { FastifyRequest } from 'fastify';
import type { MultipartFile, MultipartValue } from '@fastify/multipart';
import { expandErrors, fieldOf, messagesByField } from '../../shared/errors.js';
import { readPayload, splitSource, type Call, type Flow } from '../../shared/flow.js';
import { schemaNamesOf } from '../../shared/projectFiles.js';
import { badRequest, HttpError } from '../errors.js';
import { MAX_FILE_BYTES, type ReceivedFile, type StoredFile } from '../plugins/uploads.js';
import { createFormSchemas } from './formSchemas.js';

export interface CallPayload {
  /** The form's values, validated. */
  form: Record<string, unknown>;
  /**
   * Uploaded files by form field, stored (re-encoded, encrypted): the route keeps them by writing
   * their rows, or removes them when it fails (routes/driver.ts).
   */
  files: Record<string, StoredFile>;
  /** Values that are not the form's, by payload key, unchecked. */
  extras: Record<string, unknown>;
}

declare module 'fastify' {
  interface FastifyInstance {
    callReader: CallReader;
  }
}

export const UNREADABLE_FORM = 'The form could not be read: it was cut short or is not a multipart form. Please send it again.';

/** Longest text a multipart field may carry (the longest form value is an email: 254). */
const MAX_FIELD_BYTES = 4 * 1024;

/** The step schema to check a form with, or how to pick it from the form's values (a variant). */
export type SchemaChoice = string | null | ((form: Record<string, unknown>) => string);

export interface CallReader {
  /** The call of the flow file by name; throws at start if the flow lacks it. */
  call(name: string): Call;
  /** The call's path as a Fastify route ("/driver/status/{id}" → "/driver/status/:id"). */
  routePath(callName: string): string;
  /** The schema of the flow step that makes this call (its base schema; variants are named by the route). */
  stepSchemaOf(callName: string): string | null;
  json(callName: string, request: FastifyRequest, schema?: SchemaChoice): CallPayload;
  multipart(callName: string, request: FastifyRequest, schema?: SchemaChoice): Promise<CallPayload>;
}

export function createCallReader(flow: Flow): CallReader {
  const schemaNamed = createFormSchemas();

  const call = (name: string): Call => {
    const found = Object.hasOwn(flow.calls, name) ? flow.calls[name] : undefined;
    if (!found) throw new Error(`flows/onboarding.flow.json has no call "${name}"`);
    return found;
  };

  const stepSchemaOf = (callName: string): string | null => {
    for (const step of Object.values(flow.steps)) if (step.kind === 'form' && step.call === callName) return step.schema;
    return null;
  };

  /** Payload key of a form field, for messages ("zipcode" for the form's zipCode). */
  const payloadKeyOf = (theCall: Call, field: string) =>
    Object.entries(theCall.payload ?? {}).find(([, mapping]) => splitSource(mapping.from).path.join('.') === field)?.[0] ?? field;

  function check(
    callName: string,
    body: Record<string, unknown>,
    files: Record<string, { mime: string }>,
    schema: SchemaChoice,
    fromMultipart: boolean,
  ): Omit<CallPayload, 'files'> & { files: Record<string, string> } {
    const theCall = call(callName);
    const mapping = theCall.payload ?? {};
    // Own keys only: readPayload's `in` would take "constructor" for a known key.
    const unknown = Object.keys(body).find((key) => !Object.hasOwn(mapping, key));
    if (unknown !== undefined) throw badRequest(`Unknown field: ${unknown}`);
    const received = readPayload(theCall, body);
    /** Payload key by form field, for the files that came. */
    const filesByField: Record<string, string> = {};
    for (const [field, key] of Object.entries(received.files)) {
      const file = files[key];
      if (!file) continue;
      filesByField[field] = key;
      received.form[field] = file.mime;
    }
    const schemaName = typeof schema === 'function' ? schema(received.form) : schema;
    if (schemaName) {
      const { errorsOf, properties } = schemaNamed(schemaName);
      for (const field of Object.keys(received.form)) {
        // A field the call can carry but this variant does not take (phoneNo in the password profile).
        if (!Object.hasOwn(properties, field)) throw badRequest(`Unknown field: ${payloadKeyOf(theCall, field)}`);
        const value = received.form[field];
        if (fromMultipart && properties[field]?.type === 'boolean' && (value === 'true' || value === 'false')) {
          received.form[field] = value === 'true';
        }
      }
      const errors = errorsOf(received.form);
      if (errors.length > 0) {
        const first = expandErrors(errors)[0];
        // A schema message stands alone; Ajv's own ("must be boolean") needs the field's name.
        const message = !first
          ? 'The form is not valid.'
          : first.name === 'errorMessage'
            ? (first.message ?? '')
            : `${payloadKeyOf(theCall, fieldOf(first.property))} ${first.message ?? 'is not valid'}`;
        throw badRequest(message, messagesByField(errors));
      }
    }
    return { form: received.form, files: filesByField, extras: received.extras };
  }

  // Compile every step schema now, so a broken schema stops the start, not a driver's request.
  for (const name of schemaNamesOf(flow)) schemaNamed(name);

  return {
    call,
    stepSchemaOf,
    routePath: (callName) => call(callName).path.replace(/\{(\w+)\}/g, ':$1'),

    json(callName, request, schema = stepSchemaOf(callName)) {
      if (request.isMultipart()) throw new HttpError(415, 'This request must be sent as JSON.');
      const body: unknown = request.body ?? {};
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('The request body must be a JSON object.');
      return { ...check(callName, body as Record<string, unknown>, {}, schema, false), files: {} };
    },

    async multipart(callName, request, schema = stepSchemaOf(callName)) {
      if (!request.isMultipart()) throw new HttpError(415, 'This request must be sent as a multipart form.');
      const mapping = call(callName).payload ?? {};
      const fileKeys = new Set(Object.keys(mapping).filter((key) => splitSource(mapping[key]!.from).kind === 'file'));
      const textKeyCount = Object.keys(mapping).length - fileKeys.size;
      const fields: Record<string, string> = {};
      const files: Record<string, ReceivedFile> = {};
      const uploads = request.server.uploads;
      const parts = request.parts({
        // Exactly as many files as the call maps; a few spare text fields so an unknown one is
        // reported by name rather than as "too many".
        limits: { files: fileKeys.size, fileSize: MAX_FILE_BYTES, fields: textKeyCount + 10, fieldSize: MAX_FIELD_BYTES, parts: fileKeys.size + textKeyCount + 10 },
      });
      try {
        try {
          for await (const part of parts) {
            const name = part.fieldname;
            if (part.type === 'file') {
              const file = part as MultipartFile;
              if (!fileKeys.has(name)) {
                file.file.resume();
                throw badRequest(Object.hasOwn(mapping, name) ? `${name} must be text, not a file.` : `Unknown field: ${name}`);
              }
              if (files[name]) {
                file.file.resume();
                throw badRequest(`Only one file can be sent as ${name}.`);
              }
              // To a scratch file as it arrives: memory holds a chunk at a time, not the photo.
              const received = await uploads.receive(file.file);
              // An empty file input sends an empty part with no name: the field is simply absent.
              if (received.size === 0 && !file.filename) await uploads.discard(received);
              else files[name] = received;
            } else {
              const field = part as MultipartValue;
              if (fileKeys.has(name)) throw badRequest(`${name} must be a file.`);
              if (Object.hasOwn(fields, name)) throw badRequest(`${name} was sent more than once.`);
              if (field.valueTruncated) throw badRequest(`${name} is too long.`);
              if (typeof field.value !== 'string') throw badRequest(`${name} must be text.`);
              fields[name] = field.value;
            }
          }
        } catch (error) {
          // Our own refusals and the limits' (413) say what was wrong; anything else the parser
          // threw (no boundary, a part cut short, bytes that are no form) is a body it can't read.
          const status = (error as { statusCode?: unknown }).statusCode;
          if (error instanceof HttpError || (typeof status === 'number' && status < 500)) throw error;
          throw badRequest(UNREADABLE_FORM);
        }
        const body: Record<string, unknown> = { ...fields };
        for (const key of Object.keys(files)) body[key] = true;
        const checked = check(callName, body, files, schema, true);
        // Only a valid form's images are decoded (the costly part), one at a time in the whole
        // server to bound memory. What is stored is the re-encoded image: no GPS or other EXIF
        // from the driver's phone in their identity documents, and no pixel bombs (reencodeImage.ts).
        const stored: Record<string, StoredFile> = {};
        for (const [field, key] of Object.entries(checked.files)) {
          stored[field] = await uploads.store(files[key]!, field);
          // Removed with the request if it fails before its rows are written (plugins/uploads.ts).
          request.uncommittedUploads.push(stored[field]);
          checked.form[field] = stored[field].mime;
        }
        return { ...checked, files: stored };
      } finally {
        await Promise.all(Object.values(files).map((file) => uploads.discard(file)));
      }
    },
  };
}
