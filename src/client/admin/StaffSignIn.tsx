/**
 * Staff sign in as themselves (the admin page and the form studio): email and password, checked by
 * Firebase as drivers' are, exchanged for a staff session. "Forgot password?" sends Firebase's link
 * for choosing one: it is how a person an owner added sets their first password.
 *
 * StaffSignInAgain asks over the page, in a dialog, when the session ended or an action needs a
 * fresh sign-in: what was being typed underneath stays as it was.
 */
import { useId, useState, type FormEvent } from 'react';
import type { StaffSession } from '../../shared/review.js';
import { Dialog } from '../ui/Dialog.js';
import { signInStaff } from './adminApi.js';
import { reportFault } from '../runtime/faults.js';

const WRONG_CREDENTIALS = 'The email or password is not right.';
const SIGN_IN_FAILED = 'Signing in failed. Please try again.';
const RESET_SENT = 'If this email belongs to a staff member, we sent a link to choose a password. Check your inbox.';

interface SignInProps {
  /** Signed in: the session token and who it is. */
  onSignedIn: (session: StaffSession & { token: string }) => void;
  /** The email to sign in as (signing in again): shown, not asked for. */
  email?: string;
  /** Why the page asks (the session ended, or the last answer's refusal). */
  notice?: string;
  submitText?: string;
}

export function StaffSignInForm({ onSignedIn, email: fixedEmail, notice, submitText = 'Sign in' }: SignInProps) {
  const ids = useId();
  const [email, setEmail] = useState(fixedEmail ?? '');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string>();
  const [info, setInfo] = useState<string>();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    setInfo(undefined);
    try {
      const result = await signInStaff(email.trim(), password);
      if (result.ok && result.data.token) onSignedIn({ ...result.data, token: result.data.token });
      else setProblem('wrongCredentials' in result ? WRONG_CREDENTIALS : !result.ok && result.message ? result.message : SIGN_IN_FAILED);
    } catch (error) {
      // The API's refusals come back as results; what throws is Firebase, its chunk not loading (offline), or a fault of our
      // code (reported): said as a failed sign-in.
      reportFault(error);
      setProblem(SIGN_IN_FAILED);
    } finally {
      setBusy(false);
    }
  }

  async function forgot() {
    setProblem(undefined);
    if (!email.trim()) {
      setProblem('Type your email first.');
      return;
    }
    try {
      await (await import('../runtime/identity.js')).sendPasswordReset(email.trim());
      setInfo(RESET_SENT);
    } catch (error) {
      // Firebase refused or could not be reached, or our code failed (reported): the staff member is told, and can ask again.
      reportFault(error);
      setProblem(SIGN_IN_FAILED);
    }
  }

  return (
    <form className="admin-token-form" onSubmit={submit}>
      {notice && <p className="admin-muted">{notice}</p>}
      {problem && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
      {info && <p role="status">{info}</p>}
      {fixedEmail ? (
        <p>
          As <strong>{fixedEmail}</strong>
        </p>
      ) : (
        <>
          <label htmlFor={`${ids}-email`}>Email</label>
          <input
            id={`${ids}-email`}
            className="admin-input"
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        </>
      )}
      <label htmlFor={`${ids}-password`}>Password</label>
      <input
        id={`${ids}-password`}
        className="admin-input"
        type="password"
        autoComplete="current-password"
        autoFocus={!!fixedEmail}
        required
        value={password}
        onChange={(event) => setPassword(event.target.value)}
      />
      <button type="submit" className="button button-primary" disabled={busy || !email.trim() || !password} aria-busy={busy}>
        {busy && <span className="spinner" aria-hidden="true" />}
        {submitText}
      </button>
      {!fixedEmail && (
        <button type="button" className="admin-link-button" onClick={() => void forgot()}>
          Forgot password?
        </button>
      )}
    </form>
  );
}

/** "Please sign in again" over the page; `onCancel` leaves the page as it is, signed out. */
export function StaffSignInAgain({ email, notice, onSignedIn, onCancel }: SignInProps & { email: string; onCancel: () => void }) {
  return (
    <Dialog labelledBy="staff-sign-in-again-title" onCancel={onCancel}>
      <h2 id="staff-sign-in-again-title">Please sign in again</h2>
      <StaffSignInForm email={email} notice={notice} onSignedIn={onSignedIn} submitText="Sign in again" />
      <button type="button" className="button button-secondary" onClick={onCancel}>
        Not now
      </button>
    </Dialog>
  );
}
