/**
 * The browser storage keys, declared once; the flow file may name only these. They are the
 * spec's (§3) plus `driver_id`: the status call needs the driver's id (GET /driver/status/{id})
 * and the spec does not say where the browser keeps it. A departure on purpose, as are the
 * `drafts` cookie and the `locale` key below and the drafts' IndexedDB store (docs/departures.md).
 */
export const STORAGE_KEYS = ['email', 'phone', 'token', 'isSocial', 'vehicle_id', 'subscriptionId', 'paymentIntent', 'driver_id'] as const;
export type StorageKey = (typeof STORAGE_KEYS)[number];

/** The cookie that carries the bearer token for some steps (spec §3; §6 says which). */
export const TOKEN_COOKIE = 'token';

/**
 * The cookie naming the steps this device keeps a draft of (their ids, joined by DRAFT_STEP_SEPARATOR):
 * the server then sends such a step's page for the browser to draw with its draft, rather than
 * drawn empty (src/server/routes/static.ts). It holds nothing typed. A departure: the spec names
 * the token cookie only (docs/departures.md).
 */
export const DRAFTS_COOKIE = 'drafts';
export const DRAFT_STEP_SEPARATOR = '.';

/**
 * The cookie naming the step whose guard the server decided (src/server/routes/static.ts): it
 * answered the visit with the guard's redirect, and the page the visitor lands on shows the guard's
 * toast, as the browser's own guard does. It lives for a minute and holds nothing but a step's id.
 * A departure: the spec names the token cookie only (docs/departures.md).
 */
export const SENT_AWAY_COOKIE = 'sent-away';

/**
 * The language this device reads Onramp in, once chosen (src/client/runtime/locale.ts): kept when a
 * driver signs out, as a setting of the device. Not one of the spec's keys, which has one language
 * (docs/departures.md).
 */
export const LOCALE_STORAGE_KEY = 'locale';
