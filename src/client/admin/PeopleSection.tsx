/**
 * Every driver, for reviewers and owners (GET /admin/people): filtered by the step they are on,
 * their standing, how long they have stalled, how and when they signed up, their language, state
 * and expiring documents; searched by name, exact email or phone, or external id; paged. A
 * driver's page is their timeline (GET /admin/people/:id/timeline) with the reminders still due,
 * each time in the viewer's time zone and relative to now, and what staff can do to them
 * (PeopleActions.tsx). Owners download the list as CSV and act on many drivers at once. The
 * insights' stalled counts open this list with their own filter.
 */
import { useState } from 'react';
import useSWR from 'swr';
import useSWRInfinite from 'swr/infinite';
import type { PeopleDriver, PeoplePage, PeopleStatus, TimelineEvent, TimelinePage } from '../../shared/review.js';
import { funnelSteps } from '../../shared/funnel.js';
import { flow } from '../runtime/flow.js';
import { READ_ONCE, type RequestError } from '../runtime/reads.js';
import { request, type ApiResult } from '../runtime/api.js';
import { checkRefusal, download, isRefusal, readAdmin, type AdminSession } from './adminApi.js';
import { actOn, BulkActions, DriverActions, type BulkTarget } from './PeopleActions.js';
import { formatTime, PENDING_REFRESH_MS } from './adminData.js';
import { ReadFailure } from './ReadFailure.js';

/** The list's filter as the form holds it: each part of GET /admin/people's query, '' for none. */
export interface PeopleFilter {
  step: string;
  status: string;
  stalledDays: string;
  method: string;
  language: string;
  state: string;
  expiringDays: string;
  from: string;
  to: string;
  q: string;
  sort: string;
}

export const NO_FILTER: PeopleFilter = {
  step: '',
  status: '',
  stalledDays: '',
  method: '',
  language: '',
  state: '',
  expiringDays: '',
  from: '',
  to: '',
  q: '',
  sort: 'newest',
};

const STATUS_LABELS: Record<PeopleStatus, string> = {
  signedUp: 'Signed up',
  inProgress: 'In progress',
  waitingReview: 'Waiting for review',
  approved: 'Approved',
  rejected: 'Rejected',
};

const SORT_LABELS = { newest: 'Newest sign-up', oldest: 'Oldest sign-up', recentActivity: 'Latest activity', oldestActivity: 'Oldest activity' } as const;

/** What each kind of event is, before what it says ("Reminder sent about: Add vehicle"). */
const EVENT_LABELS: Record<TimelineEvent['kind'], string> = {
  step: 'Sent the step',
  codeSent: 'Code sent for',
  codeVerified: 'Code verified for',
  notice: 'Notice sent',
  reminder: 'Reminder sent about',
  documentNotice: 'Document notice sent',
  decision: 'Decision',
  staff: 'Staff',
  documentExpiry: 'Document expires',
  reminderDue: 'Reminder due about',
  webhook: 'Webhook event sent',
  note: 'Note',
};

const CHANNEL_WORDS = { email: 'by email', sms: 'by text message' } as const;
const DELIVERY_WORDS = { pending: 'waiting to go', sent: 'delivered', failed: 'failed' } as const;

const REMINDER_WORDS = { on: 'Reminders: on.', paused: 'Reminders: paused by staff.', unsubscribed: 'Reminders: off, at the driver’s request.' } as const;

const relative = new Intl.RelativeTimeFormat('en-US', { numeric: 'auto' });
const UNITS = [
  ['day', 24 * 3600 * 1000],
  ['hour', 3600 * 1000],
  ['minute', 60 * 1000],
] as const;

/** "3 days ago", "in 2 hours", "now". */
export function fromNow(iso: string, now = Date.now()): string {
  const difference = Date.parse(iso) - now;
  for (const [unit, ms] of UNITS) {
    if (Math.abs(difference) >= ms) return relative.format(Math.round(difference / ms), unit);
  }
  return relative.format(0, 'minute');
}

function When({ at }: { at: string }) {
  return (
    <span>
      <time dateTime={at}>{formatTime(at)}</time> <span className="admin-muted">({fromNow(at)})</span>
    </span>
  );
}

const queryOf = (filter: PeopleFilter, after: string | null) =>
  new URLSearchParams([...Object.entries(filter).filter(([, value]) => value.trim() !== ''), ...(after ? [['after', after]] : [])]).toString();

/** The owners' column of ticks, for a bulk action on the drivers ticked. */
const TICK_COLUMN = 'Select';
const COLUMNS = { driver: 'Driver', status: 'Status', stopped: 'Stopped at', signedUp: 'Signed up', actions: 'Actions' } as const;

/** What the page last said of an action: done, or why not. */
function Outcome({ outcome }: { outcome: { ok: boolean; said: string } | null }) {
  if (!outcome) return null;
  return outcome.ok ? (
    <p role="status">{outcome.said}</p>
  ) : (
    <p className="field-error" role="alert">
      {outcome.said}
    </p>
  );
}

function Timeline({ session, driver, onBack }: { session: AdminSession; driver: PeopleDriver; onBack: () => void }) {
  const { data, error, isValidating, mutate } = useSWR<TimelinePage, RequestError>(
    [`/admin/people/${driver.id}/timeline`, session.bearer],
    readAdmin<TimelinePage>,
    {
      ...READ_ONCE,
      // A notice just sent is delivered in the background: looked at again until none is pending.
      refreshInterval: (page) => (page?.events.some((event) => event.delivery === 'pending') ? PENDING_REFRESH_MS : 0),
      onError: (failed) => checkRefusal(session, failed),
    },
  );
  const [outcome, setOutcome] = useState<{ ok: boolean; said: string } | null>(null);
  const [note, setNote] = useState('');
  const done = (result: { ok: boolean; said: string }) => {
    setOutcome(result);
    void mutate();
  };
  const list = (events: TimelineEvent[]) => (
    <ol className="admin-timeline">
      {events.map((event, index) => (
        <li key={`${event.at}/${index}`} data-kind={event.kind}>
          <When at={event.at} /> — {EVENT_LABELS[event.kind]}: {event.label}
          {(event.channel || event.delivery) &&
            ` (${[event.channel && CHANNEL_WORDS[event.channel], event.delivery && DELIVERY_WORDS[event.delivery]].filter(Boolean).join(', ')})`}
          {event.by && <span className="admin-muted"> by {event.by}</span>}
        </li>
      ))}
    </ol>
  );
  return (
    <>
      <button type="button" className="button button-secondary admin-action" onClick={onBack}>
        Back to the list
      </button>
      <h3>{driver.name ?? driver.email}</h3>
      <p>
        {driver.email}
        {driver.phone && ` · ${driver.phone}`} · {STATUS_LABELS[driver.status]}
        {driver.stoppedAt && driver.since && (
          <>
            {' '}
            · stopped at {driver.stoppedAt} since <When at={driver.since} />
          </>
        )}
      </p>
      {isValidating && <p className="admin-muted">Loading…</p>}
      <ReadFailure error={error} />
      {data && (
        <>
          <p>{REMINDER_WORDS[data.reminders]}</p>
          <DriverActions session={session} driver={driver} reminders={data.reminders} onDone={done} />
          <form
            className="admin-note-form"
            onSubmit={async (event) => {
              event.preventDefault();
              const result = await actOn(session, driver.id, { kind: 'note', text: note });
              if (result.ok) setNote('');
              done(result);
            }}
          >
            <label htmlFor="people-note">A note for colleagues</label>
            <textarea id="people-note" className="admin-input" maxLength={2000} value={note} onChange={(event) => setNote(event.target.value)} />
            <div className="admin-actions">
              <button type="submit" className="button button-secondary admin-action" disabled={note.trim() === ''}>
                Add the note
              </button>
            </div>
          </form>
          <Outcome outcome={outcome} />
          <h4>Timeline</h4>
          {list(data.events)}
          <h4>Reminders still due</h4>
          {data.due.length === 0 ? <p className="admin-empty">None.</p> : list(data.due)}
        </>
      )}
    </>
  );
}

export function PeopleSection({ session, initial }: { session: AdminSession; initial: PeopleFilter }) {
  const [filter, setFilter] = useState(initial);
  const [shown, setShown] = useState(initial);
  const [open, setOpen] = useState<PeopleDriver | null>(null);
  const [ticked, setTicked] = useState<ReadonlySet<string>>(new Set());
  const [outcome, setOutcome] = useState<{ ok: boolean; said: string } | null>(null);
  const isOwner = session.me.roles.includes('owner');
  const { data, error, isValidating, size, setSize, mutate } = useSWRInfinite<PeoplePage, RequestError>(
    (index, previous: PeoplePage | null) => (index > 0 && !previous?.next ? null : [`/admin/people?${queryOf(shown, previous?.next ?? null)}`, session.bearer]),
    readAdmin<PeoplePage>,
    { ...READ_ONCE, onError: (failed) => checkRefusal(session, failed) },
  );
  if (open) return <Timeline session={session} driver={open} onBack={() => setOpen(null)} />;
  const show = (next: PeopleFilter) => {
    setShown(next);
    setTicked(new Set());
  };
  async function save() {
    const result = await download(
      `/admin/people/download?${queryOf(shown, null)}`,
      session.bearer,
      `onramp-drivers-${new Date().toISOString().slice(0, 10)}.csv`,
    );
    if (!result.ok && isRefusal(result.status)) session.refused(result);
  }
  /** Every driver the filter matches, page after page, for a bulk action on them all. */
  async function everyId(): Promise<string[]> {
    const ids: string[] = [];
    let after: string | null = null;
    do {
      const page: ApiResult<PeoplePage> = await request<PeoplePage>(`/admin/people?${queryOf(shown, after)}&limit=200`, { bearer: session.bearer });
      if (!page.ok) break;
      ids.push(...page.data.drivers.map((driver) => driver.id));
      after = page.data.next;
    } while (after);
    return ids;
  }
  const total = data?.[0]?.total ?? 0;
  const target: BulkTarget = ticked.size > 0 ? { ids: [...ticked] } : { all: total, readIds: everyId };
  const change = (key: keyof PeopleFilter) => (event: { target: { value: string } }) => setFilter({ ...filter, [key]: event.target.value });
  const drivers = data?.flatMap((page) => page.drivers) ?? [];
  const next = data?.[data.length - 1]?.next;
  const field = (key: keyof PeopleFilter, label: string, input: Record<string, unknown> = {}) => (
    <>
      <label htmlFor={`people-${key}`}>{label}</label>
      <input id={`people-${key}`} className="admin-input" value={filter[key]} onChange={change(key)} {...input} />
    </>
  );
  return (
    <>
      <h2>Drivers</h2>
      <form
        className="admin-audit-filter admin-people-filter"
        onSubmit={(event) => {
          event.preventDefault();
          show(filter);
        }}
      >
        {field('q', 'Name, exact email or phone, or external id', { type: 'search' })}
        <label htmlFor="people-step">Step they are on</label>
        <select id="people-step" className="admin-input" value={filter.step} onChange={change('step')}>
          <option value="">Any</option>
          {funnelSteps(flow)
            .slice(1)
            .map((step) => (
              <option key={step.step} value={step.step}>
                {step.label}
              </option>
            ))}
        </select>
        <label htmlFor="people-status">Status</label>
        <select id="people-status" className="admin-input" value={filter.status} onChange={change('status')}>
          <option value="">Any</option>
          {Object.entries(STATUS_LABELS).map(([status, label]) => (
            <option key={status} value={status}>
              {label}
            </option>
          ))}
        </select>
        {field('stalledDays', 'Stalled for more than (days)', { type: 'number', min: 1, max: 365 })}
        {field('method', 'Sign-up method (password, google.com…)')}
        {field('language', 'Language (en, es…)')}
        {field('state', 'State (CA, NY…)')}
        {field('expiringDays', 'A document expiring within (days)', { type: 'number', min: 0, max: 365 })}
        {field('from', 'Signed up from', { type: 'date' })}
        {field('to', 'Signed up until', { type: 'date' })}
        <label htmlFor="people-sort">Sort by</label>
        <select id="people-sort" className="admin-input" value={filter.sort} onChange={change('sort')}>
          {Object.entries(SORT_LABELS).map(([sort, label]) => (
            <option key={sort} value={sort}>
              {label}
            </option>
          ))}
        </select>
        <div className="admin-actions">
          <button type="submit" className="button button-secondary admin-action">
            Show
          </button>
          {isOwner && (
            <button type="button" className="button button-secondary admin-action" onClick={() => void save()}>
              Download CSV
            </button>
          )}
        </div>
      </form>
      {isValidating && <p className="admin-muted">Loading…</p>}
      <ReadFailure error={error} />
      {data && (
        <p className="admin-people-total">
          {data[0]!.total}
          {data[0]!.totalAtLeast && '+'} {data[0]!.total === 1 && !data[0]!.totalAtLeast ? 'driver' : 'drivers'}
        </p>
      )}
      {isOwner && total > 0 && <BulkActions key={JSON.stringify(shown)} session={session} target={target} onDone={() => void mutate()} />}
      <Outcome outcome={outcome} />
      {drivers.length > 0 && (
        <table className="admin-audit admin-people">
          <thead>
            <tr>
              {isOwner && (
                <th scope="col">
                  <span className="visually-hidden">{TICK_COLUMN}</span>
                </th>
              )}
              {Object.values(COLUMNS).map((label) => (
                <th key={label} scope="col">
                  {label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {drivers.map((driver) => (
              <tr key={driver.id}>
                {isOwner && (
                  <td className="admin-people-tick" data-label={TICK_COLUMN}>
                    <input
                      type="checkbox"
                      aria-label={`Tick ${driver.name ?? driver.email}`}
                      checked={ticked.has(driver.id)}
                      onChange={(event) => {
                        const next = new Set(ticked);
                        if (event.target.checked) next.add(driver.id);
                        else next.delete(driver.id);
                        setTicked(next);
                      }}
                    />
                  </td>
                )}
                <td data-label={COLUMNS.driver}>
                  {/* One value beside the cell's label on a phone, the name and the email in it. */}
                  <span>
                    <button type="button" className="admin-link-button" onClick={() => setOpen(driver)}>
                      {driver.name ?? driver.email}
                    </button>
                    {driver.name && <span className="admin-muted"> {driver.email}</span>}
                  </span>
                </td>
                <td data-label={COLUMNS.status}>{STATUS_LABELS[driver.status]}</td>
                <td data-label={COLUMNS.stopped}>
                  {driver.stoppedAt && driver.since ? (
                    <span>
                      {driver.stoppedAt}, since <When at={driver.since} />
                    </span>
                  ) : (
                    '—'
                  )}
                </td>
                <td data-label={COLUMNS.signedUp}>
                  <When at={driver.signedUpAt} />
                </td>
                <td data-label={COLUMNS.actions}>
                  <details className="admin-row-actions">
                    <summary>Actions</summary>
                    <DriverActions session={session} driver={driver} onDone={setOutcome} />
                  </details>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {next && (
        <button type="button" className="button button-secondary admin-action admin-more" disabled={isValidating} onClick={() => void setSize(size + 1)}>
          Show more drivers
        </button>
      )}
    </>
  );
}
