/**
 * One driver in the review list: a summary line that opens into everything the driver sent
 * (profile, vehicle, every image) and, while the driver waits, the approve and reject decision.
 */
import { useRef, useState, type FormEvent, type ReactNode } from 'react';
import toast from 'react-hot-toast';
import { flow } from '../flow.js';
import { approveDriver, isRefusal, rejectDriver, type AdminSession } from './adminApi.js';
import {
  driverName,
  formatDay,
  formatTime,
  isPastDate,
  providerLabel,
  REJECTION_REASON_MAX,
  submittedTime,
  type AdminDriver,
  type AdminVehicle,
} from './adminData.js';
import { DocumentGrid } from './DocumentGrid.js';

interface DriverCardProps {
  driver: AdminDriver;
  session: AdminSession;
  expanded: boolean;
  onToggle: () => void;
  /** The driver was approved or rejected: it leaves this list. */
  onDecided: (id: string) => void;
  /** Today as YYYY-MM-DD, for the expired-date highlight. */
  today: string;
}

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

function ExpiryDetail({ label, date, today }: { label: string; date: string | null; today: string }) {
  if (!date) return <Detail label={label}>{null}</Detail>;
  const expired = isPastDate(date, today);
  return (
    <Detail label={label}>
      {/* Said in words as well as colour, so it is not lost on anyone who can't see the colour. */}
      <span className={expired ? 'admin-expired' : undefined}>
        {formatDay(date)}
        {expired && ' (expired)'}
      </span>
    </Detail>
  );
}

function VehicleDetails({ vehicle, today }: { vehicle: AdminVehicle; today: string }) {
  return (
    <dl className="admin-details">
      <Detail label="Make">{vehicle.make}</Detail>
      <Detail label="Model">{vehicle.model}</Detail>
      <Detail label="Year">{vehicle.year}</Detail>
      <Detail label="Plate number">{vehicle.plate}</Detail>
      <Detail label="Wheelchair accessible">{vehicle.wheelchair ? 'Yes' : 'No'}</Detail>
      <ExpiryDetail label="Driver license expires" date={vehicle.driverLicenseExpiry} today={today} />
      <ExpiryDetail label="Insurance expires" date={vehicle.insuranceExpiry} today={today} />
      <ExpiryDetail label="Registration expires" date={vehicle.registrationExpiry} today={today} />
    </dl>
  );
}

/** Approve, or reject with a reason the driver will read. Buttons are disabled while a decision is in flight. */
function Decision({ driver, name, session, onDecided }: { driver: AdminDriver; name: string; session: AdminSession; onDecided: (id: string) => void }) {
  const [busy, setBusy] = useState(false);
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState<string>();
  const rejectButton = useRef<HTMLButtonElement>(null);
  const ids = { reason: `admin-reason-${driver.id}`, counter: `admin-reason-count-${driver.id}`, error: `admin-reason-error-${driver.id}` };

  async function decide(send: () => ReturnType<typeof approveDriver>, done: string) {
    setBusy(true);
    try {
      const result = await send();
      if (result.ok) {
        toast.success(done);
        onDecided(driver.id);
      } else if (isRefusal(result.status)) {
        session.refused(result.message);
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
    if (!trimmed) return setReasonError('Please give the reason, so the driver knows what to fix.');
    if (trimmed.length > REJECTION_REASON_MAX) return setReasonError(`Please keep the reason to ${REJECTION_REASON_MAX} characters.`);
    setReasonError(undefined);
    void decide(() => rejectDriver(driver, trimmed, session.bearer), 'Driver rejected.');
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
            disabled={busy}
            onClick={() => void decide(() => approveDriver(driver, session.bearer), 'Driver approved.')}
          >
            {busy && <span className="spinner" aria-hidden="true" />}
            Approve<span className="visually-hidden"> {name}</span>
          </button>
          <button ref={rejectButton} type="button" className="button button-secondary admin-action admin-reject" disabled={busy} onClick={() => setRejecting(true)}>
            Reject<span className="visually-hidden"> {name}</span>
          </button>
        </div>
      )}
      {rejecting && (
        <form className="admin-reject-form" onSubmit={sendRejection} noValidate>
          <label htmlFor={ids.reason}>Reason for rejecting {name}</label>
          <p className="admin-muted admin-hint">The driver sees this reason; say what to fix.</p>
          <textarea
            id={ids.reason}
            className="admin-textarea"
            rows={4}
            required
            maxLength={REJECTION_REASON_MAX}
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
            {reason.length}/{REJECTION_REASON_MAX} characters
          </p>
          {reasonError && (
            <p id={ids.error} className="field-error" role="alert">
              {reasonError}
            </p>
          )}
          <div className="admin-actions">
            <button type="submit" className="button button-primary admin-action admin-reject-send" disabled={busy}>
              {busy && <span className="spinner" aria-hidden="true" />}
              Send rejection<span className="visually-hidden"> of {name}</span>
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

export function DriverCard({ driver, session, expanded, onToggle, onDecided, today }: DriverCardProps) {
  const name = driverName(driver);
  const submitted = submittedTime(driver);
  const profile = driver.profile;
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
        </p>
        {!driver.isSessionComplete && <p className="admin-badge">Still onboarding</p>}
      </div>

      {expanded && (
        <div id={panelId} className="admin-driver-body">
          {!driver.isSessionComplete && <p className="admin-note">This driver has not sent every step for approval yet.</p>}
          {driver.status === 'rejected' && driver.rejectionReason && (
            <p className="admin-note">
              <strong>Rejected:</strong> {driver.rejectionReason}
            </p>
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
                {driver.bank && (
                  <Detail label="Bank account">
                    {driver.bank.accountHolderName}, {driver.bank.accountNumberMasked}, routing {driver.bank.routingNumber}
                  </Detail>
                )}
              </dl>
            </section>

            <section className="admin-section" aria-labelledby={`${panelId}-profile`}>
              <h4 id={`${panelId}-profile`}>Profile</h4>
              {profile ? (
                <dl className="admin-details">
                  <Detail label="First name">{profile.firstName}</Detail>
                  <Detail label="MI">{profile.MI}</Detail>
                  <Detail label="Last name">{profile.lastName}</Detail>
                  <Detail label="Suffix">{profile.suffix}</Detail>
                  <Detail label="Date of birth">{profile.dateOfBirth && formatDay(profile.dateOfBirth)}</Detail>
                  <Detail label="Gender">{profile.gender}</Detail>
                  {/* Only the masked form exists on this page: the server never sends the full SSN. */}
                  <Detail label="SSN">{profile.ssnMasked}</Detail>
                  <Detail label="Driver license number">{profile.driverLicenseNumber}</Detail>
                  <Detail label="Street">{profile.street}</Detail>
                  <Detail label="City">{profile.city}</Detail>
                  <Detail label="State">{profile.state}</Detail>
                  <Detail label="Zip code">{profile.zipCode}</Detail>
                </dl>
              ) : (
                <p className="admin-muted">No profile yet.</p>
              )}
            </section>

            <section className="admin-section" aria-labelledby={`${panelId}-vehicle`}>
              <h4 id={`${panelId}-vehicle`}>Vehicle</h4>
              {driver.vehicle ? <VehicleDetails vehicle={driver.vehicle} today={today} /> : <p className="admin-muted">No vehicle yet.</p>}
            </section>
          </div>

          <section className="admin-section" aria-labelledby={`${panelId}-images`}>
            <h4 id={`${panelId}-images`}>Images</h4>
            <DocumentGrid documents={driver.documents} session={session} driverName={name} />
          </section>

          {driver.status === 'pending' && <Decision driver={driver} name={name} session={session} onDecided={onDecided} />}
        </div>
      )}
    </li>
  );
}
