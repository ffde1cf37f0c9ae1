/**
 * The one HTTP client: every request sends `Accept` and, when there is a token, the bearer
 * header (from the token cookie, or from local storage for the calls the flow marks so); a
 * failed call yields the server's `message`, or none, and the caller picks the fallback. It
 * has a timeout, because a request that hangs on a bad mobile connection must end in a message.
 */
import { SIGN_IN_AGAIN_REASON } from '../shared/apiAnswers.js';
import type { Call } from '../shared/flow.js';
import { flow } from './flow.js';
import { getItem, getTokenCookie } from './storage.js';

const JSON_TIMEOUT_MS = 20_000;
const UPLOAD_TIMEOUT_MS = 120_000; // six photos on a slow uplink

export type ApiResult =
  | { ok: true; status: number; data: Record<string, unknown> }
  | { ok: false; status: number; message?: string; errors?: Record<string, string[]>; timedOut?: boolean; data?: Record<string, unknown> };

/** The server asks the driver to sign in again, then try once more; the page asks for it without leaving. */
export const isSignInAgain = (result: ApiResult): boolean => !result.ok && result.data?.reason === SIGN_IN_AGAIN_REASON;

function bearerFor(call: Call): string | undefined {
  return call.auth === 'storage' ? getItem('token') : getTokenCookie();
}

function encodeBody(call: Call, payload: Record<string, unknown>): BodyInit | undefined {
  if (call.method === 'GET') return undefined;
  if (call.encoding === 'json') return JSON.stringify(payload);
  const form = new FormData();
  for (const [key, value] of Object.entries(payload)) {
    if (value instanceof Blob) form.append(key, value, `${key}.${value.type.split('/')[1] ?? 'bin'}`);
    else if (value !== null && value !== undefined) form.append(key, String(value));
  }
  return form;
}

/** `/driver/status/{id}` with `{ id }` → `/driver/status/<id>`. */
function pathWith(path: string, params: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_whole, name: string) => encodeURIComponent(params[name] ?? ''));
}

/** `bearer` overrides where the token comes from (the resume link brings its own). */
export async function callApi(call: Call, payload: Record<string, unknown> = {}, pathParams: Record<string, string> = {}, bearer?: string): Promise<ApiResult> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = bearer ?? bearerFor(call);
  if (token) headers.Authorization = `Bearer ${token}`;
  if (call.encoding === 'json' && call.method !== 'GET') headers['Content-Type'] = 'application/json';
  const timeout = call.encoding === 'multipart' ? UPLOAD_TIMEOUT_MS : JSON_TIMEOUT_MS;
  let response: Response;
  try {
    response = await fetch(pathWith(call.path, pathParams), {
      method: call.method,
      headers,
      body: encodeBody(call, payload),
      signal: AbortSignal.timeout(timeout),
    });
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
    return { ok: false, status: 0, timedOut, message: timedOut ? flow.messages.timedOut : undefined };
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  const data = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  if (response.ok) return { ok: true, status: response.status, data };
  return {
    ok: false,
    status: response.status,
    message: typeof data.message === 'string' && data.message ? data.message : undefined,
    errors: data.errors !== null && typeof data.errors === 'object' ? (data.errors as Record<string, string[]>) : undefined,
    data,
  };
}

/** A GET of JSON from another service (the public-IP lookup); undefined when it fails. */
export async function getJson(url: string, timeoutMs: number): Promise<Record<string, unknown> | undefined> {
  try {
    const response = await fetch(url, { headers: { Accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) return undefined;
    const body: unknown = await response.json();
    return body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Calls that are not flow calls: the admin review page's (they carry the admin token the page was
// given, never the driver's cookie or stored token, so the bearer is passed in explicitly) and the
// local payment sandbox's (a card provider's endpoint, which takes no bearer at all).

/** Uploaded images are ≈330 KB each and a card loads a dozen at once on a laptop's link. */
const IMAGE_TIMEOUT_MS = 60_000;

export type BlobResult = { ok: true; blob: Blob } | { ok: false; status: number; message?: string };

function failedRequest(error: unknown): { ok: false; status: 0; message?: string; timedOut: boolean } {
  const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
  return { ok: false, status: 0, timedOut, message: timedOut ? flow.messages.timedOut : undefined };
}

async function messageOf(response: Response): Promise<string | undefined> {
  try {
    const body: unknown = await response.json();
    const message = body !== null && typeof body === 'object' ? (body as Record<string, unknown>).message : undefined;
    return typeof message === 'string' && message ? message : undefined;
  } catch {
    return undefined;
  }
}

/** A JSON request outside the flow, with the given bearer if any; the same result shape as `callApi`, the body included on failure. */
export async function jsonRequest(method: 'GET' | 'POST', path: string, bearer?: string, body?: Record<string, unknown>): Promise<ApiResult> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(JSON_TIMEOUT_MS),
    });
  } catch (error) {
    return failedRequest(error);
  }
  let parsed: unknown;
  try {
    parsed = await response.json();
  } catch {
    parsed = undefined;
  }
  const data = parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  if (response.ok) return { ok: true, status: response.status, data };
  const message = typeof data.message === 'string' && data.message ? data.message : undefined;
  return { ok: false, status: response.status, message, data };
}

/** The bytes behind a URL that needs a bearer (an `<img src>` can't send one): the page shows them as an object URL. */
export async function getBlob(path: string, bearer: string): Promise<BlobResult> {
  let response: Response;
  try {
    response = await fetch(path, { headers: { Authorization: `Bearer ${bearer}` }, signal: AbortSignal.timeout(IMAGE_TIMEOUT_MS) });
  } catch (error) {
    return failedRequest(error);
  }
  if (!response.ok) return { ok: false, status: response.status, message: await messageOf(response) };
  try {
    return { ok: true, blob: await response.blob() };
  } catch (error) {
    return failedRequest(error);
  }
}
