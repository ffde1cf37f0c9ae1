/**
 * Words of the API's answers that the browser acts on, declared once for the server that says
 * them and the client that reads them.
 */

/**
 * An error answer's `reason` when the driver must sign in again and may then try once more: the
 * session ended (idle, signed out, expired) or the change needs a sign-in minutes old.
 */
export const SIGN_IN_AGAIN_REASON = 'signInAgain';
