/**
 * The one translation of any error into the answer the client shows: `{ message }` (plus `errors`
 * by field for a form, and `reason` for what the client should do), a 4xx for anything the client
 * sent wrong, and a bare message for our own faults (the flow's requestFailed). The routes refuse
 * with @fastify/sensible's httpErrors (http-errors), whose message is the answer's.
 */
import { STATUS_CODES } from 'node:http';
import { HttpError, httpErrors } from '@fastify/sensible';
import { SIGN_IN_AGAIN_REASON } from '../shared/apiAnswers.js';
import { DatabaseUnavailable } from './db/db.js';
import { StoreUnavailable } from './storage/objectStore.js';

/** The driver must sign in again (the session ended, or the change needs a recent sign-in); the page asks without leaving. */
export const signInAgain = (statusCode: 401 | 403, message: string) => httpErrors.createError(statusCode, message, { reason: SIGN_IN_AGAIN_REASON });

/** A refusal whose message goes under form fields too (`errors`), for a step's form to show beside each field. */
export const formError = (statusCode: number, message: string, errors: Record<string, string[]>) => httpErrors.createError(statusCode, message, { errors });

export const UNAVAILABLE_MESSAGE = 'We can’t reach our records right now. Please try again in a minute.';
export const STORE_UNAVAILABLE_MESSAGE = 'We can’t keep your photos and documents right now. Please try again in a minute.';
export const NOT_PLAIN_TEXT_MESSAGE = 'Text must not contain invisible control characters.';
export const FILE_TOO_LARGE_MESSAGE = 'Each file must be at most 10 MB.';

/** Fastify's and its plugins' 4xx errors in words a driver can act on. */
const MESSAGES_BY_CODE: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'The request body is not valid JSON.',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The request body is empty.',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The request is too large.',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported content type: send JSON or a multipart form.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The request length does not match its body.',
  FST_REQ_FILE_TOO_LARGE: FILE_TOO_LARGE_MESSAGE,
  FST_FILES_LIMIT: 'Too many files were sent with this form.',
  FST_FIELDS_LIMIT: 'Too many fields were sent with this form.',
  FST_PARTS_LIMIT: 'Too many fields were sent with this form.',
  FST_PROTO_VIOLATION: 'A field name is not allowed.',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'This request must be sent as a multipart form.',
  FST_INVALID_JSON_FIELD_ERROR: 'A form field is not valid.',
  FST_MP_PREMATURE_CLOSE: 'The upload was interrupted. Please try again.',
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
 * The answer to an error; `faultMessage` for our own faults (the flow's requestFailed, the spec's
 * words). A refusal is answered with its own message; an http-errors error that carries only its
 * status's standard words (@fastify/static's 416 for a range past a file's end) was made by a
 * library, and is answered like the other libraries' errors.
 */
export function answerFor(error: unknown, faultMessage: string): ErrorAnswer {
  if (error instanceof DatabaseUnavailable) return { statusCode: 503, body: { message: UNAVAILABLE_MESSAGE } };
  if (error instanceof StoreUnavailable) return { statusCode: 503, body: { message: STORE_UNAVAILABLE_MESSAGE } };
  if (error instanceof HttpError && error.message !== STATUS_CODES[error.statusCode]) {
    const body: ErrorAnswer['body'] = { message: error.message };
    if (error.errors) body.errors = error.errors;
    if (error.reason) body.reason = error.reason;
    return { statusCode: error.statusCode, body };
  }
  const { statusCode, code } = (error ?? {}) as { statusCode?: unknown; code?: unknown };
  const known = typeof code === 'string' ? MESSAGES_BY_CODE[code] : undefined;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    // 406 from multipart means "not multipart": for the client that is a bad request.
    const status = statusCode === 406 ? 415 : statusCode;
    return { statusCode: status, body: { message: known ?? 'The request could not be read.' } };
  }
  if (typeof code === 'string' && TEXT_NOT_STORABLE.has(code)) return { statusCode: 400, body: { message: NOT_PLAIN_TEXT_MESSAGE } };
  if (error instanceof SyntaxError) return { statusCode: 400, body: { message: MESSAGES_BY_CODE.FST_ERR_CTP_INVALID_JSON_BODY! } };
  return { statusCode: 500, body: { message: faultMessage } };
}

/** What a 5xx log line may hold: never the request, never values that came from it. */
export function loggableError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: typeof error };
  const { code } = error as { code?: unknown };
  return { type: error.name, message: error.message, code, stack: error.stack };
}
