/** The admin API's calls, each with the admin token the page was given (answers: src/shared/review.ts). */
import type { FixRequest, QueueDriver, ReviewStatus } from '../../shared/review.js';
import { jsonRequest, type ApiResult } from '../api.js';

const driverPath = (id: string, action?: 'approve' | 'reject') => `/admin/drivers/${encodeURIComponent(id)}${action ? `/${action}` : ''}`;

/** A page of the queue: `after` is the `next` of the page before; `search` matches name, email or phone. */
export function listDrivers(status: ReviewStatus, bearer: string, options: { search?: string; after?: string } = {}): Promise<ApiResult> {
  const query = new URLSearchParams({ status });
  if (options.search) query.set('q', options.search);
  if (options.after) query.set('after', options.after);
  return jsonRequest('GET', `/admin/drivers?${query}`, bearer);
}

/** One driver with every step they sent, drawn from the steps' schemas. */
export const getDriver = (id: string, bearer: string): Promise<ApiResult> => jsonRequest('GET', driverPath(id), bearer);

/** A decision names the version of the driver's data the reviewer saw: a driver who changed it since is refused (409). */
export const approveDriver = (driver: QueueDriver, bearer: string): Promise<ApiResult> =>
  jsonRequest('POST', driverPath(driver.id, 'approve'), bearer, { reviewVersion: driver.reviewVersion });

/** A rejection: a reason, fixes field by field, or both. */
export const rejectDriver = (driver: QueueDriver, rejection: { reason: string; fixes: FixRequest[] }, bearer: string): Promise<ApiResult> =>
  jsonRequest('POST', driverPath(driver.id, 'reject'), bearer, {
    reviewVersion: driver.reviewVersion,
    ...(rejection.reason ? { reason: rejection.reason } : {}),
    ...(rejection.fixes.length > 0 ? { fixes: rejection.fixes } : {}),
  });

/** 401 (no or wrong admin token) and 403 (a driver's token) both mean: this token can't review. */
export const isRefusal = (status: number): boolean => status === 401 || status === 403;

/** What every part of the review page needs to call the admin API. */
export interface AdminSession {
  bearer: string;
  /** The server refused the admin token (401/403): forget it and show why. */
  refused: (message?: string) => void;
}
