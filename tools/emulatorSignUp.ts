/**
 * A driver's email sign-up as the sign-up form sends it, with a new account in the Firebase Auth
 * emulator: for `npm run bench` and the load harnesses (rollingRestart.ts).
 */
import { LOCAL_AUTH_EMULATOR_HOST } from '../src/server/config.js';

const PASSWORD = 'Str0ng!Pass';

/** A new account in the Auth emulator, and its ID token. */
export async function emulatorIdToken(email: string): Promise<string> {
  const response = await fetch(`http://${LOCAL_AUTH_EMULATOR_HOST}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=bench`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD, returnSecureToken: true }),
  });
  return ((await response.json()) as { idToken: string }).idToken;
}

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
