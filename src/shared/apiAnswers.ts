/**
 * Words of the API's answers that the browser acts on, declared once for the server that says
 * them and the client that reads them.
 */

/**
 * An error answer's `reason` when the driver must sign in again and may then try once more: the
 * session ended (idle, signed out, expired) or the change needs a sign-in minutes old.
 */
export const SIGN_IN_AGAIN_REASON = 'signInAgain';

/** An error answer's `reason` when the subscription asked for is paid already: the card step is behind the driver. */
export const ALREADY_PAID_REASON = 'alreadyPaid';

/** Where the browser reports a fault of its own code (src/shared/clientErrorReport.schema.json). */
export const CLIENT_ERRORS_PATH = '/client-errors';
