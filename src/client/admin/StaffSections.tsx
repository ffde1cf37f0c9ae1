/**
 * The admin page's sections beside the review queue, each shown only to the roles it is for (the
 * server refuses the others anyway): the people, their roles and invitations, and the audit record (owners),
 * export and erasure (privacy officers), and a key for the command line (everyone).
 */
import { useState, type FormEvent } from 'react';
import { toast } from '../ui/toast.js';
import useSWR from 'swr';
import useSWRInfinite from 'swr/infinite';
import { AUDIT_ACTIONS, STAFF_ROLES } from '../../shared/generated/staff.js';
import { ROLE_LABELS, type AuditEvent, type AuditPage, type PrivacyLookup, type StaffList, type StaffMember, type StaffRole } from '../../shared/review.js';
import { request, type ApiResult } from '../runtime/api.js';
import { flow } from '../runtime/flow.js';
import { READ_ONCE, type RequestError } from '../runtime/reads.js';
import { checkRefusal, download, driverPath, isRefusal, readAdmin, type AdminKey, type AdminSession } from './adminApi.js';
import { ReadFailure } from './ReadFailure.js';
import { formatTime } from './adminData.js';
import type { KeyCreated } from '../../shared/generated/api.js';

/** A call's answer told as a toast; a refusal handed to the page (sign in again, or why not). Whether it went through. */
export function told(session: AdminSession, result: ApiResult<unknown>, done: string): boolean {
  if (result.ok) {
    toast.success(done);
    return true;
  }
  if (isRefusal(result.status)) session.refused(result);
  else toast.error(result.message ?? flow.messages.requestFailed);
  return false;
}

function RoleChoices({ name, roles, onChange }: { name: string; roles: readonly StaffRole[]; onChange: (roles: StaffRole[]) => void }) {
  return (
    <fieldset className="admin-roles">
      <legend className="visually-hidden">Roles of {name}</legend>
      {STAFF_ROLES.map((role) => (
        <label key={role} className="admin-fix-toggle">
          <input
            type="checkbox"
            checked={roles.includes(role)}
            onChange={(event) => onChange(event.target.checked ? [...roles, role] : roles.filter((each) => each !== role))}
          />
          {ROLE_LABELS[role]}
        </label>
      ))}
    </fieldset>
  );
}

/** Where a person stands: invited (and whether their link still works) or active, with their last sign-in. */
function standing(member: StaffMember, now: number): string {
  if (member.status === 'active') return member.lastSignInAt ? `Active · last signed in ${formatTime(member.lastSignInAt)}` : 'Active · not signed in yet';
  const { invitation } = member;
  if (!invitation) return 'Not invited: send them an invitation to choose a password.';
  if (invitation.revoked) return `Invitation of ${formatTime(invitation.sentAt)} revoked`;
  if (Date.parse(invitation.expiresAt) <= now) return `Invitation expired ${formatTime(invitation.expiresAt)}`;
  return `Invited ${formatTime(invitation.sentAt)} · the link works until ${formatTime(invitation.expiresAt)}`;
}

function StaffRow({ member, session, onChanged }: { member: StaffMember; session: AdminSession; onChanged: () => void }) {
  const [roles, setRoles] = useState<StaffRole[]>(member.roles);
  const [busy, setBusy] = useState(false);
  const changed = roles.length !== member.roles.length || roles.some((role) => !member.roles.includes(role));
  const now = Date.now();
  const invitationWorks = member.invitation && !member.invitation.revoked && Date.parse(member.invitation.expiresAt) > now;

  async function act(path: string, body: Record<string, unknown> | undefined, done: string) {
    setBusy(true);
    try {
      if (told(session, await request(path, { method: 'POST', bearer: session.bearer, body }), done)) onChanged();
    } finally {
      setBusy(false);
    }
  }

  return (
    <li className="admin-driver admin-staff-member">
      <div className="admin-driver-summary">
        <p className="admin-driver-name">{member.email}</p>
        <p className="admin-muted">
          Added by {member.addedBy} on {formatTime(member.addedAt)}
        </p>
        <p className={member.status === 'active' ? 'admin-muted' : 'admin-staff-invited'}>{standing(member, now)}</p>
        {member.failedSignIns > 0 && (
          <p className="admin-staff-failures">
            {member.failedSignIns === 1 ? '1 failed sign-in' : `${member.failedSignIns} failed sign-ins`} in the last 24 hours: see the audit record.
          </p>
        )}
        <RoleChoices name={member.email} roles={roles} onChange={setRoles} />
        <div className="admin-actions">
          <button
            type="button"
            className="button button-secondary admin-action"
            disabled={busy || !changed || roles.length === 0}
            onClick={() => void act(`/admin/staff/${member.id}/roles`, { roles }, `Roles of ${member.email} saved.`)}
          >
            Save roles
          </button>
          {member.status === 'invited' && (
            <button
              type="button"
              className="button button-secondary admin-action"
              disabled={busy}
              onClick={() => void act(`/admin/staff/${member.id}/invitation`, undefined, `A new invitation was sent to ${member.email}.`)}
            >
              {member.invitation ? 'Resend invitation' : 'Send invitation'}
            </button>
          )}
          {invitationWorks && (
            <button
              type="button"
              className="button button-secondary admin-action"
              disabled={busy}
              onClick={() => void act(`/admin/staff/${member.id}/invitation/revoke`, undefined, `The invitation of ${member.email} was revoked.`)}
            >
              Revoke invitation
            </button>
          )}
          <button
            type="button"
            className="button button-secondary admin-action admin-reject"
            disabled={busy}
            onClick={() => {
              if (window.confirm(`Remove ${member.email}? Their sessions and keys end at once.`))
                void act(`/admin/staff/${member.id}/remove`, undefined, `${member.email} was removed.`);
            }}
          >
            Remove
          </button>
        </div>
        {member.keys.length > 0 && (
          <ul className="admin-keys">
            {member.keys.map((key) => (
              <li key={key.id}>
                Key “{key.label}”, made {formatTime(key.createdAt)}, {key.lastUsedAt ? `last used ${formatTime(key.lastUsedAt)}` : 'never used'}{' '}
                <button
                  type="button"
                  className="admin-link-button"
                  disabled={busy}
                  onClick={() => void act(`/admin/keys/${key.id}/revoke`, undefined, `The key “${key.label}” was revoked.`)}
                >
                  Revoke
                  <span className="visually-hidden">
                    {' '}
                    the key {key.label} of {member.email}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
    </li>
  );
}

export function StaffSection({ session }: { session: AdminSession }) {
  const key: AdminKey = ['/admin/staff', session.bearer];
  const { data, error, mutate } = useSWR<StaffList, RequestError>(key, readAdmin<StaffList>, {
    ...READ_ONCE,
    onError: (failed) => checkRefusal(session, failed),
  });
  const [email, setEmail] = useState('');
  const [roles, setRoles] = useState<StaffRole[]>(['reviewer']);
  const [busy, setBusy] = useState(false);

  async function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    try {
      const result = await request('/admin/staff', { method: 'POST', bearer: session.bearer, body: { email: email.trim(), roles } });
      if (told(session, result, `${email.trim()} was added and emailed an invitation to choose a password.`)) {
        setEmail('');
        void mutate();
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <h2>Staff</h2>
      <form className="admin-staff-add" onSubmit={add}>
        <h3>Add a person</h3>
        <label htmlFor="admin-staff-email">Email</label>
        <input id="admin-staff-email" className="admin-input" type="email" required value={email} onChange={(event) => setEmail(event.target.value)} />
        <RoleChoices name="the new person" roles={roles} onChange={setRoles} />
        <button type="submit" className="button button-primary" disabled={busy || !email.trim() || roles.length === 0}>
          Add
        </button>
      </form>
      <ReadFailure error={error} />
      {data && (
        <ul className="admin-drivers">
          {data.staff.map((member) => (
            <StaffRow key={`${member.id}:${member.roles.join()}`} member={member} session={session} onChanged={() => void mutate()} />
          ))}
        </ul>
      )}
    </>
  );
}

/** A row of the audit record as shown: an event, or a run of one person's openings of one driver's documents. */
type AuditRow = AuditEvent & { count: number };

/**
 * The events, newest first, with each run of one person opening one driver's documents in one
 * row: a card shows every document at once, and each opening is its own event. The download keeps
 * every event.
 */
function auditRows(events: readonly AuditEvent[]): AuditRow[] {
  const rows: AuditRow[] = [];
  for (const event of events) {
    const last = rows.at(-1);
    if (last && event.action === 'document.open' && last.action === event.action && last.actor === event.actor && last.driverId === event.driverId)
      last.count += 1;
    else rows.push({ ...event, count: 1 });
  }
  return rows;
}

export function AuditSection({ session }: { session: AdminSession }) {
  const [filter, setFilter] = useState({ action: '', actor: '', driver: '' });
  const [shown, setShown] = useState(filter);
  const query = (extra: Record<string, string>) => {
    const params = new URLSearchParams(Object.entries({ ...shown, ...extra }).filter(([, value]) => value !== ''));
    return params.toString() ? `?${params}` : '';
  };
  const { data, error, setSize } = useSWRInfinite<AuditPage, RequestError>(
    (index, previous: AuditPage | null) =>
      index === 0 ? [`/admin/audit${query({})}`, session.bearer] : previous?.next ? [`/admin/audit${query({ before: previous.next })}`, session.bearer] : null,
    readAdmin<AuditPage>,
    { ...READ_ONCE, dedupingInterval: 0, onError: (failed) => checkRefusal(session, failed) },
  );
  const events = data && auditRows(data.flatMap((page) => page.events));

  async function save(format: 'csv' | 'jsonl') {
    const result = await download(`/admin/audit/download${query({ format })}`, session.bearer, `onramp-audit.${format}`);
    if (!result.ok) told(session, result, '');
  }

  return (
    <>
      <h2>Audit record</h2>
      <form
        className="admin-audit-filter"
        onSubmit={(event) => {
          event.preventDefault();
          setShown({ action: filter.action, actor: filter.actor.trim(), driver: filter.driver.trim() });
        }}
      >
        <label htmlFor="admin-audit-action">What</label>
        <select
          id="admin-audit-action"
          className="admin-input"
          value={filter.action}
          onChange={(event) => setFilter({ ...filter, action: event.target.value })}
        >
          <option value="">Everything</option>
          {AUDIT_ACTIONS.map((action) => (
            <option key={action} value={action}>
              {action}
            </option>
          ))}
        </select>
        <label htmlFor="admin-audit-actor">Who (email)</label>
        <input id="admin-audit-actor" className="admin-input" value={filter.actor} onChange={(event) => setFilter({ ...filter, actor: event.target.value })} />
        <label htmlFor="admin-audit-driver">Driver id</label>
        <input
          id="admin-audit-driver"
          className="admin-input"
          value={filter.driver}
          onChange={(event) => setFilter({ ...filter, driver: event.target.value })}
        />
        <div className="admin-actions">
          <button type="submit" className="button button-secondary admin-action">
            Show
          </button>
          <button type="button" className="button button-secondary admin-action" onClick={() => void save('csv')}>
            Download CSV
          </button>
          <button type="button" className="button button-secondary admin-action" onClick={() => void save('jsonl')}>
            Download JSON lines
          </button>
        </div>
      </form>
      <ReadFailure error={error} />
      {events && events.length === 0 && <p className="admin-empty">Nothing in the record matches.</p>}
      {events && events.length > 0 && (
        <table className="admin-audit">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">What</th>
              <th scope="col">Driver</th>
              <th scope="col">From</th>
            </tr>
          </thead>
          <tbody>
            {events.map((event) => (
              <tr key={event.id}>
                {/* data-label: a phone shows each row as a card, each value under its column's name (app.css). */}
                <td data-label="When">{formatTime(event.at)}</td>
                <td data-label="Who">{event.actor ?? '—'}</td>
                <td data-label="What">
                  {event.action}
                  {event.count > 1 && ` · ${event.count} documents`}
                </td>
                <td data-label="Driver">
                  {event.driverId ? (
                    <span className="admin-audit-driver">
                      {event.driverName}
                      <span className="admin-audit-id">{event.driverId}</span>
                    </span>
                  ) : (
                    '—'
                  )}
                </td>
                <td data-label="From">{event.ip ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {data?.at(-1)?.next && (
        <button type="button" className="button button-secondary admin-action admin-more" onClick={() => void setSize((size) => size + 1)}>
          Show older
        </button>
      )}
    </>
  );
}

export function PrivacySection({ session }: { session: AdminSession }) {
  const [driverId, setDriverId] = useState('');
  const [lookup, setLookup] = useState('');
  const [found, setFound] = useState<PrivacyLookup['drivers'] | null>(null);
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const id = driverId.trim();

  async function exportDriver() {
    setBusy(true);
    try {
      const result = await download(driverPath(id, 'export'), session.bearer, `onramp-driver-${id}.zip`);
      if (!result.ok) told(session, result, '');
      else toast.success('Exported. The file holds the driver’s SSN and documents in clear: hand it to the driver only, then delete it.');
    } finally {
      setBusy(false);
    }
  }

  /** Finds the driver a request is about by their whole email or phone; one found is the one acted on. */
  async function find(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const result = await request<PrivacyLookup>(`/admin/privacy/lookup?${new URLSearchParams({ q: lookup.trim() })}`, { bearer: session.bearer });
    if (!result.ok) {
      told(session, result, '');
      return;
    }
    setFound(result.data.drivers);
    if (result.data.drivers.length === 1) setDriverId(result.data.drivers[0]!.id);
  }

  async function erase(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    try {
      const result = await request(driverPath(id, 'erase'), { method: 'POST', bearer: session.bearer, body: { confirm: confirm.trim() } });
      if (told(session, result, `Driver ${id} was erased. Payment records are kept without the person.`)) setConfirm('');
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <h2>Data requests</h2>
      <p className="admin-muted">Export and erase need a sign-in in the last 5 minutes: you may be asked to sign in again.</p>
      <form className="admin-staff-add" onSubmit={find}>
        <label htmlFor="admin-privacy-lookup">Find the driver by their whole email or phone</label>
        <input id="admin-privacy-lookup" className="admin-input" value={lookup} onChange={(event) => setLookup(event.target.value)} />
        <button type="submit" className="button button-secondary" disabled={!lookup.trim()}>
          Find
        </button>
      </form>
      {found?.length === 0 && <p className="admin-empty">No driver has this email or phone.</p>}
      {found && found.length > 0 && (
        <ul className="admin-privacy-found">
          {found.map((driver) => (
            <li key={driver.id}>
              <button type="button" className="admin-link-button" onClick={() => setDriverId(driver.id)}>
                {driver.name ?? driver.email}
              </button>{' '}
              <span className="admin-muted">
                {driver.email} · signed up {formatTime(driver.signedUpAt)} · id {driver.id}
              </span>
            </li>
          ))}
        </ul>
      )}
      <form className="admin-staff-add" onSubmit={erase}>
        <label htmlFor="admin-privacy-driver">Driver id</label>
        <input id="admin-privacy-driver" className="admin-input" value={driverId} onChange={(event) => setDriverId(event.target.value)} />
        <button type="button" className="button button-secondary" disabled={busy || !id} onClick={() => void exportDriver()}>
          Export their data
        </button>
        <label htmlFor="admin-privacy-confirm">To erase, type the driver’s email</label>
        <input id="admin-privacy-confirm" className="admin-input" type="email" value={confirm} onChange={(event) => setConfirm(event.target.value)} />
        <button type="submit" className="button button-secondary admin-reject" disabled={busy || !id || !confirm.trim()}>
          Erase the driver
        </button>
      </form>
    </>
  );
}

export function KeySection({ session }: { session: AdminSession }) {
  const [label, setLabel] = useState('');
  const [made, setMade] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function make(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    try {
      const result = await request<KeyCreated>('/admin/keys', { method: 'POST', bearer: session.bearer, body: { label: label.trim() } });
      if (told(session, result, 'Key made.') && result.ok) {
        setMade(result.data.key);
        setLabel('');
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <h2>Key for the command line</h2>
      <p className="admin-muted">
        <code>npm run admin</code> and scripts act as you with a key of yours, with your roles. Owners can revoke it.
      </p>
      <form className="admin-staff-add" onSubmit={make}>
        <label htmlFor="admin-key-label">What it is for</label>
        <input id="admin-key-label" className="admin-input" maxLength={100} value={label} onChange={(event) => setLabel(event.target.value)} />
        <button type="submit" className="button button-primary" disabled={busy || !label.trim()}>
          Make a key
        </button>
      </form>
      {made && (
        <div role="status">
          <p>Your key, shown this once:</p>
          <pre className="admin-key">export ONRAMP_STAFF_TOKEN={made}</pre>
        </div>
      )}
    </>
  );
}
