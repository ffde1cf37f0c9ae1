/** The admin API's calls, each with the admin token the page was given (answers: src/shared/review.ts). */
import type { FixRequest, QueueDriver, ReviewStatus } from '../../shared/review.js';
import { request, type ApiResult } from '../runtime/api.js';
import { dataOf, type RequestError } from '../runtime/reads.js';

export const driverPath = (id: string, action?: 'approve' | 'reject') => `/admin/drivers/${encodeURIComponent(id)}${action ? `/${action}` : ''}`;

/** A page of the queue: `after` is the `next` of the page before; `search` matches name, email or phone. */
export function queuePath(status: ReviewStatus, options: { search: string; after?: string }): string {
  const query = new URLSearchParams({ status });
  if (options.search) query.set('q', options.search);
  if (options.after) query.set('after', options.after);
  return `/admin/drivers?${query}`;
}

/** swr's key of an admin read: the path, and the admin token it is read with. */
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

/** 401 (no or wrong admin token) and 403 (a driver's token) both mean: this token can't review. */
export const isRefusal = (status: number): boolean => status === 401 || status === 403;

/** What every part of the review page needs to call the admin API. */
export interface AdminSession {
  bearer: string;
  /** The server refused the admin token (401/403): forget it and show why. */
  refused: (message?: string) => void;
}

/** swr's `onError` of an admin read: a refused token is forgotten, and the page asks for one again. */
export function checkRefusal(session: AdminSession, error: RequestError): void {
  if (isRefusal(error.failure.status)) session.refused(error.failure.message);
}
