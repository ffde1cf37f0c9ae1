/** The browser storage keys of the spec (§3), declared once. The flow file may name only these. */
export const STORAGE_KEYS = ['email', 'phone', 'token', 'isSocial', 'vehicle_id', 'subscriptionId', 'paymentIntent'] as const;
export type StorageKey = (typeof STORAGE_KEYS)[number];

/** The cookie that carries the bearer token for some steps (spec §6). */
export const TOKEN_COOKIE = 'token';
