/**
 * What staff do to drivers from the Drivers section: to one driver from their row or their page
 * (POST /admin/people/:id/…: the link back to their step by email or text, a reminder now, their
 * reminders paused or resumed, a note), and to many at once (owners: POST /admin/people/bulk, a
 * part of BULK_PART drivers at a time, with a count to confirm and a progress bar). The server's
 * refusal, when an action can't be done, is what the page says.
 */
import { useState } from 'react';
import type { BulkAnswer, PeopleAction, PeopleDriver } from '../../shared/review.js';
import { request, type ApiResult } from '../runtime/api.js';
import { isRefusal, type AdminSession } from './adminApi.js';

/** Drivers sent a bulk request at a time: the most the server takes (bulkBody). */
const BULK_PART = 50;

/** Each action as a button says it, and what the page says once it is done. */
export const ACTION_WORDS: Record<string, { button: string; done: string }> = {
  'resumeLink:email': { button: 'Email a link back to their step', done: 'A link back to their step was emailed' },
  'resumeLink:sms': { button: 'Text a link back to their step', done: 'A link back to their step was texted' },
  remind: { button: 'Send a reminder now', done: 'A reminder was sent' },
  pauseReminders: { button: 'Pause reminders', done: 'Reminders were paused' },
  resumeReminders: { button: 'Resume reminders', done: 'Reminders were resumed' },
  note: { button: 'Add a note', done: 'The note was added' },
};

const wordsOf = (action: PeopleAction) => ACTION_WORDS[action.kind === 'resumeLink' ? `resumeLink:${action.channel}` : action.kind]!;

/** The call of one action on one driver. */
function pathAndBody(driverId: string, action: PeopleAction): [string, Record<string, unknown> | undefined] {
  const base = `/admin/people/${encodeURIComponent(driverId)}`;
  switch (action.kind) {
    case 'resumeLink':
      return [`${base}/resume-link`, { channel: action.channel }];
    case 'remind':
      return [`${base}/remind`, undefined];
    case 'pauseReminders':
    case 'resumeReminders':
      return [`${base}/reminders`, { paused: action.kind === 'pauseReminders' }];
    case 'note':
      return [`${base}/notes`, { text: action.text }];
  }
}

/** Does `action` to one driver; answers what the page says of it. */
export async function actOn(session: AdminSession, driverId: string, action: PeopleAction): Promise<{ ok: boolean; said: string }> {
  const [path, body] = pathAndBody(driverId, action);
  const result = await request(path, { method: 'POST', bearer: session.bearer, ...(body && { body }) });
  if (!result.ok && isRefusal(result.status)) session.refused(result);
  return result.ok ? { ok: true, said: `${wordsOf(action).done}.` } : { ok: false, said: result.message ?? 'That did not work. Please try again.' };
}

/** The buttons of the actions on one driver; `onDone` hears what happened. */
export function DriverActions({
  session,
  driver,
  reminders,
  onDone,
}: {
  session: AdminSession;
  driver: PeopleDriver;
  /** Whether reminders go to them (the timeline says), for the one of pause and resume that applies; both are offered when unknown. */
  reminders?: 'on' | 'paused' | 'unsubscribed';
  onDone: (outcome: { ok: boolean; said: string }) => void;
}) {
  const [busy, setBusy] = useState(false);
  const actions: PeopleAction[] = [
    { kind: 'resumeLink', channel: 'email' },
    ...(driver.phone ? [{ kind: 'resumeLink', channel: 'sms' } as const] : []),
    { kind: 'remind' },
    ...(reminders === 'on' ? [{ kind: 'pauseReminders' } as const] : reminders === 'paused' ? [{ kind: 'resumeReminders' } as const] : []),
  ];
  return (
    <div className="admin-actions admin-driver-actions">
      {actions.map((action) => (
        <button
          key={wordsOf(action).button}
          type="button"
          className="button button-secondary admin-action"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            onDone(await actOn(session, driver.id, action));
            setBusy(false);
          }}
        >
          {wordsOf(action).button}
        </button>
      ))}
    </div>
  );
}

/** Whom a bulk action is for: the drivers ticked, or every driver the filter matches (read page by page when it runs). */
export type BulkTarget = { ids: string[] } | { all: number; readIds: () => Promise<string[]> };

/** The bulk action's choice, its count to confirm, its progress, and what came of it. */
export function BulkActions({ session, target, onDone }: { session: AdminSession; target: BulkTarget; onDone: () => void }) {
  const [choice, setChoice] = useState('remind');
  const [note, setNote] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [progress, setProgress] = useState<{ done: number; of: number } | null>(null);
  const [outcome, setOutcome] = useState<string | null>(null);
  const count = 'ids' in target ? target.ids.length : target.all;
  const action: PeopleAction =
    choice === 'note'
      ? { kind: 'note', text: note }
      : choice.startsWith('resumeLink:')
        ? { kind: 'resumeLink', channel: choice.endsWith('sms') ? 'sms' : 'email' }
        : { kind: choice as 'remind' | 'pauseReminders' | 'resumeReminders' };

  async function run() {
    setConfirming(false);
    setOutcome(null);
    const ids = 'ids' in target ? target.ids : await target.readIds();
    const refused = new Map<string, number>();
    let done = 0;
    setProgress({ done: 0, of: ids.length });
    for (let start = 0; start < ids.length; ) {
      const part = ids.slice(start, start + BULK_PART);
      const result: ApiResult<BulkAnswer> = await request<BulkAnswer>('/admin/people/bulk', {
        method: 'POST',
        bearer: session.bearer,
        body: { ids: part, action },
      });
      if (!result.ok) {
        // Too many at once: the server says when to carry on; anything else ends the run with its words.
        if (result.status === 429) {
          await new Promise((resolve) => setTimeout(resolve, 10_000));
          continue;
        }
        if (isRefusal(result.status)) session.refused(result);
        setOutcome(`${result.message ?? 'That did not work.'} Done for ${done} of ${ids.length} drivers.`);
        setProgress(null);
        onDone();
        return;
      }
      for (const each of result.data.results) {
        if (each.done) done += 1;
        else refused.set(each.message ?? '', (refused.get(each.message ?? '') ?? 0) + 1);
      }
      start += part.length;
      setProgress({ done: start, of: ids.length });
    }
    setProgress(null);
    const reasons = [...refused].map(([message, n]) => `${message} (${n})`);
    setOutcome(
      `${wordsOf(action).done} for ${done} of ${ids.length} ${ids.length === 1 ? 'driver' : 'drivers'}.${reasons.length > 0 ? ` Not done: ${reasons.join(' ')}` : ''}`,
    );
    onDone();
  }

  return (
    <div className="admin-bulk">
      <label htmlFor="people-bulk-action">
        {'ids' in target
          ? count === 1
            ? 'With the driver ticked'
            : `With the ${count} drivers ticked`
          : count === 1
            ? 'With the driver listed'
            : `With all ${count} drivers listed`}
      </label>
      <select
        id="people-bulk-action"
        className="admin-input"
        value={choice}
        onChange={(event) => {
          setChoice(event.target.value);
          setConfirming(false);
        }}
      >
        {Object.entries(ACTION_WORDS).map(([key, words]) => (
          <option key={key} value={key}>
            {words.button}
          </option>
        ))}
      </select>
      {choice === 'note' && (
        <>
          <label htmlFor="people-bulk-note">Note</label>
          <textarea id="people-bulk-note" className="admin-input" maxLength={2000} value={note} onChange={(event) => setNote(event.target.value)} />
        </>
      )}
      {confirming ? (
        <div className="admin-actions">
          <span>
            {wordsOf(action).button} for {count} {count === 1 ? 'driver' : 'drivers'}?
          </span>
          <button type="button" className="button admin-action" onClick={() => void run()}>
            Confirm
          </button>
          <button type="button" className="button button-secondary admin-action" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <div className="admin-actions">
          <button
            type="button"
            className="button button-secondary admin-action"
            disabled={count === 0 || progress !== null || (choice === 'note' && note.trim() === '')}
            onClick={() => setConfirming(true)}
          >
            Apply…
          </button>
        </div>
      )}
      {progress && (
        <p>
          <label htmlFor="people-bulk-progress">
            {progress.done} of {progress.of} done
          </label>{' '}
          <progress id="people-bulk-progress" max={progress.of} value={progress.done} />
        </p>
      )}
      {outcome && <p role="status">{outcome}</p>}
    </div>
  );
}
