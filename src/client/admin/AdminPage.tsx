/**
 * The administrator's review page (/admin): the review queue a page at a time, searchable by
 * name, email or phone; each driver opens into everything they sent, and the approve/reject
 * decision. Loaded as its own chunk, so drivers never download it.
 *
 * The admin token is asked for once per tab and kept in sessionStorage (storage.ts); any 401/403
 * forgets it and shows the server's message on the token form again.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { QueuePage, ReviewStatus } from '../../shared/review.js';
import { flow } from '../flow.js';
import { clearAdminToken, getAdminToken, setAdminToken } from '../storage.js';
import { isRefusal, listDrivers, type AdminSession } from './adminApi.js';
import { formatTime, localToday, REVIEW_TABS } from './adminData.js';
import { DriverCard } from './DriverCard.js';
import { TokenForm } from './TokenForm.js';

/** New drivers show up without a reload while a reviewer keeps the Waiting tab open. */
const WAITING_REFRESH_MS = 15_000;

const PAGE_TITLE = 'Driver review · Onramp';
const TOKEN_REFUSED = 'The admin token was not accepted.'; // only if the server gave no message

const LIST_HEADINGS: Record<ReviewStatus, string> = {
  pending: 'Drivers waiting for review',
  approved: 'Approved drivers',
  rejected: 'Rejected drivers',
};

/** The tabs, the list of the chosen tab, and its refreshing. */
function ReviewBoard({ session }: { session: AdminSession }) {
  const [tab, setTab] = useState<ReviewStatus>('pending');
  // Each tab's last list is kept, so switching back shows it at once while it refreshes.
  const [lists, setLists] = useState<Partial<Record<ReviewStatus, QueuePage>>>({});
  const [search, setSearch] = useState('');
  const [searchText, setSearchText] = useState('');
  const [loading, setLoading] = useState(false);
  const [loadError, setLoadError] = useState<string>();
  const [updatedAt, setUpdatedAt] = useState<string>();
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set());
  const latestRequest = useRef(0);
  /** The reviewer opened further pages of the list shown: the refresh would take them away. */
  const morePagesShown = useRef(false);
  const tabButtons = useRef(new Map<ReviewStatus, HTMLButtonElement>());
  const { bearer, refused } = session;

  const tabNow = useRef(tab);
  useEffect(() => {
    tabNow.current = tab;
  }, [tab]);

  /**
   * The first page of a tab (`quiet`: the automatic refresh, which shouldn't flash the spinner
   * every 15 seconds), or the next one (`after`), added below the rows already shown.
   */
  const load = useCallback(
    async (status: ReviewStatus, options: { quiet?: boolean; after?: string } = {}) => {
      // Only the newest request's answer counts: a slow older one (another tab, a refresh that
      // started before a decision) must not put back a list that is already out of date.
      const request = ++latestRequest.current;
      if (!options.quiet) setLoading(true);
      const result = await listDrivers(status, bearer, { search, after: options.after });
      if (request !== latestRequest.current) return;
      setLoading(false);
      if (!result.ok) {
        if (isRefusal(result.status)) refused(result.message);
        else setLoadError(result.message ?? flow.messages.requestFailed);
        return;
      }
      const page = result.data as unknown as QueuePage;
      morePagesShown.current = options.after !== undefined;
      setLoadError(undefined);
      setLists((current) => {
        const shown = options.after ? (current[status]?.drivers ?? []) : [];
        return { ...current, [status]: { drivers: [...shown, ...page.drivers], next: page.next } };
      });
      setUpdatedAt(new Date().toISOString());
    },
    [bearer, refused, search],
  );

  useEffect(() => {
    void load(tab);
    if (tab !== 'pending') return;
    const timer = window.setInterval(() => {
      // A tab in the background doesn't need fresh data; it refreshes on the next tick it's seen.
      // A reviewer who opened more pages keeps them: only the first page refreshes by itself.
      if (document.visibilityState === 'visible' && !morePagesShown.current) void load('pending', { quiet: true });
    }, WAITING_REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [tab, load]);

  // Only waiting drivers can be decided. The reviewer may have switched tabs while it was in
  // flight, so the list shown now is the one reloaded; that also discards any list fetched
  // before the decision. The other tabs reload when they are opened.
  const decided = useCallback(
    (id: string) => {
      setLists((current) => ({
        ...current,
        pending: current.pending && { ...current.pending, drivers: current.pending.drivers.filter((driver) => driver.id !== id) },
      }));
      setExpanded((current) => {
        const next = new Set(current);
        next.delete(id);
        return next;
      });
      void load(tabNow.current, { quiet: true });
    },
    [load],
  );

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
    setTab(next.status);
    tabButtons.current.get(next.status)?.focus();
  }

  const current = REVIEW_TABS.find((item) => item.status === tab) ?? REVIEW_TABS[0];
  const drivers = lists[tab]?.drivers;
  const next = lists[tab]?.next;
  const today = localToday();

  function onSearch(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSearch(searchText.trim());
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
              onClick={() => setTab(item.status)}
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
          <button type="button" className="button button-secondary admin-action" onClick={() => void load(tab)} disabled={loading}>
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
        {loadError && (
          <p className="field-error" role="alert">
            {loadError}
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
          <button type="button" className="button button-secondary admin-action admin-more" disabled={loading} onClick={() => void load(tab, { after: next })}>
            Show more drivers
          </button>
        )}
      </section>
    </>
  );
}

export function AdminPage() {
  // Held in state too, so the page still works for this view when sessionStorage is unavailable.
  const [token, setToken] = useState(() => getAdminToken());
  const [refusal, setRefusal] = useState<string>();

  useEffect(() => {
    const previous = document.title;
    document.title = PAGE_TITLE;
    return () => {
      document.title = previous;
    };
  }, []);

  const refused = useCallback((message?: string) => {
    clearAdminToken();
    setToken(undefined);
    setRefusal(message ?? TOKEN_REFUSED);
  }, []);

  const session = useMemo<AdminSession | undefined>(() => (token ? { bearer: token, refused } : undefined), [token, refused]);

  function open(newToken: string) {
    setAdminToken(newToken);
    setRefusal(undefined);
    setToken(newToken);
  }

  function signOut() {
    clearAdminToken();
    setRefusal(undefined);
    setToken(undefined);
  }

  return (
    <div className="admin-page">
      <header className="admin-header">
        <img src="/assets/logo.svg" alt="Onramp" width={120} height={32} />
        <h1 className="admin-title">Driver review</h1>
        {session && (
          <button type="button" className="admin-link-button admin-sign-out" onClick={signOut}>
            Sign out
          </button>
        )}
      </header>
      <main className="admin-main">
        {session ? (
          <ReviewBoard session={session} />
        ) : (
          <TokenForm heading="Sign in to review drivers" submitText="Open review" refusal={refusal} onOpen={open} />
        )}
      </main>
    </div>
  );
}
