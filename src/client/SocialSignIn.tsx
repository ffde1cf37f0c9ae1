/**
 * "Continue with Google / Apple", "Sign in with Facebook" (the flow's `social`): the provider's
 * sign-in, then the social sign-up call, then what the flow stores and where it goes. Locally
 * the provider's popup cannot load, so a small dialog asks for a test account's email instead.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import toast from 'react-hot-toast';
import { useLocation } from 'wouter';
import { buildPayload, lookupIn, resolveNextStep, type SocialProvider, type SocialSignIn as Social } from '../shared/flow.js';
import { callApi } from './api.js';
import { appConfig } from './config.js';
import { callByName, flow, routeOf } from './flow.js';
import { prepareActions } from './prepare.js';
import { writeTarget } from './storage.js';

export function SocialSignIn({ social }: { social: Social }) {
  const [, navigate] = useLocation();
  const [busy, setBusy] = useState<SocialProvider['id']>();
  const [asking, setAsking] = useState<SocialProvider>();

  async function signIn(provider: SocialProvider, testEmail?: string) {
    setBusy(provider.id);
    try {
      const identity = await import('./identity.js');
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
      const lookup = lookupIn({ response: result.data });
      for (const [target, source] of Object.entries(social.store)) writeTarget(target, lookup(source));
      const next = resolveNextStep(social.next, lookup);
      if (next) navigate(routeOf(next.to), { state: next.state });
    } catch {
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
          disabled={busy !== undefined}
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

  useEffect(() => {
    input.current?.select();
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && onCancel();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onCancel]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (input.current?.checkValidity()) onSubmit(email.trim().toLowerCase());
  };

  return (
    <div className="dialog-backdrop">
      <form className="dialog" role="dialog" aria-modal="true" aria-labelledby="test-account-title" onSubmit={submit}>
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
    </div>
  );
}
