/**
 * Signing out (the flow's `account.signOut`): the session ends on the server and this browser
 * forgets everything it keeps of the driver, drafts and the Firebase sign-in included, so on a
 * shared phone the next person finds nothing. The browser forgets even when the call fails
 * (offline): the token is then useless here, and it expires on the server.
 */
import { buildPayload, lookupIn } from '../../shared/flow.js';
import { callApi } from './api.js';
import { removeAllDrafts } from './drafts.js';
import { callByName, flow } from './flow.js';
import { clearDriverStorage, storageSnapshot } from './storage.js';

export async function signOut(): Promise<void> {
  const call = callByName(flow.account.signOut.call);
  await callApi(call, buildPayload(call, lookupIn({ storage: storageSnapshot() })));
  clearDriverStorage();
  await removeAllDrafts();
  // Signed out already: the session ended on the server and the device forgot it. Firebase's own
  // sign-out failing (its chunk not loading offline) leaves nothing this page signs in with.
  await import('./identity.js').then((identity) => identity.signOutOfFirebase()).catch(() => undefined);
}
