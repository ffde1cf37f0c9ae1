import type { ScreenStep } from '../../shared/flow.js';
import { Dialog } from '../ui/Dialog.js';
import { Layout } from '../ui/Layout.js';
import { useRideRequestPanel } from '../ui/rideRequestPanel.js';

/** What a new ride request looks like, with an example request in the ride-request panel. */
export function RideRequestScreen({ step }: { step: ScreenStep }) {
  const { open, setOpen } = useRideRequestPanel();
  const { title, message } = step.content ?? {};
  const panel = step.panel;

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
        // The browser's own modal: focus moves in and stays, Escape closes it.
        <Dialog labelledBy="ride-panel-title" className="ride-panel" onCancel={() => setOpen(false)}>
          <h2 id="ride-panel-title">{panel.title}</h2>
          <ul>
            {panel.lines.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
          <button type="button" className="button button-secondary" onClick={() => setOpen(false)} autoFocus>
            {panel.close}
          </button>
        </Dialog>
      )}
    </Layout>
  );
}
