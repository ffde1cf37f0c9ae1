/**
 * Documents that expire, as flows/notices.json's "expiries" states them: which answer
 * is the expiry date of which document (and which files show it), how many days before it the
 * driver is told, and from when an approved driver may replace it. Pure: the days are YYYY-MM-DD,
 * as the date answers hold them.
 */
import type { Notices } from '../../shared/generated/notices.js';

export type Expiries = Notices['expiries'];
export type ExpiringDocument = Expiries['documents'][number];

const DAY_MS = 24 * 3600 * 1000;
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;
/** The notice of the day after the date, in document_notices_sent. */
export const EXPIRED_NOTICE = 'expired';
/** The notice `days` days before the date, in document_notices_sent. */
export const beforeNotice = (days: number) => `before-${days}`;

/** The day it is at `at` in `zone`, as YYYY-MM-DD. */
export const dayIn = (zone: string, at: Date): string =>
  new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);

/** A document's date as a driver reads it in `locale`: "April 19, 2031", "19 de abril de 2031". */
export const dayInWords = (day: string, locale: string): string =>
  new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));

/** `day` moved by `days` days (YYYY-MM-DD). */
export const addDays = (day: string, days: number): string => new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** Whole days from `today` to `expiresOn`: 0 on the day, negative once it is past; null for an answer that is no date. */
export function daysUntil(expiresOn: unknown, today: string): number | null {
  if (typeof expiresOn !== 'string' || !ISO_DAY.test(expiresOn)) return null;
  const at = Date.parse(`${expiresOn}T00:00:00Z`);
  if (Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== expiresOn) return null;
  return Math.round((at - Date.parse(`${today}T00:00:00Z`)) / DAY_MS);
}

/**
 * The notice due for a document `days` from its date: the expired one once past it, else the one
 * of the nearest listed day reached; `earlier` are those before it, which are not sent late
 * (the servers were down, or the driver was approved inside the window). Null: none yet.
 */
export function noticeDue(days: number, daysBefore: readonly number[]): { notice: string; earlier: string[] } | null {
  if (days < 0) return { notice: EXPIRED_NOTICE, earlier: daysBefore.map(beforeNotice) };
  const reached = daysBefore.filter((before) => days <= before).map(beforeNotice);
  const notice = reached.pop();
  return notice ? { notice, earlier: reached } : null;
}

/** The first day (YYYY-MM-DD) a notice of a document dated `expiresOn` not among `sent` falls due on; null: none is left. */
export function nextNoticeDay(expiresOn: string, daysBefore: readonly number[], sent: readonly string[]): string | null {
  const days = [
    ...daysBefore.map((before) => ({ notice: beforeNotice(before), day: addDays(expiresOn, -before) })),
    { notice: EXPIRED_NOTICE, day: addDays(expiresOn, 1) },
  ];
  return (
    days
      .filter(({ notice }) => !sent.includes(notice))
      .map(({ day }) => day)
      .sort()[0] ?? null
  );
}

/** How many days before its date a document may be replaced: from its first notice on. */
export const renewalWindowDays = (expiries: Expiries): number => Math.max(0, ...expiries.daysBefore);

/** The documents of `step` whose date (in `answers`) is within the renewal window of `today`, or past. */
export function renewableDocuments(expiries: Expiries, step: string, answers: Readonly<Record<string, unknown>>, today: string): ExpiringDocument[] {
  return expiries.documents.filter((document) => {
    if (document.step !== step) return false;
    const days = daysUntil(answers[document.date], today);
    return days !== null && days <= renewalWindowDays(expiries);
  });
}

/** How document_notices_sent names a document: its date's step and field ("addVehicle.proofInsuranceExpiryDate"). */
export const documentKey = (document: ExpiringDocument): string => `${document.step}.${document.date}`;

/** A document's fields: its date and its files. */
export const documentFields = (document: ExpiringDocument): string[] => [document.date, ...document.files];

/** The names of the documents past their date among a driver's answers by step. */
export function expiredDocuments(expiries: Expiries, answersByStep: ReadonlyMap<string, Readonly<Record<string, unknown>>>, today: string): string[] {
  return expiries.documents
    .filter((document) => {
      const days = daysUntil(answersByStep.get(document.step)?.[document.date], today);
      return days !== null && days < 0;
    })
    .map((document) => document.name);
}
