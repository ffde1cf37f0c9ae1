/**
 * Integrations (owners): a partner's system that starts drivers' onboarding with launch links
 * (docs/launch-links.md). An owner adds one with the URLs its drivers may return to, is shown its
 * first key and its signing secret once, makes more keys, revokes them, and edits the return URLs.
 */
import { useState, type FormEvent } from 'react';
import useSWR from 'swr';
import type { Integration, IntegrationCreated, IntegrationKeyCreated, IntegrationList } from '../../shared/review.js';
import { request } from '../runtime/api.js';
import { READ_ONCE, type RequestError } from '../runtime/reads.js';
import { checkRefusal, readAdmin, type AdminKey, type AdminSession } from './adminApi.js';
import { formatTime } from './adminData.js';
import { ReadFailure } from './ReadFailure.js';
import { told } from './StaffSections.js';

/** The return URLs as typed, one a line. */
const urlsOf = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

/** A secret shown this once, with what it is. */
function ShownOnce({ lines }: { lines: string[] }) {
  return (
    <div role="status">
      <p>Shown this once: give it to the integration now.</p>
      <pre className="admin-key">{lines.join('\n')}</pre>
    </div>
  );
}

function IntegrationRow({ integration, session, onChanged }: { integration: Integration; session: AdminSession; onChanged: () => void }) {
  const [returnUrls, setReturnUrls] = useState(integration.returnUrls.join('\n'));
  const [made, setMade] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function act<T>(path: string, body: Record<string, unknown>, done: string, then?: (data: T) => void) {
    setBusy(true);
    try {
      const result = await request<T>(path, { method: 'POST', bearer: session.bearer, body });
      if (told(session, result, done) && result.ok) {
        then?.(result.data);
        onChanged();
      }
    } finally {
      setBusy(false);
    }
  }

  const path = `/admin/integrations/${integration.id}`;
  return (
    <li className="admin-driver admin-staff-member">
      <div className="admin-driver-summary">
        <p className="admin-driver-name">{integration.name}</p>
        <p className="admin-muted">
          Added by {integration.createdBy} on {formatTime(integration.createdAt)}
        </p>
        <label htmlFor={`admin-return-urls-${integration.id}`}>Return URLs, one a line</label>
        <textarea
          id={`admin-return-urls-${integration.id}`}
          className="admin-input"
          rows={3}
          value={returnUrls}
          onChange={(event) => setReturnUrls(event.target.value)}
        />
        <div className="admin-actions">
          <button
            type="button"
            className="button button-secondary admin-action"
            disabled={busy}
            onClick={() => void act(`${path}/return-urls`, { returnUrls: urlsOf(returnUrls) }, `Return URLs of ${integration.name} saved.`)}
          >
            Save return URLs
          </button>
          <button
            type="button"
            className="button button-secondary admin-action"
            disabled={busy}
            onClick={() => void act<IntegrationKeyCreated>(`${path}/keys`, {}, 'Key made.', (created) => setMade(created.key))}
          >
            Make a key
          </button>
        </div>
        {made && <ShownOnce lines={[`ONRAMP_INTEGRATION_KEY=${made}`]} />}
        <ul className="admin-keys">
          {integration.keys.map((key) => (
            <li key={key.id}>
              Key made {formatTime(key.createdAt)}, {key.lastUsedAt ? `last used ${formatTime(key.lastUsedAt)}` : 'never used'}{' '}
              <button
                type="button"
                className="admin-link-button"
                disabled={busy}
                onClick={() => void act(`${path}/keys/${key.id}/revoke`, {}, `A key of ${integration.name} was revoked.`)}
              >
                Revoke
                <span className="visually-hidden">
                  {' '}
                  the key of {integration.name} made {formatTime(key.createdAt)}
                </span>
              </button>
            </li>
          ))}
        </ul>
      </div>
    </li>
  );
}

export function IntegrationsSection({ session }: { session: AdminSession }) {
  const key: AdminKey = ['/admin/integrations', session.bearer];
  const { data, error, mutate } = useSWR<IntegrationList, RequestError>(key, readAdmin<IntegrationList>, {
    ...READ_ONCE,
    onError: (failed) => checkRefusal(session, failed),
  });
  const [name, setName] = useState('');
  const [returnUrls, setReturnUrls] = useState('');
  const [created, setCreated] = useState<IntegrationCreated>();
  const [busy, setBusy] = useState(false);

  async function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    try {
      const body = { name: name.trim(), returnUrls: urlsOf(returnUrls) };
      const result = await request<IntegrationCreated>('/admin/integrations', { method: 'POST', bearer: session.bearer, body });
      if (told(session, result, `${name.trim()} was added.`) && result.ok) {
        setCreated(result.data);
        setName('');
        setReturnUrls('');
        void mutate();
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <h2>Integrations</h2>
      <p className="admin-muted">
        A partner’s app starts a driver’s onboarding with a launch link made with its key, and gets the driver back at one of its return URLs with a result
        signed with its signing secret.
      </p>
      <form className="admin-staff-add" onSubmit={add}>
        <h3>Add an integration</h3>
        <label htmlFor="admin-integration-name">Name</label>
        <input id="admin-integration-name" className="admin-input" maxLength={100} required value={name} onChange={(event) => setName(event.target.value)} />
        <label htmlFor="admin-integration-urls">Return URLs, one a line</label>
        <textarea id="admin-integration-urls" className="admin-input" rows={3} value={returnUrls} onChange={(event) => setReturnUrls(event.target.value)} />
        <button type="submit" className="button button-primary" disabled={busy || !name.trim()}>
          Add
        </button>
      </form>
      {created && <ShownOnce lines={[`ONRAMP_INTEGRATION_KEY=${created.key}`, `ONRAMP_SIGNING_SECRET=${created.signingSecret}`]} />}
      <ReadFailure error={error} />
      {data && (
        <ul className="admin-drivers">
          {data.integrations.map((integration) => (
            <IntegrationRow
              key={`${integration.id}:${integration.returnUrls.join()}`}
              integration={integration}
              session={session}
              onChanged={() => void mutate()}
            />
          ))}
        </ul>
      )}
    </>
  );
}
