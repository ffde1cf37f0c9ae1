/**
 * Firebase Authentication, loaded only when a driver submits the sign-up form (it is ~34 KB
 * gzip that the first page does not need). Locally it talks to the Auth emulator.
 */
import { initializeApp, getApps } from 'firebase/app';
import {
  connectAuthEmulator,
  createUserWithEmailAndPassword,
  getAuth,
  signInWithEmailAndPassword,
  type Auth,
} from 'firebase/auth';
import { appConfig } from './config.js';

let auth: Auth | undefined;

function firebaseAuth(): Auth {
  if (auth) return auth;
  const config = appConfig();
  const app = getApps()[0] ?? initializeApp(config.firebase);
  auth = getAuth(app);
  if (config.authEmulatorUrl) connectAuthEmulator(auth, config.authEmulatorUrl, { disableWarnings: true });
  return auth;
}

/**
 * Creates the account, or signs in when the email already has one (spec §4: identity code
 * email-already-in-use), and returns a fresh ID token for the server to verify.
 */
export async function emailIdToken(email: string, password: string): Promise<string> {
  const auth = firebaseAuth();
  try {
    const { user } = await createUserWithEmailAndPassword(auth, email, password);
    return await user.getIdToken();
  } catch (error) {
    if ((error as { code?: string }).code !== 'auth/email-already-in-use') throw error;
    const { user } = await signInWithEmailAndPassword(auth, email, password);
    return await user.getIdToken();
  }
}
