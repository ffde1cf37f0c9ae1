/**
 * What each sealed value is bound to (the associated data of its AES-GCM seal, lib/dataCipher.ts):
 * the writer, the reader and the key rotation (lib/rekey.ts) name it the same way.
 */

/** An outgoing notice's message: its row. */
export const noticeContext = (id: string) => `notice:${id}`;
/** A webhook endpoint's signing secret (and the previous one, kept while it is still accepted). */
export const webhookSecretContext = (endpointId: string) => `webhook-secret:${endpointId}`;
/** An integration's signing secret. */
export const integrationSecretContext = (integrationId: string) => `integration-secret:${integrationId}`;
/** A launch link's prefilled email and phone: the link's token hash. */
export const prefillContext = (tokenHash: string) => `launch-link:${tokenHash}`;
/** The keyed hash of the email a launch link is found by at the sign-up (no email is kept once the link is opened). */
export const LAUNCH_EMAIL_CONTEXT = 'launch-email';
