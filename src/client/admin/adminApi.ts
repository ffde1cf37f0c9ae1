/** The admin API's three calls, each with the admin token the page was given. */
import { jsonRequest, type ApiResult } from '../api.js';
import type { AdminDriver, ReviewStatus } from './adminData.js';

const driverPath = (id: string, action: 'approve' | 'reject') => `/admin/drivers/${encodeURIComponent(id)}/${action}`;

export const listDrivers = (status: ReviewStatus, bearer: string): Promise<ApiResult> =>
  jsonRequest('GET', `/admin/drivers?status=${status}`, bearer);

/** A decision names the version of the driver's data the reviewer saw: a driver who changed it since is refused (409). */
export const approveDriver = (driver: AdminDriver, bearer: string): Promise<ApiResult> =>
  jsonRequest('POST', driverPath(driver.id, 'approve'), bearer, { reviewVersion: driver.reviewVersion });

export const rejectDriver = (driver: AdminDriver, reason: string, bearer: string): Promise<ApiResult> =>
  jsonRequest('POST', driverPath(driver.id, 'reject'), bearer, { reason, reviewVersion: driver.reviewVersion });

/** 401 (no or wrong admin token) and 403 (a driver's token) both mean: this token can't review. */
export const isRefusal = (status: number): boolean => status === 401 || status === 403;

/** What every part of the review page needs to call the admin API. */
export interface AdminSession {
  bearer: string;
  /** The server refused the admin token (401/403): forget it and show why. */
  refused: (message?: string) => void;
}
