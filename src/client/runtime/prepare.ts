/**
 * Work a step does before its call, named in the flow's `prepare` list. Each adds values to
 * the call's `context.*` sources. A failure carries the message the driver sees.
 */
import { request } from './api.js';
import { appConfig } from './config.js';
import { flow } from './flow.js';

export class PrepareError extends Error {}

type PrepareAction = (form: Record<string, unknown>) => Promise<Record<string, unknown>>;

const IP_LOOKUP_TIMEOUT_MS = 5_000;

export const prepareActions: Record<string, PrepareAction> = {
  /** The identity provider's ID token for the email and password just entered. */
  async identityToken(form) {
    try {
      const { emailIdToken } = await import('./identity.js');
      const email = String(form.email ?? '')
        .trim()
        .toLowerCase();
      return { idToken: await emailIdToken(email, String(form.password ?? '')) };
    } catch {
      // Firebase refused the account or could not be reached: the driver reads the flow's words for it.
      throw new PrepareError(flow.messages.identityFailed);
    }
  },

  /** A returning driver's sign-in with email and password: the ID token the server exchanges for a session. */
  async identitySignIn(form) {
    // Its chunk not loading (offline) is said below, as Firebase not loaded.
    const identity = await import('./identity.js').catch(() => undefined);
    try {
      if (!identity) throw new Error('Firebase could not be loaded');
      const email = String(form.email ?? '')
        .trim()
        .toLowerCase();
      return { idToken: await identity.passwordIdToken(email, String(form.password ?? '')) };
    } catch (error) {
      throw new PrepareError(identity && error instanceof identity.WrongCredentialsError ? flow.messages.signInFailed : flow.messages.identityFailed);
    }
  },

  /** The public IP address (spec §7). Sign-up goes on without it: the server also records the address it sees. */
  async publicIp() {
    const answer = await request<{ ip?: unknown }>(appConfig().ipLookupUrl, { timeoutMs: IP_LOOKUP_TIMEOUT_MS });
    return { ip: answer.ok && typeof answer.data.ip === 'string' ? answer.data.ip : null };
  },
};

export async function runPrepare(names: string[] | undefined, form: Record<string, unknown>): Promise<Record<string, unknown>> {
  let context: Record<string, unknown> = {};
  for (const name of names ?? []) {
    const action = prepareActions[name];
    if (!action) throw new Error(`No prepare action "${name}"`);
    context = { ...context, ...(await action(form)) };
  }
  return context;
}
