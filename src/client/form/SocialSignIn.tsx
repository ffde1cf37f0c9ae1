/**
 * "Continue with Google / Apple", "Sign in with Facebook" (the flow's `social`): the provider's
 * sign-in, then the flow's social call, then where its `next` says (the resume table, for a new
 * driver the profile). Locally the provider's popup cannot load, so a small dialog asks for a test
 * account's email instead.
 */
import { useRef, useState, type FormEvent } from 'react';
import { toast } from '../ui/toast.js';
import { useLocation } from 'wouter';
import { buildPayload, lookupIn, type SocialProvider, type SocialSignIn as Social } from '../../shared/flow.js';
import { callApi } from '../runtime/api.js';
import { appConfig } from '../runtime/config.js';
import { Dialog } from '../ui/Dialog.js';
import { callByName, flow } from '../runtime/flow.js';
import { prepareActions } from '../runtime/prepare.js';
import { nextNavigation } from '../runtime/stepFlow.js';
import { useHydrated } from '../runtime/serverPage.js';
import { reportFault } from '../runtime/faults.js';

interface SocialSignInProps {
  social: Social;
  /** Instead of going on as the flow says: the call's answer, for a page that stays (signing in again). */
  onSignedIn?: (answer: Record<string, unknown>) => void;
}

export function SocialSignIn({ social, onSignedIn }: SocialSignInProps) {
  const [, navigate] = useLocation();
  const [busy, setBusy] = useState<SocialProvider['id']>();
  const [asking, setAsking] = useState<SocialProvider>();
  // On the server's drawn page the buttons wait (disabled) for the scripts: a press before they
  // have taken the page over reaches no handler and is lost.
  const hydrated = useHydrated();

  async function signIn(provider: SocialProvider, testEmail?: string) {
    setBusy(provider.id);
    try {
      const identity = await import('../runtime/identity.js');
      let signedIn: { idToken: string; email: string };
      try {
        signedIn = await identity.socialSignIn(provider.id, testEmail);
      } catch (error) {
        toast.error(error instanceof identity.PopupError ? provider.popupError : flow.messages.identityFailed);
        return;
      }
      const { ip } = await prepareActions.publicIp!({});
      const call = callByName(social.call);
      const result = await callApi(call, buildPayload(call, lookupIn({ context: { ...signedIn, ip } })));
      if (!result.ok) {
        toast.error(result.message ?? flow.messages.requestFailed);
        return;
      }
      if (onSignedIn) return onSignedIn(result.data);
      const next = await nextNavigation(social.next, result.data, lookupIn({ response: result.data }));
      if (next) navigate(next.to, { state: next.state });
    } catch (error) {
      // The API's refusals come back as results; what throws is the browser's (a chunk that did not load) or a fault of our
      // code (reported): the driver may try again.
      reportFault(error);
      toast.error(flow.messages.requestFailed);
    } finally {
      setBusy(undefined);
    }
  }

  const start = (provider: SocialProvider) => (appConfig().authEmulatorUrl ? setAsking(provider) : void signIn(provider));

  return (
    <div className="social-sign-in">
      {social.divider && <p className="social-divider">{social.divider}</p>}
      {social.providers.map((provider) => (
        <button
          key={provider.id}
          type="button"
          className={`button button-social social-${provider.id.split('.')[0]}`}
          disabled={busy !== undefined || !hydrated}
          aria-busy={busy === provider.id}
          onClick={() => start(provider)}
        >
          {busy === provider.id && <span className="spinner" aria-hidden="true" />}
          {provider.label}
        </button>
      ))}
      {asking && (
        <TestAccountDialog
          social={social}
          provider={asking}
          onCancel={() => setAsking(undefined)}
          onSubmit={(email) => {
            setAsking(undefined);
            void signIn(asking, email);
          }}
        />
      )}
    </div>
  );
}

function TestAccountDialog(props: { social: Social; provider: SocialProvider; onCancel: () => void; onSubmit: (email: string) => void }) {
  const { social, provider, onCancel, onSubmit } = props;
  const copy = social.testAccount;
  const [email, setEmail] = useState(`driver.${provider.id.split('.')[0]}@example.com`);
  const input = useRef<HTMLInputElement>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (input.current?.checkValidity()) onSubmit(email.trim().toLowerCase());
  };

  return (
    <Dialog labelledBy="test-account-title" onCancel={onCancel} onOpen={() => input.current?.select()}>
      <form onSubmit={submit}>
        <h2 id="test-account-title">{copy.title}</h2>
        <p>{copy.description.replace('{provider}', provider.name)}</p>
        <label htmlFor="test-account-email">{copy.emailLabel}</label>
        <input
          ref={input}
          id="test-account-email"
          className="form-control"
          type="email"
          required
          autoComplete="email"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
        />
        <div className="dialog-actions">
          <button type="button" className="button button-secondary" onClick={onCancel}>
            {copy.cancel}
          </button>
          <button type="submit" className="button button-primary">
            {copy.submit}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
