/**
 * The one translation of any error into the answer the client shows: `{ message }` (plus `errors`
 * by field for a form, and `reason` for what the client should do), a 4xx for anything the client
 * sent wrong, and a bare message for our own faults (the flow's requestFailed). The routes refuse
 * by key (serverMessages.ts `refusal`), answered in the request's language; a message already in
 * it (a schema's, the flow's) goes with @fastify/sensible's httpErrors (http-errors) as it is.
 */
import { STATUS_CODES } from 'node:http';
import { HttpError, httpErrors } from '@fastify/sensible';
import { SIGN_IN_AGAIN_REASON } from '../shared/apiAnswers.js';
import { DEFAULT_LOCALE, type Locale } from '../shared/locales.js';
import { DatabaseUnavailable } from './db/db.js';
import type { MessageKey } from '../shared/serverMessages.js';
import { keyedMessageIn, keyedMessageOf } from './serverMessages.js';
import { StoreUnavailable } from './storage/objectStore.js';

/** The driver must sign in again (the session ended, or the change needs a recent sign-in); the page asks without leaving. */
export const signInAgain = (statusCode: 401 | 403, message: string) => httpErrors.createError(statusCode, message, { reason: SIGN_IN_AGAIN_REASON });

/** A refusal whose message goes under form fields too (`errors`), for a step's form to show beside each field. */
export const formError = (statusCode: number, message: string, errors: Record<string, string[]>) => httpErrors.createError(statusCode, message, { errors });

/** Fastify's and its plugins' 4xx errors in words a driver can act on (flows/server-messages.json). */
const MESSAGES_BY_CODE: Record<string, MessageKey> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'request.invalidJson',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'request.emptyBody',
  FST_ERR_CTP_BODY_TOO_LARGE: 'request.tooLarge',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'request.unsupportedType',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'request.badLength',
  FST_REQ_FILE_TOO_LARGE: 'files.tooLarge',
  FST_FILES_LIMIT: 'form.tooManyFiles',
  FST_FIELDS_LIMIT: 'form.tooManyFields',
  FST_PARTS_LIMIT: 'form.tooManyFields',
  FST_PROTO_VIOLATION: 'form.badFieldName',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'form.sendAsMultipart',
  FST_INVALID_JSON_FIELD_ERROR: 'form.badJsonField',
  FST_MP_PREMATURE_CLOSE: 'form.interrupted',
};

export interface ErrorAnswer {
  statusCode: number;
  body: { message: string; errors?: Record<string, string[]>; reason?: string };
}

/**
 * PostgreSQL refuses text it can't store (a NUL character: SQLSTATE 22021 or 22P05). Every form
 * field already refuses control characters (schemas/common.schema.json); this is the net under
 * any other value, so such a request is the client's 400, never a 500.
 */
const TEXT_NOT_STORABLE = new Set(['22021', '22P05']);

/**
 * The answer to an error, in `locale`; `faultMessage` for our own faults (the flow's requestFailed,
 * the spec's words). A refusal is answered with its own message (in `locale` when it was thrown
 * by key: serverMessages.ts); an http-errors error that carries only its status's standard words
 * (@fastify/static's 416 for a range past a file's end) was made by a library, and is answered
 * like the other libraries' errors.
 */
export function answerFor(error: unknown, faultMessage: string, locale: Locale = DEFAULT_LOCALE): ErrorAnswer {
  const said = (statusCode: number, key: MessageKey) => ({ statusCode, body: { message: keyedMessageIn(locale, { key }) } });
  if (error instanceof DatabaseUnavailable) return said(503, 'request.unavailable');
  if (error instanceof StoreUnavailable) return said(503, 'files.storeUnavailable');
  if (error instanceof HttpError && error.message !== STATUS_CODES[error.statusCode]) {
    const keyed = keyedMessageOf(error);
    const message = keyed ? keyedMessageIn(locale, keyed) : error.message;
    const body: ErrorAnswer['body'] = { message };
    if (keyed?.fields) body.errors = Object.fromEntries(keyed.fields.map((field) => [field, [message]]));
    else if (error.errors) body.errors = error.errors;
    if (error.reason) body.reason = error.reason;
    return { statusCode: error.statusCode, body };
  }
  const { statusCode, code } = (error ?? {}) as { statusCode?: unknown; code?: unknown };
  const known = typeof code === 'string' ? MESSAGES_BY_CODE[code] : undefined;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    // 406 from multipart means "not multipart": for the client that is a bad request.
    return said(statusCode === 406 ? 415 : statusCode, known ?? 'request.unreadable');
  }
  if (typeof code === 'string' && TEXT_NOT_STORABLE.has(code)) return said(400, 'request.notPlainText');
  if (error instanceof SyntaxError) return said(400, 'request.invalidJson');
  return { statusCode: 500, body: { message: faultMessage } };
}

/** What a 5xx log line may hold: never the request, never values that came from it. */
export function loggableError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: typeof error };
  const { code } = error as { code?: unknown };
  return { type: error.name, message: error.message, code, stack: error.stack };
}
