/**
 * The operator's page (/admin): staff sign in as themselves (Firebase, as drivers do) and see the
 * sections their roles allow: the review queue a page at a time, searchable by name, email or
 * phone, each driver opening into everything they sent and the decision (reviewers); insights on
 * the funnel and the reviews (reviewers and owners); data requests
 * (privacy officers); staff, integrations, webhooks and the audit record (owners); a key for the
 * command line (everyone).
 * Loaded as its own chunk, so drivers never download it.
 *
 * The session token is kept in sessionStorage (storage.ts). When the server ends the session (15
 * idle minutes, 8 hours, a removal) or an action needs a fresh sign-in, the page asks for one in a
 * dialog over itself, so nothing typed is lost; a role not given is told in a toast.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { toast } from '../ui/toast.js';
import useSWR from 'swr';
import useSWRInfinite, { type SWRInfiniteConfiguration } from 'swr/infinite';
import { INVITATION_FRAGMENT, ROLE_LABELS, type QueuePage, type ReviewStatus, type StaffRole, type StaffSession } from '../../shared/review.js';
import { request, type ApiFailure } from '../runtime/api.js';
import { flow } from '../runtime/flow.js';
import { READ_ONCE, type RequestError } from '../runtime/reads.js';
import { clearStaffToken, getStaffToken, setStaffToken } from '../runtime/storage.js';
import { checkRefusal, needsSignIn, queuePath, readAdmin, type AdminKey, type AdminSession } from './adminApi.js';
import { formatTime, localToday, REVIEW_TABS } from './adminData.js';
import { DriverCard } from './DriverCard.js';
import { ExpiringSection } from './ExpiringSection.js';
import { InsightsSection } from './InsightsSection.js';
import { NO_FILTER, PeopleSection, type PeopleFilter } from './PeopleSection.js';
import { StaffInvitationForm, StaffSignInAgain, StaffSignInForm } from './StaffSignIn.js';
import { IntegrationsSection } from './IntegrationsSection.js';
import { AuditSection, KeySection, PrivacySection, StaffSection } from './StaffSections.js';
import { AdminStyles } from './AdminStyles.js';
import { WebhooksSection } from './WebhooksSection.js';

/** New drivers show up without a reload while a reviewer keeps the Waiting tab open and in view. */
const WAITING_REFRESH_MS = 15_000;
const WAITING_REFRESH: SWRInfiniteConfiguration = {
  refreshInterval: WAITING_REFRESH_MS,
  // A tab in the background doesn't need fresh data: it refreshes when it is seen again.
  revalidateOnFocus: true,
  // swr's refresh pauses while the list has an error: a failed refresh is tried again instead.
  shouldRetryOnError: true,
  errorRetryInterval: WAITING_REFRESH_MS,
};

const PAGE_TITLE = 'Driver review · Onramp';
const SESSION_ENDED = 'Your staff session has ended. Please sign in again.'; // only if the server gave no message

const LIST_HEADINGS: Record<ReviewStatus, string> = {
  pending: 'Drivers waiting for review',
  approved: 'Approved drivers',
  rejected: 'Rejected drivers',
};

/** swr's keys of a list's pages: each page after the first starts at the `next` of the one before. */
const pagesOf =
  (status: ReviewStatus, search: string, bearer: string) =>
  (index: number, previous: QueuePage | null): AdminKey | null => {
    if (index === 0) return [queuePath(status, { search }), bearer];
    return previous?.next ? [queuePath(status, { search, after: previous.next }), bearer] : null;
  };

const withoutDriver = (id: string) => (pages?: QueuePage[]) => pages?.map((page) => ({ ...page, drivers: page.drivers.filter((driver) => driver.id !== id) }));

/** The tabs, the list of the chosen tab, and its refreshing. */
function ReviewBoard({ session }: { session: AdminSession }) {
  const [tab, setTab] = useState<ReviewStatus>('pending');
  const [search, setSearch] = useState('');
  const [searchText, setSearchText] = useState('');
  /** A load the reviewer asked for is under way; the automatic refresh shouldn't flash the spinner every 15 seconds. */
  const [asked, setAsked] = useState(true);
  const [updatedAt, setUpdatedAt] = useState<string>();
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set());
  const tabButtons = useRef(new Map<ReviewStatus, HTMLButtonElement>());

  // Each list's pages are kept by swr, so switching back shows them at once while they refresh.
  const {
    data: pages,
    error,
    isValidating,
    setSize,
    mutate,
  } = useSWRInfinite<QueuePage, RequestError>(pagesOf(tab, search, session.bearer), readAdmin<QueuePage>, {
    ...READ_ONCE,
    // A tab opened again reloads, however soon: its answer ends the "Loading…" it shows.
    dedupingInterval: 0,
    ...(tab === 'pending' && WAITING_REFRESH),
    onSuccess: () => {
      setAsked(false);
      setUpdatedAt(new Date().toISOString());
    },
    onError: (failed) => {
      setAsked(false);
      checkRefusal(session, failed);
    },
  });
  const loading = asked && isValidating;

  // A decision may end after the reviewer switched tabs: the list shown then is the one reloaded.
  const shownList = useRef(mutate);
  useEffect(() => {
    shownList.current = mutate;
  }, [mutate]);

  // Only a waiting driver is decided, so the `mutate` of the closure the decision was sent with is
  // the Waiting list's: the driver leaves it at once. The list shown when it ends reloads quietly.
  const decided = useCallback(
    (id: string) => {
      void mutate(withoutDriver(id), { revalidate: false });
      void shownList.current();
      setExpanded((current) => {
        const next = new Set(current);
        next.delete(id);
        return next;
      });
    },
    [mutate],
  );

  function show(status: ReviewStatus) {
    if (status === tab) return;
    setAsked(true);
    setTab(status);
  }

  const toggle = (id: string) =>
    setExpanded((current) => {
      const next = new Set(current);
      if (!next.delete(id)) next.add(id);
      return next;
    });

  // Tabs as the ARIA pattern has them: one tab stop, arrow keys move between tabs.
  function onTabKeyDown(event: KeyboardEvent<HTMLButtonElement>) {
    const index = REVIEW_TABS.findIndex((item) => item.status === tab);
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    let target: number | undefined;
    if (step) target = (index + step + REVIEW_TABS.length) % REVIEW_TABS.length;
    else if (event.key === 'Home') target = 0;
    else if (event.key === 'End') target = REVIEW_TABS.length - 1;
    const next = target === undefined ? undefined : REVIEW_TABS[target];
    if (!next) return;
    event.preventDefault();
    show(next.status);
    tabButtons.current.get(next.status)?.focus();
  }

  const current = REVIEW_TABS.find((item) => item.status === tab) ?? REVIEW_TABS[0];
  const drivers = pages?.flatMap((page) => page.drivers);
  const next = pages?.at(-1)?.next;
  const today = localToday();

  function onSearch(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const searched = searchText.trim();
    if (searched === search) return;
    setAsked(true);
    setSearch(searched);
  }

  // The first page afresh, as when the list opened: the pages opened below it go.
  function refresh() {
    setAsked(true);
    void setSize(1);
  }

  function showMore() {
    setAsked(true);
    void setSize((pages?.length ?? 0) + 1);
  }

  return (
    <>
      <div className="admin-tabs" role="tablist" aria-label="Review status">
        {REVIEW_TABS.map((item) => {
          return (
            <button
              key={item.status}
              ref={(element) => {
                if (element) tabButtons.current.set(item.status, element);
                else tabButtons.current.delete(item.status);
              }}
              type="button"
              role="tab"
              id={`admin-tab-${item.status}`}
              className="admin-tab"
              aria-selected={item.status === tab}
              aria-controls="admin-tabpanel"
              tabIndex={item.status === tab ? 0 : -1}
              onClick={() => show(item.status)}
              onKeyDown={onTabKeyDown}
            >
              {item.label}
            </button>
          );
        })}
      </div>

      <section className="admin-panel" role="tabpanel" id="admin-tabpanel" aria-labelledby={`admin-tab-${tab}`}>
        <div className="admin-panel-head">
          <h2>{LIST_HEADINGS[tab]}</h2>
          <button type="button" className="button button-secondary admin-action" onClick={refresh} disabled={loading}>
            {loading && <span className="spinner" aria-hidden="true" />}
            Refresh
          </button>
        </div>
        <form className="admin-search" role="search" onSubmit={onSearch}>
          <label htmlFor="admin-search-input">Search by name, email or phone</label>
          <input id="admin-search-input" type="search" value={searchText} maxLength={100} onChange={(event) => setSearchText(event.target.value)} />
          <button type="submit" className="button button-secondary admin-action">
            Search
          </button>
        </form>
        {/* Not a live region: it changes every 15 seconds and would keep interrupting a screen reader. */}
        <p className="admin-muted admin-updated">
          {loading ? 'Loading…' : updatedAt ? `Updated ${formatTime(updatedAt)}` : ''}
          {tab === 'pending' && !loading && updatedAt && ' · refreshes every 15 seconds'}
        </p>
        {error && (
          <p className="field-error" role="alert">
            {error.message}
          </p>
        )}

        {drivers && drivers.length === 0 && (
          <p className="admin-empty">{search ? `No ${current?.label.toLowerCase()} drivers match “${search}”.` : current?.empty}</p>
        )}
        {drivers && drivers.length > 0 && (
          <ul className="admin-drivers">
            {drivers.map((driver) => (
              <DriverCard
                key={driver.id}
                driver={driver}
                session={session}
                expanded={expanded.has(driver.id)}
                onToggle={() => toggle(driver.id)}
                onDecided={decided}
                today={today}
              />
            ))}
          </ul>
        )}
        {next && (
          <button type="button" className="button button-secondary admin-action admin-more" disabled={loading} onClick={showMore}>
            Show more drivers
          </button>
        )}
      </section>
    </>
  );
}

/** The page's sections, each for the roles that may use it (null: everyone signed in). */
const SECTIONS: readonly { id: string; label: string; roles: readonly StaffRole[] | null }[] = [
  { id: 'review', label: 'Review', roles: ['reviewer'] },
  { id: 'expiring', label: 'Expiring documents', roles: ['reviewer'] },
  { id: 'people', label: 'Drivers', roles: ['reviewer', 'owner'] },
  { id: 'insights', label: 'Insights', roles: ['reviewer', 'owner'] },
  { id: 'privacy', label: 'Data requests', roles: ['privacy-officer'] },
  { id: 'staff', label: 'Staff', roles: ['owner'] },
  { id: 'integrations', label: 'Integrations', roles: ['owner'] },
  { id: 'webhooks', label: 'Webhooks', roles: ['owner'] },
  { id: 'audit', label: 'Audit record', roles: ['owner'] },
  { id: 'key', label: 'Command line', roles: null },
];

function Sections({ session }: { session: AdminSession }) {
  const allowed = SECTIONS.filter((section) => !section.roles || section.roles.some((role) => session.me.roles.includes(role)));
  const [chosen, setChosen] = useState(allowed[0]!.id);
  // The drivers' list opens with a filter when the insights ask for those they count.
  const [people, setPeople] = useState<{ filter: PeopleFilter; key: number }>({ filter: NO_FILTER, key: 0 });
  const section = allowed.find((each) => each.id === chosen) ?? allowed[0]!;
  return (
    <>
      <nav className="admin-nav" aria-label="Sections">
        {allowed.map((each) => (
          <button
            key={each.id}
            type="button"
            className="admin-tab"
            aria-current={each.id === section.id ? 'page' : undefined}
            onClick={() => setChosen(each.id)}
          >
            {each.label}
          </button>
        ))}
      </nav>
      {section.id === 'review' && <ReviewBoard session={session} />}
      {section.id === 'expiring' && <ExpiringSection session={session} />}
      {section.id === 'people' && <PeopleSection key={people.key} session={session} initial={people.filter} />}
      {section.id === 'insights' && (
        <InsightsSection
          session={session}
          onShowDrivers={(filter) => {
            setPeople({ filter: { ...NO_FILTER, ...filter }, key: people.key + 1 });
            setChosen('people');
          }}
        />
      )}
      {section.id === 'privacy' && <PrivacySection session={session} />}
      {section.id === 'staff' && <StaffSection session={session} />}
      {section.id === 'integrations' && <IntegrationsSection session={session} />}
      {section.id === 'audit' && <AuditSection session={session} />}
      {section.id === 'webhooks' && <WebhooksSection session={session} />}
      {section.id === 'key' && <KeySection session={session} />}
    </>
  );
}

/** The token of the invitation link that opened the page (`#invitation=<token>`), if one did. */
function invitationToken(): string | undefined {
  const [name, token] = window.location.hash.slice(1).split('=');
  return name === INVITATION_FRAGMENT && token ? token : undefined;
}

/** Who a session token belongs to, read once per token (GET /admin/session). */
const readMe = ([path, bearer]: AdminKey) => readAdmin<StaffSession>([path, bearer]);

export function AdminPage() {
  // Held in state too, so the page still works for this view when sessionStorage is unavailable.
  const [token, setToken] = useState(() => getStaffToken());
  /** Why the page asks for a sign-in over itself; undefined when it doesn't. */
  const [asking, setAsking] = useState<string>();
  const [signedOut, setSignedOut] = useState<string>();
  const [invitation, setInvitation] = useState(invitationToken);

  useEffect(() => {
    // The link's token leaves the address bar and the history at once: the page keeps it in memory.
    if (invitation) window.history.replaceState(window.history.state, '', window.location.pathname);
  }, [invitation]);

  useEffect(() => {
    const previous = document.title;
    document.title = PAGE_TITLE;
    return () => {
      document.title = previous;
    };
  }, []);

  const { data: me, mutate: setMe } = useSWR<StaffSession, RequestError>(token ? ['/admin/session', token] : null, readMe, {
    ...READ_ONCE,
    // Signed in again: the page stays as it was while the new token's answer comes.
    keepPreviousData: true,
    // A token from an earlier visit that no longer works: back to the sign-in form, without a dialog.
    onError: (failed) => {
      if (!needsSignIn(failed.failure)) return;
      clearStaffToken();
      setToken(undefined);
    },
  });

  const refused = useCallback((failure: ApiFailure) => {
    if (needsSignIn(failure)) setAsking(failure.message ?? SESSION_ENDED);
    else toast.error(failure.message ?? flow.messages.requestFailed);
  }, []);

  const session = useMemo<AdminSession | undefined>(() => (token && me ? { bearer: token, me, refused } : undefined), [token, me, refused]);

  function signedIn(answer: StaffSession & { token: string }) {
    const { token: newToken, ...who } = answer;
    // Someone else signing in over the page starts it afresh: what the last person was doing is theirs.
    if (me && who.email !== me.email) window.location.reload();
    setStaffToken(newToken);
    setAsking(undefined);
    setSignedOut(undefined);
    setInvitation(undefined);
    void setMe(who, { revalidate: false });
    setToken(newToken);
  }

  async function signOut() {
    if (token) await request('/admin/session/end', { method: 'POST', bearer: token });
    clearStaffToken();
    setToken(undefined);
    setAsking(undefined);
    setSignedOut('You are signed out.');
  }

  return (
    <div className="admin-page">
      <AdminStyles />
      <header className="admin-header">
        <img src="/assets/logo.svg" alt="Onramp" width={120} height={32} />
        <h1 className="admin-title">Driver review</h1>
        {session && (
          <p className="admin-who admin-muted">
            {session.me.email} · {session.me.roles.map((role) => ROLE_LABELS[role]).join(', ')}
          </p>
        )}
        {session && (
          <button type="button" className="admin-link-button admin-sign-out" onClick={() => void signOut()}>
            Sign out
          </button>
        )}
      </header>
      <main className="admin-main">
        {invitation ? (
          <>
            <h2>Choose your password</h2>
            <StaffInvitationForm token={invitation} onSignedIn={signedIn} />
          </>
        ) : session ? (
          <Sections session={session} />
        ) : token ? (
          <div className="page-loading" role="status" aria-live="polite">
            <span className="spinner spinner-large" aria-hidden="true" />
          </div>
        ) : (
          <>
            <h2>Staff sign-in</h2>
            <StaffSignInForm notice={signedOut} onSignedIn={signedIn} />
          </>
        )}
      </main>
      {session && asking !== undefined && (
        <StaffSignInAgain email={session.me.email} notice={asking} onSignedIn={signedIn} onCancel={() => setAsking(undefined)} />
      )}
    </div>
  );
}
