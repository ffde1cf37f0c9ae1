/**
 * One driver in the review list: a summary line that opens into everything the driver sent,
 * loaded then (GET /admin/drivers/:id) and drawn from the steps' schemas: each step's answers with
 * their titles, documents as thumbnails, sensitive values masked, and what changed since the last
 * review, and who made each past decision. While the driver waits, the reviewer approves, or
 * rejects with a reason and fixes asked field by field, each with its own reason. Opening a
 * waiting driver claims them for this reviewer (the server does): the others see who has them,
 * and decide once the claim is released or lapses.
 */
import { useRef, useState, type FormEvent, type ReactNode } from 'react';
import { toast } from '../ui/toast.js';
import useSWR from 'swr';
import {
  MAX_REASON_LENGTH,
  type Claim,
  type FixRequest,
  type QueueDriver,
  type ReviewDriver,
  type ReviewedField,
  type ReviewedStep,
} from '../../shared/review.js';
import { request } from '../runtime/api.js';
import type { RequestError } from '../runtime/reads.js';
import { flow } from '../runtime/flow.js';
import { approveDriver, checkRefusal, driverPath, isRefusal, readAdmin, rejectDriver, type AdminSession } from './adminApi.js';
import { answerText, driverName, formatTime, isExpired, providerLabel, submittedTime } from './adminData.js';
import { DocumentThumbnail } from './DocumentGrid.js';

interface DriverCardProps {
  driver: QueueDriver;
  session: AdminSession;
  expanded: boolean;
  onToggle: () => void;
  /** The driver was approved or rejected: it leaves this list. */
  onDecided: (id: string) => void;
  /** Today as YYYY-MM-DD, for the expired-date highlight. */
  today: string;
}

/** What a reviewer asks of a driver whose fields they marked: "Ask for a fix", "Ask for 3 fixes". */
/** What a send with a fix marked but not written says, under the send button and under each such fix. */
const UNEXPLAINED_FIX = 'Please say what to fix in each field you marked.';
const fixesWord = (count: number) => (count === 1 ? 'a fix' : `${count} fixes`);
const askForFixes = (count: number) => `Ask for ${fixesWord(count)}`;

/** Fixes being written, by "step/field": the reason typed so far. */
type FixDrafts = ReadonlyMap<string, string>;
const fixKey = (step: string, field: string) => `${step}/${field}`;

/** A label and its value; an empty value reads as "Not given" rather than a blank. */
function Detail({ label, children }: { label: string; children: ReactNode }) {
  const empty = children === null || children === undefined || children === '';
  return (
    <div className="admin-detail">
      <dt>{label}</dt>
      <dd className={empty ? 'admin-muted' : undefined}>{empty ? 'Not given' : children}</dd>
    </div>
  );
}

interface FieldProps {
  step: ReviewedStep;
  field: ReviewedField;
  session: AdminSession;
  today: string;
  /** The fix being written for this field, or undefined; null when fixes can't be asked (not waiting, not a reviewed step). */
  fix: string | undefined | null;
  onFix: (reason: string | undefined) => void;
  /** The fix is marked, says nothing, and a send was refused for it: its input is the one to fill. */
  unexplained: boolean;
}

/** The input a field's fix is written in. */
const fixInputId = (step: string, field: string) => `admin-fix-${step}-${field}`;

function AnswerField({ step, field, session, today, fix, onFix, unexplained }: FieldProps) {
  const id = fixInputId(step.step, field.field);
  const expired = isExpired(field, today);
  return (
    <div className={field.changed ? 'admin-detail admin-answer is-changed' : 'admin-detail admin-answer'}>
      <dt>{field.title}</dt>
      <dd>
        {field.file ? (
          <DocumentThumbnail url={field.file.url} label={field.title} session={session} />
        ) : (
          <span className={expired ? 'admin-expired' : undefined}>
            {answerText(field.value)}
            {/* Said in words as well as colour, so it is not lost on anyone who can't see the colour. */}
            {expired && ' (expired)'}
          </span>
        )}
        {field.changed && <span className="admin-changed">Changed since the last review{field.kind !== 'file' && `: was ${answerText(field.previous)}`}</span>}
        {field.fix && <span className="admin-fix-asked">Fix asked: {field.fix}</span>}
        {fix !== null && (
          <span className="admin-fix">
            <label className="admin-fix-toggle">
              <input type="checkbox" checked={fix !== undefined} onChange={(event) => onFix(event.target.checked ? '' : undefined)} />
              Needs a fix<span className="visually-hidden">: {field.title}</span>
            </label>
            {fix !== undefined && (
              <>
                <label htmlFor={id} className="visually-hidden">
                  What to fix in {field.title}
                </label>
                <input
                  id={id}
                  className="admin-fix-reason"
                  type="text"
                  maxLength={MAX_REASON_LENGTH}
                  placeholder="What to fix"
                  value={fix}
                  aria-invalid={unexplained || undefined}
                  aria-describedby={unexplained ? `${id}-error` : undefined}
                  onChange={(event) => onFix(event.target.value)}
                />
                {unexplained && (
                  <span id={`${id}-error`} className="field-error">
                    {UNEXPLAINED_FIX}
                  </span>
                )}
              </>
            )}
          </span>
        )}
      </dd>
    </div>
  );
}

/** Approve, or reject with a reason and the fixes asked. Buttons are disabled while a decision is in flight. */
function Decision({
  driver,
  name,
  fixes,
  session,
  onDecided,
  onUnexplained,
}: {
  driver: ReviewDriver;
  name: string;
  fixes: FixRequest[];
  session: AdminSession;
  onDecided: (id: string) => void;
  /** A send refused for a fix marked but not written: that fix's input shows it, and takes the focus. */
  onUnexplained: (fix: FixRequest) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState<string>();
  // Said beside the send button: the fixes' own inputs, not the note, are what is missing.
  const [fixesError, setFixesError] = useState<string>();
  const rejectButton = useRef<HTMLButtonElement>(null);
  const ids = {
    title: `admin-reject-title-${driver.id}`,
    reason: `admin-reason-${driver.id}`,
    counter: `admin-reason-count-${driver.id}`,
    error: `admin-reason-error-${driver.id}`,
  };

  async function decide(send: () => ReturnType<typeof approveDriver>, done: string) {
    setBusy(true);
    try {
      const result = await send();
      if (result.ok) {
        toast.success(done);
        onDecided(driver.id);
      } else if (isRefusal(result.status)) {
        session.refused(result);
      } else {
        toast.error(result.message ?? flow.messages.requestFailed);
      }
    } finally {
      setBusy(false);
    }
  }

  function sendRejection(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const trimmed = reason.trim();
    const unexplained = fixes.find((fix) => !fix.reason.trim());
    if (unexplained) {
      setReasonError(undefined);
      setFixesError(UNEXPLAINED_FIX);
      return onUnexplained(unexplained);
    }
    setFixesError(undefined);
    if (!trimmed && fixes.length === 0) return setReasonError('Please give the reason, or mark the fields to fix, so the driver knows what to change.');
    if (trimmed.length > MAX_REASON_LENGTH) return setReasonError(`Please keep the reason to ${MAX_REASON_LENGTH} characters.`);
    setReasonError(undefined);
    const done = fixes.length > 0 ? `Asked ${name} for ${fixesWord(fixes.length)}.` : 'Driver rejected.';
    void decide(() => rejectDriver(driver, { reason: trimmed, fixes }, session.bearer), done);
  }

  function cancelRejection() {
    setRejecting(false);
    setReasonError(undefined);
    // The form that held focus is gone; give it back to the button that opened it.
    requestAnimationFrame(() => rejectButton.current?.focus());
  }

  return (
    <div className="admin-decision">
      {!rejecting && (
        <div className="admin-actions">
          <button
            type="button"
            className="button button-primary admin-action"
            disabled={busy || fixes.length > 0}
            onClick={() => void decide(() => approveDriver(driver, session.bearer), 'Driver approved.')}
          >
            {busy && <span className="spinner" aria-hidden="true" />}
            Approve<span className="visually-hidden"> {name}</span>
          </button>
          <button
            ref={rejectButton}
            type="button"
            className="button button-secondary admin-action admin-reject"
            disabled={busy}
            onClick={() => setRejecting(true)}
          >
            {fixes.length > 0 ? askForFixes(fixes.length) : 'Reject'}
            <span className="visually-hidden"> {name}</span>
          </button>
        </div>
      )}
      {rejecting && (
        <form className="admin-reject-form" aria-labelledby={ids.title} onSubmit={sendRejection} noValidate>
          <h4 id={ids.title}>{fixes.length > 0 ? askForFixes(fixes.length) : `Reject ${name}`}</h4>
          <label htmlFor={ids.reason}>{fixes.length > 0 ? `A note to ${name} (optional)` : `Reason for rejecting ${name}`}</label>
          <p className="admin-muted admin-hint">
            {fixes.length > 0
              ? `The driver is asked to fix the ${fixes.length === 1 ? 'field' : `${fixes.length} fields`} you marked; a general note is optional.`
              : 'The driver sees this reason; say what to fix.'}
          </p>
          <textarea
            id={ids.reason}
            className="admin-textarea"
            rows={4}
            maxLength={MAX_REASON_LENGTH}
            value={reason}
            autoFocus
            disabled={busy}
            aria-invalid={reasonError ? true : undefined}
            aria-describedby={reasonError ? `${ids.counter} ${ids.error}` : ids.counter}
            onChange={(event) => {
              setReason(event.target.value);
              if (reasonError && event.target.value.trim()) setReasonError(undefined);
            }}
          />
          <p id={ids.counter} className="admin-counter">
            {reason.length}/{MAX_REASON_LENGTH} characters
          </p>
          {reasonError && (
            <p id={ids.error} className="field-error" role="alert">
              {reasonError}
            </p>
          )}
          {fixesError && fixes.some((fix) => !fix.reason.trim()) && (
            <p className="field-error" role="alert">
              {fixesError}
            </p>
          )}
          <div className="admin-actions">
            <button type="submit" className="button button-primary admin-action admin-reject-send" disabled={busy}>
              {busy && <span className="spinner" aria-hidden="true" />}
              {fixes.length > 0 ? askForFixes(fixes.length) : 'Send rejection'}
              <span className="visually-hidden"> of {name}</span>
            </button>
            <button type="button" className="button button-secondary admin-action" disabled={busy} onClick={cancelRejection}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </div>
  );
}

/** Who has a waiting driver: "You are reviewing …" or "Being reviewed by …", until when. */
function ClaimNote({ claim }: { claim: Claim }) {
  const until = formatTime(claim.expiresAt);
  return (
    <span className={claim.byMe ? 'admin-claim is-mine' : 'admin-claim'}>
      {claim.byMe ? `You are reviewing this driver (until ${until})` : `Being reviewed by ${claim.by} (until ${until})`}
    </span>
  );
}

/** Everything the driver sent, loaded when the card opens. */
function DriverDetails({
  summary,
  session,
  onDecided,
  today,
  panelId,
}: Omit<DriverCardProps, 'driver' | 'expanded' | 'onToggle'> & { summary: QueueDriver; panelId: string }) {
  const {
    data: driver,
    error,
    mutate,
  } = useSWR<ReviewDriver, RequestError>([driverPath(summary.id), session.bearer], readAdmin<ReviewDriver>, {
    revalidateOnFocus: false,
    onError: (failed) => checkRefusal(session, failed),
  });
  const [drafts, setDrafts] = useState<FixDrafts>(() => new Map());
  const [fixesRefused, setFixesRefused] = useState(false);
  if (error) {
    return (
      <p className="field-error" role="alert">
        {error.message}
      </p>
    );
  }
  if (!driver) return <p className="admin-muted">Loading…</p>;
  const name = driverName(driver);
  const waiting = driver.status === 'pending' && driver.isSessionComplete;
  const claimedByOther = driver.claim && !driver.claim.byMe;

  async function release() {
    const result = await request(driverPath(driver!.id, 'release'), { method: 'POST', bearer: session.bearer });
    if (!result.ok) session.refused(result);
    else {
      toast.success('Released: another reviewer can take this driver.');
      void mutate({ ...driver!, claim: undefined }, { revalidate: false });
    }
  }
  const fixes: FixRequest[] = [...drafts].map(([key, reason]) => {
    const [step = '', field = ''] = key.split('/');
    return { step, field, reason };
  });
  const setFix = (step: string, field: string, reason: string | undefined) =>
    setDrafts((current) => {
      const next = new Map(current);
      if (reason === undefined) next.delete(fixKey(step, field));
      else next.set(fixKey(step, field), reason);
      return next;
    });

  return (
    <div id={panelId} className="admin-driver-body">
      {!driver.isSessionComplete && <p className="admin-note">This driver has not sent every step for approval yet.</p>}
      {driver.status === 'rejected' && driver.rejectionReason && (
        <p className="admin-note">
          <strong>Rejected:</strong> {driver.rejectionReason}
        </p>
      )}
      {driver.claim && (
        <p className="admin-note">
          <ClaimNote claim={driver.claim} />
          {driver.claim.byMe && (
            <button type="button" className="admin-link-button" onClick={() => void release()}>
              Release
            </button>
          )}
        </p>
      )}
      {driver.decisions.length > 0 && (
        <section className="admin-history" aria-labelledby={`${panelId}-history`}>
          <h4 id={`${panelId}-history`}>Decisions</h4>
          <ul>
            {driver.decisions.map((decision) => (
              <li key={`${decision.at}-${decision.decision}`}>
                {decision.decision === 'approved' ? 'Approved' : 'Rejected'} by {decision.by} on {formatTime(decision.at)}
                {decision.reason && `: ${decision.reason}`}
              </li>
            ))}
          </ul>
        </section>
      )}
      <div className="admin-sections">
        <section className="admin-section" aria-labelledby={`${panelId}-account`}>
          <h4 id={`${panelId}-account`}>Account</h4>
          <dl className="admin-details">
            <Detail label="Email">{driver.email}</Detail>
            <Detail label="Phone">{driver.phone}</Detail>
            <Detail label="Signed up with">{providerLabel(driver.provider)}</Detail>
            <Detail label="Signed up">{formatTime(driver.createdAt)}</Detail>
            {driver.status === 'approved' && <Detail label="Subscription paid">{driver.isSubscriptionPaid ? 'Yes' : 'No'}</Detail>}
          </dl>
        </section>
        {driver.steps.map((step) => (
          <section key={step.step} className="admin-section admin-step" aria-labelledby={`${panelId}-${step.step}`}>
            <h4 id={`${panelId}-${step.step}`}>{step.title}</h4>
            <dl className="admin-details">
              {step.fields.map((field) => (
                <AnswerField
                  key={field.field}
                  step={step}
                  field={field}
                  session={session}
                  today={today}
                  fix={waiting && !claimedByOther && step.reviewed ? drafts.get(fixKey(step.step, field.field)) : null}
                  onFix={(reason) => setFix(step.step, field.field, reason)}
                  unexplained={fixesRefused && drafts.get(fixKey(step.step, field.field))?.trim() === ''}
                />
              ))}
            </dl>
          </section>
        ))}
      </div>
      {waiting && !claimedByOther && (
        <Decision
          driver={driver}
          name={name}
          fixes={fixes}
          session={session}
          onDecided={onDecided}
          onUnexplained={(fix) => {
            setFixesRefused(true);
            document.getElementById(fixInputId(fix.step, fix.field))?.focus();
          }}
        />
      )}
      {waiting && claimedByOther && <p className="admin-muted">You can decide on this driver once they are released or the claim lapses.</p>}
    </div>
  );
}

export function DriverCard({ driver, session, expanded, onToggle, onDecided, today }: DriverCardProps) {
  const name = driverName(driver);
  const submitted = submittedTime(driver);
  const panelId = `admin-driver-${driver.id}`;

  return (
    <li className={expanded ? 'admin-driver is-expanded' : 'admin-driver'}>
      <div className="admin-driver-summary">
        <h3 className="admin-driver-name">
          {/* Its ::after covers the whole summary, so a tap anywhere on the row opens it. */}
          <button type="button" className="admin-driver-toggle" aria-expanded={expanded} aria-controls={panelId} onClick={onToggle}>
            {name}
          </button>
        </h3>
        <p className="admin-driver-meta">
          <span>{driver.email}</span>
          {driver.phone && <span>{driver.phone}</span>}
          <span>
            {submitted.label} <time dateTime={submitted.iso}>{formatTime(submitted.iso)}</time>
          </span>
          {driver.claim && <ClaimNote claim={driver.claim} />}
          {driver.expired && <span className="admin-expired">Document expired: {driver.expired.join(', ')}</span>}
        </p>
      </div>
      {expanded && <DriverDetails summary={driver} session={session} onDecided={onDecided} today={today} panelId={panelId} />}
    </li>
  );
}
