/**
 * Errors the routes throw on purpose, and the one translation of any error into the answer the
 * client shows: `{ message }` (plus `errors` by field for a form), a 4xx for anything the
 * client sent wrong, and a bare "Something went wrong." for our own faults.
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    /** Messages by form field, for a step's form to show beside each field. */
    readonly errors?: Record<string, string[]>,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (message: string, errors?: Record<string, string[]>) => new HttpError(400, message, errors);
export const unauthorized = (message: string) => new HttpError(401, message);
export const forbidden = (message: string) => new HttpError(403, message);
export const notFound = (message: string) => new HttpError(404, message);
export const conflict = (message: string) => new HttpError(409, message);
export const tooManyRequests = (message: string) => new HttpError(429, message);

export const SERVER_FAULT_MESSAGE = 'Something went wrong.';
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
  body: { message: string; errors?: Record<string, string[]> };
}

export function answerFor(error: unknown): ErrorAnswer {
  if (error instanceof HttpError) {
    const body: ErrorAnswer['body'] = { message: error.message };
    if (error.errors) body.errors = error.errors;
    return { statusCode: error.statusCode, body };
  }
  const { statusCode, code } = (error ?? {}) as { statusCode?: unknown; code?: unknown };
  const known = typeof code === 'string' ? MESSAGES_BY_CODE[code] : undefined;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    // 406 from multipart means "not multipart": for the client that is a bad request.
    const status = statusCode === 406 ? 415 : statusCode;
    return { statusCode: status, body: { message: known ?? 'The request could not be read.' } };
  }
  if (error instanceof SyntaxError) return { statusCode: 400, body: { message: MESSAGES_BY_CODE.FST_ERR_CTP_INVALID_JSON_BODY! } };
  return { statusCode: 500, body: { message: SERVER_FAULT_MESSAGE } };
}

/** What a 5xx log line may hold: never the request, never values that came from it. */
export function loggableError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: typeof error };
  const { code } = error as { code?: unknown };
  return { type: error.name, message: error.message, code, stack: error.stack };
}
