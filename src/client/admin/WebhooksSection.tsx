/**
 * The signed webhooks on the admin page (owners): the endpoints, each with its state and its
 * recent deliveries; adding, changing, turning off and removing one; its signing secret, shown
 * once when it is made or rotated; a test event, a delivery sent again, a time range replayed
 * (the admin API: src/server/routes/webhooks.ts). A refusal is told with the server's words, and
 * what the owner typed stays.
 */
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import useSWR, { useSWRConfig } from 'swr';
import type { WebhookDeliveryPage, WebhookEndpoint, WebhookEndpointList, WebhookQueued, WebhookSecret } from '../../shared/generated/webhooks.js';
import { request } from '../runtime/api.js';
import { READ_ONCE, type RequestError } from '../runtime/reads.js';
import { toast } from '../ui/toast.js';
import { checkRefusal, readAdmin, type AdminKey, type AdminSession } from './adminApi.js';
import { formatTime, PENDING_REFRESH_MS } from './adminData.js';
import { ReadFailure } from './ReadFailure.js';
import { told } from './StaffSections.js';

const webhookPath = (id: string, action = '') => `/admin/webhooks/${encodeURIComponent(id)}${action}`;

const STATUS_LABELS: Record<string, string> = { pending: 'Waiting', delivered: 'Delivered', failed: 'Failed' };
/** Why the server turned an endpoint off (its disabledReason), in words; anything else an owner did. */
const TURNED_OFF: Record<string, string> = {
  failing: 'Turned off: its deliveries kept failing',
  'secret-unreadable': "Turned off: its signing secret can't be opened; its deliveries wait. Rotate the secret, give it to the receiver, then turn it on",
};

interface EndpointFields {
  url: string;
  eventTypes: string[];
  description: string;
  allowPrivate: boolean;
}

/** The fields of an endpoint, as the add and edit forms share them; `id` tells the two forms' fields apart. */
function EndpointInputs({
  id,
  fields,
  eventTypes,
  onChange,
}: {
  id: string;
  fields: EndpointFields;
  eventTypes: readonly string[];
  onChange: (fields: EndpointFields) => void;
}) {
  return (
    <>
      <label htmlFor={`${id}-url`}>URL</label>
      <input
        id={`${id}-url`}
        className="admin-input"
        type="url"
        required
        maxLength={2000}
        placeholder="https://"
        value={fields.url}
        onChange={(event) => onChange({ ...fields, url: event.target.value })}
      />
      <fieldset className="admin-webhook-types">
        <legend>Events it receives</legend>
        <p className="admin-hint admin-muted">None chosen: every event, new ones too.</p>
        {eventTypes.map((type) => (
          <label key={type} className="admin-fix-toggle">
            <input
              type="checkbox"
              checked={fields.eventTypes.includes(type)}
              onChange={(event) =>
                onChange({ ...fields, eventTypes: event.target.checked ? [...fields.eventTypes, type] : fields.eventTypes.filter((each) => each !== type) })
              }
            />
            <code>{type}</code>
          </label>
        ))}
      </fieldset>
      <label htmlFor={`${id}-description`}>Description (optional)</label>
      <input
        id={`${id}-description`}
        className="admin-input"
        maxLength={200}
        value={fields.description}
        onChange={(event) => onChange({ ...fields, description: event.target.value })}
      />
      <label className="admin-fix-toggle">
        <input type="checkbox" checked={fields.allowPrivate} onChange={(event) => onChange({ ...fields, allowPrivate: event.target.checked })} />
        Allow a private address
      </label>
      <p className="admin-hint admin-muted">
        Only for a receiver inside your own network. Without it, an address on a loopback, link-local or private network is refused in production.
      </p>
    </>
  );
}

/** A secret the server answered once: shown until the owner closes it. */
function SecretNote({ url, secret, onDone }: { url: string; secret: string; onDone: () => void }) {
  const done = useRef<HTMLButtonElement>(null);
  useEffect(() => done.current?.focus(), []);

  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
      toast.success('Secret copied.');
    } catch {
      toast.error('The secret could not be copied: select it and copy it.');
    }
  }

  return (
    <div className="admin-note admin-webhook-secret" role="status">
      <p>
        The signing secret of <strong>{url}</strong>:
      </p>
      <pre className="admin-key">{secret}</pre>
      <p>
        <strong>Copy it now: you won’t see it again.</strong> The receiver checks each webhook’s signature with it.
      </p>
      <div className="admin-actions">
        <button type="button" className="button button-primary admin-action" onClick={() => void copy()}>
          Copy the secret
        </button>
        <button ref={done} type="button" className="button button-secondary admin-action" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

/** A datetime-local input's value (the viewer's time zone) as an ISO time; '' if none. */
const isoOf = (local: string) => (local ? new Date(local).toISOString() : '');

function Deliveries({ endpoint, session, onSettled }: { endpoint: WebhookEndpoint; session: AdminSession; onSettled: () => void }) {
  const key: AdminKey = [webhookPath(endpoint.id, '/deliveries'), session.bearer];
  const { data, error, mutate, isValidating } = useSWR<WebhookDeliveryPage, RequestError>(key, readAdmin<WebhookDeliveryPage>, {
    ...READ_ONCE,
    dedupingInterval: 0,
    refreshInterval: (page) => (page?.deliveries.some((each) => each.status === 'pending') ? PENDING_REFRESH_MS : 0),
    onError: (failed) => checkRefusal(session, failed),
  });
  const [range, setRange] = useState({ from: '', to: '' });
  const [busy, setBusy] = useState(false);

  // Something waited and nothing does now: the endpoint's count of failures may have changed.
  const pending = data?.deliveries.some((each) => each.status === 'pending') ?? false;
  const waited = useRef(false);
  useEffect(() => {
    if (waited.current && !pending) onSettled();
    waited.current = pending;
  }, [pending, onSettled]);

  async function resend(deliveryId: string) {
    setBusy(true);
    try {
      const result = await request<WebhookQueued>(webhookPath(endpoint.id, `/deliveries/${encodeURIComponent(deliveryId)}/resend`), {
        method: 'POST',
        bearer: session.bearer,
      });
      if (told(session, result, 'Sent again.')) void mutate();
    } finally {
      setBusy(false);
    }
  }

  async function replay(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    try {
      const result = await request<WebhookQueued>(webhookPath(endpoint.id, '/replay'), {
        method: 'POST',
        bearer: session.bearer,
        body: { from: isoOf(range.from), to: isoOf(range.to) },
      });
      if (result.ok) void mutate();
      told(session, result, result.ok ? `${result.data.queued === 1 ? '1 event' : `${result.data.queued} events`} queued again.` : '');
    } finally {
      setBusy(false);
    }
  }

  const field = `admin-webhook-${endpoint.id}`;
  return (
    <div className="admin-webhook-deliveries">
      <div className="admin-panel-head">
        <h4>Recent deliveries</h4>
        <button type="button" className="button button-secondary admin-action" disabled={isValidating} onClick={() => void mutate()}>
          Refresh
        </button>
      </div>
      <ReadFailure error={error} />
      {data && data.deliveries.length === 0 && <p className="admin-empty">Nothing sent to it yet.</p>}
      {data && data.deliveries.length > 0 && (
        <table className="admin-audit admin-webhook-table">
          <thead>
            <tr>
              <th scope="col">Queued</th>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Tries</th>
              <th scope="col">Last answer</th>
              <th scope="col">Next try</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {data.deliveries.map((delivery) => (
              <tr key={delivery.id}>
                <td data-label="Queued">{formatTime(delivery.queuedAt)}</td>
                <td data-label="Event">
                  <code>{delivery.eventType}</code>
                </td>
                <td data-label="Status" className={`admin-webhook-status is-${delivery.status}`}>
                  {STATUS_LABELS[delivery.status] ?? delivery.status}
                </td>
                <td data-label="Tries">{delivery.attempts}</td>
                <td data-label="Last answer">
                  {delivery.lastStatusCode === null && !delivery.lastAnswer ? (
                    '—'
                  ) : (
                    <span className="admin-webhook-answer">
                      {delivery.lastStatusCode !== null && <strong>{delivery.lastStatusCode}</strong>}
                      {delivery.lastAnswer && <code>{delivery.lastAnswer}</code>}
                    </span>
                  )}
                </td>
                <td data-label="Next try">{delivery.status === 'pending' ? formatTime(delivery.nextAttemptAt) : '—'}</td>
                <td data-label="">
                  <button type="button" className="admin-link-button" disabled={busy} onClick={() => void resend(delivery.id)}>
                    Resend
                    <span className="visually-hidden">
                      {' '}
                      {delivery.eventType} of {formatTime(delivery.queuedAt)}
                    </span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form className="admin-webhook-replay" onSubmit={replay} aria-label={`Replay events to ${endpoint.url}`}>
        <h4>Replay a time range</h4>
        <p className="admin-hint admin-muted">Every event it takes from this time range is sent again, in your time zone.</p>
        <div className="admin-webhook-range">
          <label htmlFor={`${field}-from`}>From</label>
          <input
            id={`${field}-from`}
            className="admin-input"
            type="datetime-local"
            required
            value={range.from}
            onChange={(event) => setRange({ ...range, from: event.target.value })}
          />
          <label htmlFor={`${field}-to`}>To</label>
          <input
            id={`${field}-to`}
            className="admin-input"
            type="datetime-local"
            required
            value={range.to}
            onChange={(event) => setRange({ ...range, to: event.target.value })}
          />
        </div>
        <button type="submit" className="button button-secondary admin-action" disabled={busy || !range.from || !range.to}>
          Replay
        </button>
      </form>
    </div>
  );
}

const fieldsOf = (endpoint: WebhookEndpoint): EndpointFields => ({
  url: endpoint.url,
  eventTypes: endpoint.eventTypes,
  description: endpoint.description,
  allowPrivate: endpoint.allowPrivate,
});

function EndpointCard({
  endpoint,
  eventTypes,
  session,
  onChanged,
  onSecret,
}: {
  endpoint: WebhookEndpoint;
  eventTypes: readonly string[];
  session: AdminSession;
  onChanged: () => void;
  onSecret: (answer: WebhookSecret) => void;
}) {
  const [editing, setEditing] = useState<EndpointFields>();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const { mutate } = useSWRConfig();

  async function act<T>(action: string, body: Record<string, unknown> | undefined, done: string | ((data: T) => string), then?: (data: T) => void) {
    setBusy(true);
    try {
      const result = await request<T>(webhookPath(endpoint.id, action), { method: 'POST', bearer: session.bearer, body });
      const said = result.ok ? (typeof done === 'function' ? done(result.data) : done) : '';
      if (told(session, result, said) && result.ok) {
        then?.(result.data);
        onChanged();
      }
    } finally {
      setBusy(false);
    }
  }

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!editing) return;
    await act('', { ...editing, url: editing.url.trim(), description: editing.description.trim() }, 'Endpoint saved.', () => setEditing(undefined));
  }

  const disabled = endpoint.disabledAt !== null;
  const field = `admin-webhook-edit-${endpoint.id}`;
  return (
    <li className="admin-driver admin-webhook">
      <div className="admin-driver-summary admin-webhook-summary">
        <p className="admin-driver-name">
          <strong>{endpoint.url}</strong>
        </p>
        {endpoint.description && <p className="admin-webhook-description">{endpoint.description}</p>}
        <p className="admin-driver-meta">
          <span>{endpoint.eventTypes.length === 0 ? 'Every event' : endpoint.eventTypes.join(', ')}</span>
          {endpoint.allowPrivate && <span>Private address allowed</span>}
          {endpoint.previousSecretExpiresAt && <span>The old secret signs too until {formatTime(endpoint.previousSecretExpiresAt)}</span>}
        </p>
        <p className="admin-webhook-state">
          {disabled ? (
            <span className="admin-badge">
              {TURNED_OFF[endpoint.disabledReason ?? ''] ?? 'Turned off by an owner'} · {formatTime(endpoint.disabledAt!)}
            </span>
          ) : (
            <span className="admin-badge is-on">On</span>
          )}
          {endpoint.consecutiveFailures > 0 && (
            <span className="admin-webhook-failing">
              {endpoint.consecutiveFailures === 1 ? '1 failed delivery' : `${endpoint.consecutiveFailures} failed deliveries`} since the last one delivered
            </span>
          )}
        </p>
        {!editing && (
          <div className="admin-actions">
            <button
              type="button"
              className="button button-secondary admin-action"
              disabled={busy}
              onClick={() =>
                void act<WebhookQueued>(
                  '/test',
                  undefined,
                  ({ queued }) => (queued ? 'Test event sent.' : 'The endpoint is off: nothing was sent.'),
                  () => {
                    setOpen(true);
                    void mutate<WebhookDeliveryPage>([webhookPath(endpoint.id, '/deliveries'), session.bearer] satisfies AdminKey);
                  },
                )
              }
            >
              Send test event
            </button>
            <button type="button" className="button button-secondary admin-action" aria-expanded={open} onClick={() => setOpen(!open)}>
              {open ? 'Hide deliveries' : 'Show deliveries'}
            </button>
            <button type="button" className="button button-secondary admin-action" disabled={busy} onClick={() => setEditing(fieldsOf(endpoint))}>
              Edit
            </button>
            <button
              type="button"
              className="button button-secondary admin-action"
              disabled={busy}
              onClick={() => void act('', { enabled: disabled }, disabled ? 'Endpoint turned on.' : 'Endpoint turned off.')}
            >
              {disabled ? 'Turn on' : 'Turn off'}
            </button>
            <button
              type="button"
              className="button button-secondary admin-action"
              disabled={busy}
              onClick={() => {
                if (window.confirm(`Make a new signing secret for ${endpoint.url}? The old one still signs for 24 hours.`))
                  void act<WebhookSecret>('/rotate', undefined, 'New secret made.', onSecret);
              }}
            >
              Rotate secret
            </button>
            <button
              type="button"
              className="button button-secondary admin-action admin-reject"
              disabled={busy}
              onClick={() => {
                if (window.confirm(`Remove ${endpoint.url}? Its deliveries go with it.`)) void act('/remove', undefined, `${endpoint.url} was removed.`);
              }}
            >
              Remove
            </button>
          </div>
        )}
        {editing && (
          <form className="admin-staff-add admin-webhook-form" onSubmit={save} aria-label={`Edit ${endpoint.url}`}>
            <EndpointInputs id={field} fields={editing} eventTypes={eventTypes} onChange={setEditing} />
            <div className="admin-actions">
              <button type="submit" className="button button-primary admin-action" disabled={busy || !editing.url.trim()}>
                Save
              </button>
              <button type="button" className="button button-secondary admin-action" disabled={busy} onClick={() => setEditing(undefined)}>
                Cancel
              </button>
            </div>
          </form>
        )}
      </div>
      {open && (
        <div className="admin-driver-body">
          <Deliveries endpoint={endpoint} session={session} onSettled={onChanged} />
        </div>
      )}
    </li>
  );
}

const NO_FIELDS: EndpointFields = { url: '', eventTypes: [], description: '', allowPrivate: false };

export function WebhooksSection({ session }: { session: AdminSession }) {
  const { data, error, mutate } = useSWR<WebhookEndpointList, RequestError>(['/admin/webhooks', session.bearer] as AdminKey, readAdmin<WebhookEndpointList>, {
    ...READ_ONCE,
    onError: (failed) => checkRefusal(session, failed),
  });
  const [fields, setFields] = useState(NO_FIELDS);
  const [secret, setSecret] = useState<WebhookSecret>();
  const [busy, setBusy] = useState(false);
  const onChanged = useCallback(() => void mutate(), [mutate]);

  async function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    try {
      const result = await request<WebhookSecret>('/admin/webhooks', {
        method: 'POST',
        bearer: session.bearer,
        body: { ...fields, url: fields.url.trim(), description: fields.description.trim() },
      });
      if (told(session, result, 'Endpoint added.') && result.ok) {
        setSecret(result.data);
        setFields(NO_FIELDS);
        void mutate();
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <h2>Webhooks</h2>
      <p className="admin-muted">Signed webhooks tell your systems what happens to drivers, as it happens.</p>
      {secret && <SecretNote url={secret.endpoint.url} secret={secret.secret} onDone={() => setSecret(undefined)} />}
      <ReadFailure error={error} />
      {data && data.endpoints.length === 0 && <p className="admin-empty">No endpoints yet.</p>}
      {data && data.endpoints.length > 0 && (
        <ul className="admin-drivers">
          {data.endpoints.map((endpoint) => (
            <EndpointCard key={endpoint.id} endpoint={endpoint} eventTypes={data.eventTypes} session={session} onChanged={onChanged} onSecret={setSecret} />
          ))}
        </ul>
      )}
      {data && (
        <form className="admin-staff-add admin-webhook-form" onSubmit={add} aria-label="Add an endpoint">
          <h3>Add an endpoint</h3>
          <EndpointInputs id="admin-webhook-new" fields={fields} eventTypes={data.eventTypes} onChange={setFields} />
          <button type="submit" className="button button-primary" disabled={busy || !fields.url.trim()}>
            Add endpoint
          </button>
        </form>
      )}
    </>
  );
}
