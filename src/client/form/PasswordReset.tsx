/**
 * "Forgot your password?" under the sign-in form (the step's `passwordReset`): Firebase emails a
 * link to choose a new password to the email typed above. The answer is the same whether or not
 * an account uses that email, so the button tells nobody who has an account.
 */
import { useState } from 'react';
import { toast } from '../ui/toast.js';
import type { FormValues } from '../../../widgets/formValues.js';
import type { FormStep } from '../../shared/flow.js';
import { flow } from '../runtime/flow.js';
import { useHydrated } from '../runtime/serverPage.js';
import { reportFault } from '../runtime/faults.js';

/** Enough of an address to ask Firebase about; Firebase judges the rest. */
const LOOKS_LIKE_EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** `values` are the sign-in form's: the email is read when the button is pressed. */
export function PasswordReset({ copy, values }: { copy: NonNullable<FormStep['passwordReset']>; values: FormValues }) {
  const [busy, setBusy] = useState(false);
  // Waits (disabled) on the server's drawn page until the scripts run: a press before reaches no handler.
  const hydrated = useHydrated();
  const send = async () => {
    const email = values.get('email');
    const address = typeof email === 'string' ? email.trim().toLowerCase() : '';
    if (!LOOKS_LIKE_EMAIL.test(address)) {
      toast.error(copy.emailNeeded, { id: copy.emailNeeded });
      return;
    }
    setBusy(true);
    try {
      const { sendPasswordReset } = await import('../runtime/identity.js');
      await sendPasswordReset(address);
      toast.success(copy.sent, { id: copy.sent });
    } catch (error) {
      // Firebase refused or could not be reached (its chunk, offline), or our code failed (reported): the driver may ask again.
      reportFault(error);
      toast.error(flow.messages.requestFailed);
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" className="button button-link" onClick={send} disabled={busy || !hydrated} aria-busy={busy}>
      {busy && <span className="spinner" aria-hidden="true" />}
      {copy.label}
    </button>
  );
}
