import { useEffect, useRef } from 'react';
import type { ScreenStep } from '../../shared/flow.js';
import { Layout } from '../Layout.js';
import { useRideRequestPanel } from '../rideRequestPanel.js';

/** What a new ride request looks like, with an example request in the ride-request panel. */
export function RideRequestScreen({ step }: { step: ScreenStep }) {
  const { open, setOpen } = useRideRequestPanel();
  const closeButton = useRef<HTMLButtonElement>(null);
  const { title, message } = step.content ?? {};
  const panel = step.panel;

  useEffect(() => {
    if (!open) return;
    closeButton.current?.focus();
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && setOpen(false);
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open, setOpen]);

  return (
    <Layout>
      <section className="message-screen">
        {title && <h1>{title}</h1>}
        {message && <p>{message}</p>}
        {panel && (
          <button type="button" className="button button-primary" onClick={() => setOpen(true)}>
            {panel.open}
          </button>
        )}
      </section>
      {panel && open && (
        <div className="ride-panel" role="dialog" aria-modal="true" aria-labelledby="ride-panel-title">
          <h2 id="ride-panel-title">{panel.title}</h2>
          <ul>
            {panel.lines.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
          <button ref={closeButton} type="button" className="button button-secondary" onClick={() => setOpen(false)}>
            {panel.close}
          </button>
        </div>
      )}
    </Layout>
  );
}
