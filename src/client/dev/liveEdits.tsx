/**
 * Loaded only under `npm run dev` (main.tsx imports it when the page's configuration says so):
 * follows the server's live state (GET /dev/events, src/server/plugins/callReader.ts). A newer build
 * reloads the page; a broken edit of schemas/ or flows/ shows its lint problems over the page,
 * which keeps working with the last good version, until the file is fixed or the note dismissed.
 */
import { useRef } from 'react';
import { createRoot } from 'react-dom/client';
import type { LiveState } from '../../shared/liveState.js';
import { Dialog } from '../ui/Dialog.js';

const OVERLAY_CSS = `
/* Only the list scrolls: the heading and the button stay in view. */
.dev-overlay[open] { display: flex; flex-direction: column; }
.dev-overlay { width: min(720px, calc(100vw - 24px)); max-width: none; max-height: calc(100vh - 24px); overflow: hidden; padding: 0; border: 0; border-radius: 12px; box-shadow: 0 12px 40px rgb(16 24 40 / 0.35); color: #101828; font: 15px/1.45 system-ui, sans-serif; }
.dev-overlay::backdrop { background: rgb(16 24 40 / 0.55); }
.dev-overlay-head { padding: 16px 20px 8px; border-top: 6px solid #b00020; }
.dev-overlay h2 { margin: 0 0 4px; font-size: 1.2rem; color: #b00020; }
.dev-overlay-head p { margin: 0; color: #475467; }
.dev-overlay ol { margin: 0; padding: 8px 20px 8px 40px; overflow: auto; min-height: 0; }
.dev-overlay li { padding: 8px 0; border-bottom: 1px solid #eaecf0; font: 0.9rem/1.45 ui-monospace, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
.dev-overlay-foot { padding: 8px 20px 16px; text-align: right; }
.dev-overlay button { min-height: 44px; padding: 8px 20px; border-radius: 10px; border: 1px solid #d0d5dd; background: #fff; font: inherit; font-weight: 600; cursor: pointer; }
.dev-overlay button:focus-visible { outline: 3px solid rgb(20 99 255 / 0.45); outline-offset: 1px; }
`;

/** Over the page as an alert dialog, named and described for screen readers; Escape or Dismiss closes it. */
function ProblemsOverlay({ problems, onDismiss }: { problems: string[]; onDismiss: () => void }) {
  const dismissButton = useRef<HTMLButtonElement>(null);
  return (
    <Dialog
      role="alertdialog"
      labelledBy="dev-overlay-title"
      describedBy="dev-overlay-summary"
      className="dev-overlay"
      onCancel={onDismiss}
      // Not the list, which a long one would make the first focusable element.
      onOpen={() => dismissButton.current?.focus()}
    >
      <style>{OVERLAY_CSS}</style>
      <div className="dev-overlay-head">
        <h2 id="dev-overlay-title">{problems.length === 1 ? 'This edit has a problem' : `This edit has ${problems.length} problems`}</h2>
        <p id="dev-overlay-summary">It was not applied: the app keeps running the last good version. Fix the file and save; the page reloads by itself.</p>
      </div>
      <ol aria-label="Problems">
        {problems.map((problem, index) => (
          <li key={index}>{problem}</li>
        ))}
      </ol>
      <div className="dev-overlay-foot">
        <button ref={dismissButton} type="button" onClick={onDismiss}>
          Dismiss
        </button>
      </div>
    </Dialog>
  );
}

export function followLiveEdits(pageVersion: number): void {
  const host = document.createElement('div');
  document.body.append(host);
  const root = createRoot(host);
  // Problems the developer dismissed stay dismissed when the stream reconnects and repeats them.
  let dismissed = '';
  const events = new EventSource('/dev/events');
  events.onmessage = (event: MessageEvent<string>) => {
    const state = JSON.parse(event.data) as LiveState;
    if (state.version !== pageVersion) {
      window.location.reload();
      return;
    }
    const key = JSON.stringify(state.problems);
    if (state.problems.length === 0 || key === dismissed) {
      root.render(null);
      return;
    }
    const dismiss = () => {
      dismissed = key;
      root.render(null);
    };
    // Keyed by the problems, so a new set opens as a new dialog.
    root.render(<ProblemsOverlay key={key} problems={state.problems} onDismiss={dismiss} />);
  };
}
