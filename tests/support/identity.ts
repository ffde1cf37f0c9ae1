/**
 * Accounts in the Firebase Auth emulator, through its REST API (the same endpoints the
 * browser SDK calls), for tests that need a real ID token.
 */
import { randomBytes } from 'node:crypto';
import { authEmulatorAnswers, authEmulatorHost } from '../../src/cli/authEmulator.js';
import { LOCAL_FIREBASE_PROJECT_ID } from '../../src/server/config.js';
import { emulatorAccount, identityToolkit as emulatorIdentityToolkit } from '../../tools/emulatorSignUp.js';

export const TEST_PASSWORD = 'Str0ng!Pass';

export interface EmulatorUser {
  email: string;
  password: string;
  uid: string;
  idToken: string;
}

/** A fresh address no other test uses. */
export const uniqueEmail = (prefix = 'driver') => `${prefix}-${randomBytes(6).toString('hex')}@example.com`;

let answering: Promise<void> | undefined;

/**
 * Resolves once the emulator answers. tests/globalSetup.ts starts it without waiting (it takes
 * about 15 s), so what needs it (a server, a process that would otherwise start one of its own,
 * an account) waits here first.
 */
export function authEmulatorReady(): Promise<void> {
  answering ??= authEmulatorAnswers().then((answered) => {
    if (!answered) throw new Error(`The Firebase Auth emulator does not answer on ${authEmulatorHost()} (tests/globalSetup.ts starts it).`);
  });
  return answering;
}

/** The emulator's Identity Toolkit API, once the emulator answers. */
async function identityToolkit(method: string, body: unknown): Promise<Record<string, unknown>> {
  await authEmulatorReady();
  return emulatorIdentityToolkit(method, body);
}

/** An email/password account and its ID token (sign_in_provider "password"), one that postdates the account (mayPredateAccount). */
export async function createEmulatorUser(email = uniqueEmail(), password = TEST_PASSWORD): Promise<EmulatorUser> {
  await authEmulatorReady();
  return { email, password, ...(await emulatorAccount(email, password)) };
}

/** A new ID token for an existing email/password account. */
export async function signInEmulatorUser(email: string, password = TEST_PASSWORD): Promise<string> {
  const result = await identityToolkit('accounts:signInWithPassword', { email, password, returnSecureToken: true });
  return String(result.idToken);
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * A social (Google, Apple, Facebook) account: the emulator accepts an unsigned provider
 * id_token through signInWithIdp, as the browser does locally. `emailVerified`: whether the
 * provider vouches for the email (Facebook never does); `subject`: the provider's id of the user,
 * for an account the browser's test sign-in (src/client/runtime/identity.ts) then finds.
 */
export async function createSocialUser(
  provider = 'google.com',
  email = uniqueEmail('social'),
  { emailVerified = true, subject = randomBytes(8).toString('hex') }: { emailVerified?: boolean; subject?: string } = {},
): Promise<EmulatorUser> {
  const now = Math.floor(Date.now() / 1000);
  const providerToken = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({
    sub: subject,
    email,
    email_verified: emailVerified,
    iss: 'https://accounts.google.com',
    aud: 'onramp-tests',
    iat: now,
    exp: now + 3600,
  })}.`;
  const result = await identityToolkit('accounts:signInWithIdp', {
    postBody: `id_token=${providerToken}&providerId=${provider}`,
    requestUri: 'http://localhost',
    returnIdpCredential: true,
    returnSecureToken: true,
  });
  return { email, password: '', uid: String(result.localId), idToken: String(result.idToken) };
}

/**
 * The same ID token with some claims changed (the emulator's tokens are unsigned, so this is
 * how a test makes an expired or wrong-project token).
 */
export function withClaims(idToken: string, changes: Record<string, unknown>): string {
  const [header = '', payload = ''] = idToken.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  return `${header}.${base64url({ ...claims, ...changes })}.`;
}

/**
 * A new password by Firebase's own reset flow, as a driver follows the emailed link: the reset
 * email (accounts:sendOobCode), its code as the emulator keeps it, and the reset itself.
 */
export async function resetPasswordInEmulator(email: string, newPassword: string): Promise<void> {
  await identityToolkit('accounts:sendOobCode', { requestType: 'PASSWORD_RESET', email });
  const oobCode = await latestOobCode(email, 'PASSWORD_RESET');
  await identityToolkit('accounts:resetPassword', { oobCode, newPassword });
}

/** The newest email-action code (password reset, …) the emulator "sent" to this address. */
export async function latestOobCode(email: string, requestType: string): Promise<string> {
  // On a connection of its own, as identityToolkit calls (tools/emulatorSignUp.ts).
  const response = await fetch(`http://${authEmulatorHost()}/emulator/v1/projects/${LOCAL_FIREBASE_PROJECT_ID}/oobCodes`, { headers: { connection: 'close' } });
  const { oobCodes } = (await response.json()) as { oobCodes: { email: string; requestType: string; oobCode: string }[] };
  const code = oobCodes.filter((each) => each.email === email && each.requestType === requestType).at(-1);
  if (!code) throw new Error(`The Auth emulator sent no ${requestType} email to ${email}`);
  return code.oobCode;
}
