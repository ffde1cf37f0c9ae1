/**
 * Documents that expire, for reviewers (GET /admin/expiring): the drivers with a document that
 * expires within the days asked, or has expired, the soonest first. A driver who replaces one
 * shows in the review queue's Waiting tab, with only that document changed.
 */
import { useState } from 'react';
import useSWR from 'swr';
import type { ExpiringList } from '../../shared/review.js';
import { READ_ONCE, type RequestError } from '../runtime/reads.js';
import { checkRefusal, readAdmin, type AdminSession } from './adminApi.js';
import { formatDay, REVIEW_TABS } from './adminData.js';
import { ReadFailure } from './ReadFailure.js';

/** The table's columns: its head, and each cell's label on a phone. */
const COLUMNS = { driver: 'Driver', status: 'Status', document: 'Document', expires: 'Expires' } as const;

/** "in 3 days", "today", "expired 2 days ago". */
function left(days: number): string {
  if (days === 0) return 'today';
  if (days > 0) return `in ${days} ${days === 1 ? 'day' : 'days'}`;
  return `expired ${-days} ${days === -1 ? 'day' : 'days'} ago`;
}

export function ExpiringSection({ session }: { session: AdminSession }) {
  const [days, setDays] = useState('30');
  const [shown, setShown] = useState(days);
  const {
    data: list,
    error,
    isValidating,
  } = useSWR<ExpiringList, RequestError>([`/admin/expiring?${new URLSearchParams({ days: shown })}`, session.bearer], readAdmin<ExpiringList>, {
    ...READ_ONCE,
    onError: (failed) => checkRefusal(session, failed),
  });

  return (
    <>
      <h2>Expiring documents</h2>
      <form
        className="admin-audit-filter"
        onSubmit={(event) => {
          event.preventDefault();
          setShown(days);
        }}
      >
        <label htmlFor="expiring-days">Expiring within (days)</label>
        <input id="expiring-days" type="number" min={0} max={365} className="admin-input" value={days} onChange={(event) => setDays(event.target.value)} />
        <div className="admin-actions">
          <button type="submit" className="button button-secondary admin-action">
            Show
          </button>
        </div>
      </form>
      {isValidating && <p className="admin-muted">Loading…</p>}
      <ReadFailure error={error} />
      {list && list.drivers.length === 0 && <p className="admin-empty">No document expires within {list.days} days.</p>}
      {list && list.drivers.length > 0 && (
        <table className="admin-audit admin-expiring">
          <thead>
            <tr>
              {Object.values(COLUMNS).map((label) => (
                <th key={label} scope="col">
                  {label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {list.drivers.flatMap((driver) =>
              driver.documents.map((document) => (
                <tr key={`${driver.id}/${document.field}`}>
                  <td data-label={COLUMNS.driver}>
                    <span>
                      {driver.name && `${driver.name} `}
                      <span className={driver.name ? 'admin-muted' : undefined}>{driver.email}</span>
                    </span>
                  </td>
                  <td data-label={COLUMNS.status}>{REVIEW_TABS.find((tab) => tab.status === driver.status)?.label}</td>
                  <td data-label={COLUMNS.document}>{document.name}</td>
                  <td data-label={COLUMNS.expires} className={document.daysLeft < 0 ? 'admin-expired' : undefined}>
                    <span>
                      <time dateTime={document.expiresOn}>{formatDay(document.expiresOn)}</time> ({left(document.daysLeft)})
                    </span>
                  </td>
                </tr>
              )),
            )}
          </tbody>
        </table>
      )}
    </>
  );
}
