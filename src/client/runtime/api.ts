/**
 * The one HTTP client: every request goes through `send`, which adds `Accept` and, when there is
 * a token, the bearer header; sends JSON or multipart; ends after a timeout, because a request
 * that hangs on a bad mobile connection must end in a message (a departure on purpose: the spec's
 * client has no default timeout, docs/departures.md); and reads a failure's
 * `{ message, errors }`, so the caller picks the fallback when the server gave no message.
 *
 * Flow calls take their bearer from the token cookie, or from local storage for the calls the
 * flow marks so; the admin page passes the staff member's session token; the payment sandbox (a card
 * provider's endpoint) and the public-IP lookup take none. A flow call the browser has no token
 * for is not sent (unless the flow marks it `tokenOptional`): it answers as the server would, in
 * the browser's own words (`messages.tokenNotFound`).
 */
import { currentLocale } from './locale.js';
import { SIGN_IN_AGAIN_REASON } from '../../shared/apiAnswers.js';
import type { Call } from '../../shared/flow.js';
import { UPLOADS_PATH, type FileAheadAnswer } from '../../shared/review.js';
import { flow } from './flow.js';
import { getItem, getTokenCookie } from './storage.js';

const JSON_TIMEOUT_MS = 20_000;
const UPLOAD_TIMEOUT_MS = 120_000; // a step's files, when they are not sent ahead
/** One photo of ≈330 KB on a slow uplink (400 kbit/s: about 7 s), with room for a worse one. */
const PHOTO_TIMEOUT_MS = 60_000;
/** Uploaded images are ≈330 KB each and a card loads a dozen at once on a laptop's link. */
const IMAGE_TIMEOUT_MS = 60_000;

export type ApiFailure = {
  ok: false;
  status: number;
  message?: string;
  errors?: Record<string, string[]>;
  timedOut?: boolean;
  data?: Record<string, unknown>;
};

/** `T`: the answer's type as the API states it (src/shared), for callers that know it. */
export type ApiResult<T = Record<string, unknown>> = { ok: true; status: number; data: T } | ApiFailure;

export interface RequestOptions {
  method?: Call['method'];
  bearer?: string;
  /** Sent as JSON; a FormData as multipart. */
  body?: Record<string, unknown> | FormData;
  timeoutMs?: number;
  /** For a multipart body: called as it goes out, with the share (0 to 1) of each file sent so far, by its key. */
  onUploadProgress?: (sent: Record<string, number>) => void;
}

/** How an answer is read: what the request accepts, and how the body becomes the result's data. */
interface Reading {
  accept: string;
  read: (response: Response) => Promise<unknown>;
}

async function jsonObjectOf(response: Response): Promise<Record<string, unknown>> {
  try {
    const body: unknown = await response.json();
    return body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  } catch {
    // A body that is not JSON (a proxy's error page) or that broke off holds no message: the caller's fallback is shown.
    return {};
  }
}

const asJson: Reading = { accept: 'application/json', read: jsonObjectOf };
const asBlob: Reading = { accept: '*/*', read: (response) => response.blob() };

/**
 * Where each file of a multipart body lies in it, as a share of the whole: the parts go out in
 * order, each its bytes and about a hundred of headers.
 */
function fileSpans(form: FormData): { key: string; from: number; to: number }[] {
  const PART_HEADERS = 100;
  const sizes = [...form.entries()].map(([key, value]) => ({
    key,
    file: value instanceof Blob,
    size: PART_HEADERS + (value instanceof Blob ? value.size : value.length),
  }));
  const total = sizes.reduce((sum, part) => sum + part.size, 0);
  let at = 0;
  return sizes.flatMap(({ key, file, size }) => {
    const span = { key, from: at / total, to: (at + size) / total };
    at += size;
    return file ? [span] : [];
  });
}

/**
 * fetch, by XMLHttpRequest: the one way a page can follow an upload's progress. It fails as
 * fetch would: a TypeError when the network drops, a TimeoutError when it takes too long.
 */
function fetchWithProgress(
  path: string,
  init: { method: string; headers: Record<string, string>; body: FormData; timeoutMs: number },
  onProgress: (sent: Record<string, number>) => void,
): Promise<Response> {
  const spans = fileSpans(init.body);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(init.method, path);
    for (const [name, value] of Object.entries(init.headers)) xhr.setRequestHeader(name, value);
    xhr.responseType = 'blob';
    xhr.timeout = init.timeoutMs;
    xhr.upload.onprogress = (event) => {
      if (!event.lengthComputable) return;
      const done = event.loaded / event.total;
      onProgress(Object.fromEntries(spans.map(({ key, from, to }) => [key, Math.min(1, Math.max(0, (done - from) / (to - from)))])));
    };
    xhr.onload = () => {
      const headers = new Headers();
      for (const line of xhr.getAllResponseHeaders().trim().split(/\r?\n/)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }
      resolve(new Response(xhr.response as Blob, { status: xhr.status, headers }));
    };
    xhr.onerror = () => reject(new TypeError('Network request failed'));
    xhr.ontimeout = () => reject(new DOMException('The request timed out', 'TimeoutError'));
    xhr.send(init.body);
  });
}

async function send<T>(
  path: string,
  { method = 'GET', bearer, body, timeoutMs = JSON_TIMEOUT_MS, onUploadProgress }: RequestOptions,
  reading: Reading,
): Promise<ApiResult<T>> {
  // The page's language: the server answers its messages in it.
  const headers: Record<string, string> = { Accept: reading.accept, 'Accept-Language': currentLocale() };
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  const json = body !== undefined && !(body instanceof FormData);
  if (json) headers['Content-Type'] = 'application/json';
  try {
    const response =
      body instanceof FormData && onUploadProgress
        ? await fetchWithProgress(path, { method, headers, body, timeoutMs }, onUploadProgress)
        : await fetch(path, { method, headers, body: json ? JSON.stringify(body) : body, signal: AbortSignal.timeout(timeoutMs) });
    // The API's contracts (src/shared) state its answers: an answer is taken as the type the caller names.
    if (response.ok) return { ok: true, status: response.status, data: (await reading.read(response)) as T };
    const data = await jsonObjectOf(response);
    return {
      ok: false,
      status: response.status,
      message: typeof data.message === 'string' && data.message ? data.message : undefined,
      errors: data.errors !== null && typeof data.errors === 'object' ? (data.errors as Record<string, string[]>) : undefined,
      data,
    };
  } catch (error) {
    // No answer: the request took too long, or the network dropped (the page offline, the connection lost on the way).
    const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
    return { ok: false, status: 0, timedOut, message: timedOut ? flow.messages.timedOut : flow.messages.connectionLost };
  }
}

/** A request whose answer is JSON (an empty object when it has no body). */
export const request = <T = Record<string, unknown>>(path: string, options: RequestOptions = {}): Promise<ApiResult<T>> => send<T>(path, options, asJson);

/** The bytes behind a URL that needs a bearer (an `<img src>` can't send one): the page shows them as an object URL. */
export const getBlob = (path: string, bearer: string): Promise<ApiResult<Blob>> => send<Blob>(path, { bearer, timeoutMs: IMAGE_TIMEOUT_MS }, asBlob);

/** The server asks the driver to sign in again, then try once more; the page asks for it without leaving. */
export const isSignInAgain = (result: ApiResult<unknown>): boolean => !result.ok && result.data?.reason === SIGN_IN_AGAIN_REASON;

function bearerFor(call: Call): string | undefined {
  return call.auth === 'storage' ? getItem('token') : getTokenCookie();
}

/** What a call the browser keeps no token for answers without being sent: the server's 401 for it, asking for a sign-in. */
function tokenNotFound<T>(): Promise<ApiResult<T>> {
  const message = flow.messages.tokenNotFound;
  return Promise.resolve({ ok: false, status: 401, message, data: { message, reason: SIGN_IN_AGAIN_REASON } });
}

function multipartOf(payload: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(payload)) {
    if (value instanceof Blob) form.append(key, value, `${key}.${value.type.split('/')[1] ?? 'bin'}`);
    else if (value !== null && value !== undefined) form.append(key, String(value));
  }
  return form;
}

/** One of a step's files sent ahead of it (`UPLOADS_PATH/<step>/<field>`, as `key`), with the share sent so far: its upload id. */
export function sendFileAhead(
  call: Call,
  step: string,
  field: string,
  key: string,
  file: Blob,
  onProgress: (share: number) => void,
): Promise<ApiResult<FileAheadAnswer>> {
  const bearer = bearerFor(call);
  if (!bearer && !call.tokenOptional) return tokenNotFound();
  return request<FileAheadAnswer>(`${UPLOADS_PATH}/${encodeURIComponent(step)}/${encodeURIComponent(field)}`, {
    method: 'POST',
    bearer,
    body: multipartOf({ [key]: file }),
    timeoutMs: PHOTO_TIMEOUT_MS,
    onUploadProgress: (sent) => onProgress(sent[key] ?? 0),
  });
}

/** `/driver/status/{id}` with `{ id }` → `/driver/status/<id>`. */
function pathWith(path: string, params: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_whole, name: string) => encodeURIComponent(params[name] ?? ''));
}

/** A call of the flow file; `bearer` overrides where the token comes from (the resume link brings its own). */
export function callApi<T = Record<string, unknown>>(
  call: Call,
  payload: Record<string, unknown> = {},
  pathParams: Record<string, string> = {},
  bearer: string | undefined = bearerFor(call),
): Promise<ApiResult<T>> {
  if (!bearer && !call.tokenOptional) return tokenNotFound();
  return request<T>(pathWith(call.path, pathParams), {
    method: call.method,
    bearer,
    body: call.method === 'GET' ? undefined : call.encoding === 'json' ? payload : multipartOf(payload),
    timeoutMs: call.encoding === 'multipart' ? UPLOAD_TIMEOUT_MS : JSON_TIMEOUT_MS,
  });
}
