import type { RemoteList } from './useRemoteList';

interface ListStatusProps {
  /** The element id the select points at with `aria-describedby`. */
  id: string;
  list: RemoteList<unknown>;
  retry: () => void;
  loadingText: string;
  errorText: string;
  retryText: string;
  /** Shown when there is nothing to load yet (no state chosen). */
  idleText?: string;
}

/** The line under a remote select: loading, a failed load with its retry button, or the idle hint. */
export function ListStatus({ id, list, retry, loadingText, errorText, retryText, idleText }: ListStatusProps) {
  if (list.status === 'error') {
    return (
      <div id={id} className="w-list-status w-list-status--error" role="alert">
        <span>{errorText}</span>
        <button type="button" className="w-retry" onClick={retry}>
          {retryText}
        </button>
      </div>
    );
  }
  const text = list.status === 'loading' ? loadingText : list.status === 'idle' ? idleText : undefined;
  // Always rendered (empty when ready) so a screen reader hears the loading line as it changes.
  return (
    <p id={id} className="w-hint w-list-status" aria-live="polite">
      {list.status === 'loading' && <span className="w-spinner" aria-hidden="true" />}
      {text}
    </p>
  );
}
