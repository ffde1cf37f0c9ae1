/**
 * A driver's email sign-up as the sign-up form sends it, with a new account in the Firebase Auth
 * emulator: for `npm run bench` and the load harnesses (rollingRestart.ts).
 */
import { authEmulatorHost } from '../src/cli/authEmulator.js';

const PASSWORD = 'Str0ng!Pass';

/**
 * Whether an ID token the emulator answered to a sign-up may be older than its account: it takes
 * the sign-in time (auth_time) as the request begins and the account's validSince (whole seconds)
 * after hashing the password, so across a second's turn the token predates the account, and a
 * server that checks revocation (firebase-admin's verifyIdToken(token, true)) refuses it as
 * revoked. Its issue time (iat), later still, then lies past its sign-in time.
 */
export function mayPredateAccount(idToken: string): boolean {
  const claims = JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as { iat?: unknown; auth_time?: unknown };
  return typeof claims.iat !== 'number' || typeof claims.auth_time !== 'number' || claims.iat > claims.auth_time;
}

/**
 * A call of the emulator's Identity Toolkit API (the endpoints the browser SDK calls); throws what it
 * answers to a refusal. Each on a connection of its own: the emulator closes a connection idle for
 * 5 s, and a call sent on one as it closed failed ("other side closed") with the account maybe made
 * or not, so it can't simply be sent again.
 */
export async function identityToolkit(method: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`http://${authEmulatorHost()}/identitytoolkit.googleapis.com/v1/${method}?key=demo-api-key`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`Auth emulator ${method} failed: ${JSON.stringify(answer)}`);
  return answer;
}

/** A new email/password account in the Auth emulator and an ID token that postdates it: signed in again if need be (mayPredateAccount). */
export async function emulatorAccount(email: string, password = PASSWORD): Promise<{ uid: string; idToken: string }> {
  const { localId, idToken } = await identityToolkit('accounts:signUp', { email, password, returnSecureToken: true });
  const fresh = mayPredateAccount(String(idToken))
    ? (await identityToolkit('accounts:signInWithPassword', { email, password, returnSecureToken: true })).idToken
    : idToken;
  return { uid: String(localId), idToken: String(fresh) };
}

/** A new account in the Auth emulator, and its ID token. */
export const emulatorIdToken = async (email: string): Promise<string> => (await emulatorAccount(email)).idToken;

/** The email sign-up's payload, as the sign-up form sends it. */
export const signUpBody = (email: string, phoneNo: string, idToken: string) => ({
  email,
  phoneNo,
  password: PASSWORD,
  confirmPassword: PASSWORD,
  referalCode: null,
  accept: true,
  twilioCheck: true,
  ip: null,
  idToken,
});
