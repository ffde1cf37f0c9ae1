/**
 * Staff sign in as themselves (the admin page and the form studio): email and password, checked by
 * Firebase as drivers' are, exchanged for a staff session. "Forgot password?" sends Firebase's link
 * for choosing a new one.
 *
 * StaffInvitationForm is what an invitation's link opens: the person an owner added chooses their
 * first password (the server sets it, routes/staffInvitations.ts), and is signed in with it.
 *
 * StaffSignInAgain asks over the page, in a dialog, when the session ended or an action needs a
 * fresh sign-in: what was being typed underneath stays as it was.
 */
import { useEffect, useId, useState, type FormEvent } from 'react';
import type { Invitation, InvitationAccepted, StaffSession } from '../../shared/review.js';
import { request } from '../runtime/api.js';
import { flow } from '../runtime/flow.js';
import { Dialog } from '../ui/Dialog.js';
import { signInStaff } from './adminApi.js';
import { reportFault } from '../runtime/faults.js';

const WRONG_CREDENTIALS = 'The email or password is not right.';
const SIGN_IN_FAILED = 'Signing in failed. Please try again.';
const RESET_SENT = 'If this email belongs to a staff member, we sent a link to choose a password. Check your inbox.';
/** What the contract asks of a password set from an invitation (staff.schema.json acceptInvitationBody). */
const MIN_PASSWORD = 12;

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

/** The page an invitation's link opens: whom it is for, a new password, then signed in. */
export function StaffInvitationForm({ token, onSignedIn }: { token: string; onSignedIn: SignInProps['onSignedIn'] }) {
  const ids = useId();
  const [invitation, setInvitation] = useState<Invitation>();
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string>();

  useEffect(() => {
    void request<Invitation>('/admin/invitation', { method: 'POST', body: { token } }).then((result) =>
      result.ok ? setInvitation(result.data) : setProblem(result.message ?? flow.messages.requestFailed),
    );
  }, [token]);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    try {
      const accepted = await request<InvitationAccepted>('/admin/invitation/accept', { method: 'POST', body: { token, password } });
      if (!accepted.ok) {
        setProblem(accepted.message ?? flow.messages.requestFailed);
        return;
      }
      const result = await signInStaff(accepted.data.email, password);
      if (result.ok && result.data.token) onSignedIn({ ...result.data, token: result.data.token });
      else setProblem(!result.ok && 'message' in result && result.message ? result.message : SIGN_IN_FAILED);
    } catch (error) {
      // Firebase, its chunk not loading, or a fault of our code (reported): said as a failed sign-in.
      reportFault(error);
      setProblem(SIGN_IN_FAILED);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="admin-token-form" onSubmit={submit}>
      {problem && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
      {!invitation && !problem && (
        <div className="page-loading" role="status" aria-live="polite">
          <span className="spinner" aria-hidden="true" />
        </div>
      )}
      {invitation && (
        <>
          <p>
            For <strong>{invitation.email}</strong>
          </p>
          {/* A password manager keeps the new password with the email it belongs to. */}
          <input type="email" autoComplete="username" value={invitation.email} readOnly hidden />
          <label htmlFor={`${ids}-password`}>New password</label>
          <p id={`${ids}-hint`} className="admin-muted">
            At least {MIN_PASSWORD} characters. The link works once.
          </p>
          <input
            id={`${ids}-password`}
            className="admin-input"
            type="password"
            autoComplete="new-password"
            aria-describedby={`${ids}-hint`}
            minLength={MIN_PASSWORD}
            maxLength={128}
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
          <button type="submit" className="button button-primary" disabled={busy || password.length < MIN_PASSWORD} aria-busy={busy}>
            {busy && <span className="spinner" aria-hidden="true" />}
            Set password and sign in
          </button>
        </>
      )}
    </form>
  );
}
