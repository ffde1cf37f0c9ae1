/** Pieces several screens share. */
import { useLocation } from 'wouter';
import type { ScreenAction } from '../../shared/flow.js';
import { routeOf } from '../runtime/flow.js';
import { Layout } from '../ui/Layout.js';

/** The flow's way on from a screen: a button to another step. */
export function ScreenActionButton({ action }: { action: ScreenAction }) {
  const [, navigate] = useLocation();
  return (
    <button type="button" className="button button-primary" onClick={() => navigate(routeOf(action.to))}>
      {action.label}
    </button>
  );
}

/** A screen waiting for its call: a spinner and what it is doing, announced to screen readers. */
export function WaitingScreen({ text }: { text?: string }) {
  return (
    <Layout>
      <section className="message-screen" role="status" aria-live="polite">
        <span className="spinner spinner-large" aria-hidden="true" />
        <p>{text}</p>
      </section>
    </Layout>
  );
}
