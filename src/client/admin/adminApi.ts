/** The admin API's calls, each with the staff member's session token (answers: src/shared/review.ts). */
import type { FixRequest, QueueDriver, ReviewStatus, StaffSession } from '../../shared/review.js';
import { getBlob, isSignInAgain, request, type ApiFailure, type ApiResult } from '../runtime/api.js';
import { dataOf, type RequestError } from '../runtime/reads.js';

export const driverPath = (id: string, action?: 'approve' | 'reject' | 'release' | 'export' | 'erase') =>
  `/admin/drivers/${encodeURIComponent(id)}${action ? `/${action}` : ''}`;

/** A page of the queue: `after` is the `next` of the page before; `search` matches name, email or phone. */
export function queuePath(status: ReviewStatus, options: { search: string; after?: string }): string {
  const query = new URLSearchParams({ status });
  if (options.search) query.set('q', options.search);
  if (options.after) query.set('after', options.after);
  return `/admin/drivers?${query}`;
}

/** swr's key of an admin read: the path, and the staff session token it is read with. */
export type AdminKey = readonly [path: string, bearer: string];

/** swr's fetcher of the admin API; `T` is the answer's type (src/shared/review.ts). */
export const readAdmin = <T>([path, bearer]: AdminKey): Promise<T> => dataOf(request<T>(path, { bearer }));

/** A decision names the version of the driver's data the reviewer saw: a driver who changed it since is refused (409). */
export const approveDriver = (driver: QueueDriver, bearer: string): Promise<ApiResult> =>
  request(driverPath(driver.id, 'approve'), { method: 'POST', bearer, body: { reviewVersion: driver.reviewVersion } });

/** A rejection: a reason, fixes field by field, or both. */
export const rejectDriver = (driver: QueueDriver, rejection: { reason: string; fixes: FixRequest[] }, bearer: string): Promise<ApiResult> =>
  request(driverPath(driver.id, 'reject'), {
    method: 'POST',
    bearer,
    body: {
      reviewVersion: driver.reviewVersion,
      ...(rejection.reason ? { reason: rejection.reason } : {}),
      ...(rejection.fixes.length > 0 ? { fixes: rejection.fixes } : {}),
    },
  });

/** 401 (no or an ended session) and 403 (a role not given, a driver's token, a sign-in too old): the call is not this person's to make now. */
export const isRefusal = (status: number): boolean => status === 401 || status === 403;

/** The session ended (401), or the action needs a fresh sign-in: the page asks for one over itself. */
export const needsSignIn = (failure: ApiFailure): boolean => failure.status === 401 || isSignInAgain(failure);

/** What every part of the admin page needs to call the admin API. */
export interface AdminSession {
  bearer: string;
  /** Who is signed in, and their roles: the page shows what they allow. */
  me: StaffSession;
  /** The server refused a call (401/403): ask for a sign-in over the page, or say why. */
  refused: (failure: ApiFailure) => void;
}

/** swr's `onError` of an admin read: a refusal is handed to the page. */
export function checkRefusal(session: AdminSession, error: RequestError): void {
  if (isRefusal(error.failure.status)) session.refused(error.failure);
}

/**
 * Signs a staff member in as drivers sign in: their email and password checked by Firebase (loaded
 * only now), and its fresh ID token exchanged for a staff session. A wrong email or password is
 * `wrongCredentials`, told apart from the server's refusal (not a staff member), and reported to the server.
 */
export async function signInStaff(email: string, password: string): Promise<ApiResult<StaffSession> | { ok: false; wrongCredentials: true }> {
  const { passwordIdToken, WrongCredentialsError } = await import('../runtime/identity.js');
  let idToken: string;
  try {
    idToken = await passwordIdToken(email, password);
  } catch (error) {
    if (error instanceof WrongCredentialsError) {
      // Firebase refused it in the browser: the server hears of it for the audit record (and the owners, of a run of them).
      await request('/admin/session/failed', { method: 'POST', body: { email } });
      return { ok: false, wrongCredentials: true };
    }
    throw error;
  }
  return request<StaffSession>('/admin/session', { method: 'POST', body: { idToken } });
}

/** Saves what an admin path answers as a file the browser downloads (an export, the audit record). */
export async function download(path: string, bearer: string, filename: string): Promise<ApiResult<Blob>> {
  const result = await getBlob(path, bearer);
  if (result.ok) {
    const url = URL.createObjectURL(result.data);
    const link = document.createElement('a');
    link.href = url;
    link.download = filename;
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  }
  return result;
}
