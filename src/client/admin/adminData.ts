/**
 * The small pure rules the review page applies to the admin API's answers (src/shared/review.ts):
 * how a driver is called, how an answer reads, which dates have passed. Kept apart from the
 * components so they can be tested on their own.
 */
import type { QueueDriver, ReviewedField, ReviewStatus } from '../../shared/review.js';

export const REVIEW_TABS: readonly { status: ReviewStatus; label: string; empty: string }[] = [
  { status: 'pending', label: 'Waiting', empty: 'No drivers are waiting for review.' },
  { status: 'approved', label: 'Approved', empty: 'No drivers have been approved yet.' },
  { status: 'rejected', label: 'Rejected', empty: 'No drivers have been rejected.' },
];

/** The review name; the email while the driver has no profile yet. */
export const driverName = (driver: QueueDriver): string => driver.name ?? driver.email;

const PROVIDER_LABELS: Readonly<Record<string, string>> = {
  password: 'Email and password',
  'google.com': 'Google',
  'apple.com': 'Apple',
  'facebook.com': 'Facebook',
};

export const providerLabel = (provider: string): string => PROVIDER_LABELS[provider] ?? provider;

/** When the driver sent everything for approval; sign-up time until then. */
export function submittedTime(driver: QueueDriver): { label: string; iso: string } {
  return driver.submittedAt ? { label: 'Submitted', iso: driver.submittedAt } : { label: 'Signed up', iso: driver.createdAt };
}

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** An answer as a reviewer reads it: Yes/No, a calendar day, the text; "Not given" when empty. */
export function answerText(value: unknown): string {
  if (value === null || value === undefined || value === '') return 'Not given';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'string') return ISO_DAY.test(value) ? formatDay(value) : value;
  return JSON.stringify(value);
}

/** A day answer that has passed (an expiry date): said in words beside the date. */
export const isExpired = (field: ReviewedField, today: string): boolean =>
  typeof field.value === 'string' && ISO_DAY.test(field.value) && /expir/i.test(field.field) && isPastDate(field.value, today);

/** Today as YYYY-MM-DD in the reviewer's own time zone: an expiry date is a calendar day, not an instant. */
export function localToday(now: Date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** A YYYY-MM-DD date before today; ISO dates compare correctly as strings. A date expiring today is still valid. */
export function isPastDate(isoDate: string, today: string): boolean {
  return isoDate.slice(0, 10) < today;
}

const calendarDate = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' });
const dateTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' });

/** "Mar 4, 1990" for a YYYY-MM-DD day (read as UTC so it never shifts by a day); the raw text if it isn't one. */
export function formatDay(isoDate: string): string {
  const date = new Date(`${isoDate.slice(0, 10)}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? isoDate : calendarDate.format(date);
}

/** "Mar 4, 2026, 2:05 PM" in the reviewer's time zone. */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
}

const inUnit = (unit: 'minute' | 'hour' | 'day', digits: number) =>
  new Intl.NumberFormat('en-US', { style: 'unit', unit, unitDisplay: 'long', maximumFractionDigits: digits });
const MINUTES = inUnit('minute', 0);
const HOURS = inUnit('hour', 1);
const DAYS = inUnit('day', 1);

/** A time in hours (the insights' figures) in the unit that reads best: "25 minutes", "3.5 hours", "2.3 days"; "—" for none. */
export function formatDuration(hours: number | null): string {
  if (hours === null) return '—';
  const minutes = Math.round(hours * 60);
  if (minutes < 1) return 'less than a minute';
  if (minutes < 60) return MINUTES.format(minutes);
  if (hours < 48) return HOURS.format(hours);
  return DAYS.format(hours / 24);
}

/** While something a list shows waits to be delivered (a notice, a webhook delivery), the list is read again this often. */
export const PENDING_REFRESH_MS = 2_000;
