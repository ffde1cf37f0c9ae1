/**
 * Firebase Authentication, loaded only when a driver signs up (it is ~34 KB gzip that the first
 * page does not need). Locally it talks to the Auth emulator.
 */
import { initializeApp, getApps } from 'firebase/app';
import {
  connectAuthEmulator,
  createUserWithEmailAndPassword,
  FacebookAuthProvider,
  getAuth,
  GoogleAuthProvider,
  OAuthProvider,
  sendPasswordResetEmail,
  signInWithCredential,
  signInWithEmailAndPassword,
  signInWithPopup,
  signOut,
  type Auth,
  type AuthProvider,
  type User,
} from 'firebase/auth';
import type { SocialProvider } from '../../shared/flow.js';
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

/** Codes Firebase gives for a wrong email or password (which one it never says, nor should we). */
const WRONG_CREDENTIALS = new Set([
  'auth/invalid-credential',
  'auth/wrong-password',
  'auth/user-not-found',
  'auth/invalid-email',
  'auth/invalid-login-credentials',
]);

export class WrongCredentialsError extends Error {}

/** Signs in a returning driver with their email and password: a fresh ID token (auth_time now) for the server. */
export async function passwordIdToken(email: string, password: string): Promise<string> {
  try {
    const { user } = await signInWithEmailAndPassword(firebaseAuth(), email, password);
    return await user.getIdToken();
  } catch (error) {
    if (WRONG_CREDENTIALS.has((error as { code?: string }).code ?? '')) throw new WrongCredentialsError();
    throw error;
  }
}

/**
 * Asks Firebase to email a link for choosing a new password. Whether the email has an account is
 * not told (the caller shows the same words either way); a new password ends the driver's other
 * sessions within a minute (the server compares Firebase's "valid since", plugins/sessions.ts).
 */
export async function sendPasswordReset(email: string): Promise<void> {
  try {
    await sendPasswordResetEmail(firebaseAuth(), email);
  } catch (error) {
    if ((error as { code?: string }).code !== 'auth/user-not-found') throw error;
  }
}

/** Forgets the Firebase user this browser keeps (a shared phone must not stay signed in). */
export async function signOutOfFirebase(): Promise<void> {
  await signOut(firebaseAuth());
}

/** Error codes that mean the provider's popup could not open or was closed. */
const POPUP_FAILURES = new Set([
  'auth/popup-blocked',
  'auth/popup-closed-by-user',
  'auth/cancelled-popup-request',
  'auth/operation-not-supported-in-this-environment',
  // The popup needs Google's script; when it cannot load, the SDK answers this.
  'auth/internal-error',
]);

export class PopupError extends Error {}

export const isEmulated = () => !!appConfig().authEmulatorUrl;

function popupProvider(id: SocialProvider['id']): AuthProvider {
  if (id === 'google.com') return new GoogleAuthProvider();
  if (id === 'facebook.com') return new FacebookAuthProvider();
  return new OAuthProvider(id);
}

const base64url = (value: object) => btoa(JSON.stringify(value)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/**
 * The emulator's stand-in for a provider's sign-in: it accepts an unsigned ID token from the
 * provider, so the rest of the path (Firebase user, ID token, our server) is the real one. As in
 * production, Facebook does not vouch for the email (Firebase marks it not verified), so a local
 * Facebook sign-up proves it by the email code; the others do.
 */
function testCredential(id: SocialProvider['id'], email: string) {
  const now = Math.floor(Date.now() / 1000);
  const claims = { sub: `test-${email}`, email, email_verified: id !== 'facebook.com', iat: now, exp: now + 3600, aud: 'onramp-local' };
  const idToken = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims)}.`;
  return id === 'google.com' ? GoogleAuthProvider.credential(idToken) : new OAuthProvider(id).credential({ idToken });
}

/**
 * Signs in with Google, Apple or Facebook and returns the Firebase ID token and the email.
 * In production through the provider's popup; with the emulator, as `testEmail`.
 */
export async function socialSignIn(id: SocialProvider['id'], testEmail?: string): Promise<{ idToken: string; email: string }> {
  const auth = firebaseAuth();
  let user: User;
  if (isEmulated()) {
    ({ user } = await signInWithCredential(auth, testCredential(id, testEmail ?? '')));
  } else {
    try {
      ({ user } = await signInWithPopup(auth, popupProvider(id)));
    } catch (error) {
      if (POPUP_FAILURES.has((error as { code?: string }).code ?? '')) throw new PopupError();
      throw error;
    }
  }
  return { idToken: await user.getIdToken(), email: user.email ?? '' };
}
