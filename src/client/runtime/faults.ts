/**
 * The browser app's own faults: a throw in our code (a bug), told apart from what the network or
 * a service causes, is reported to the server's log (POST /client-errors), once per distinct error
 * in a page's life, so a fault in a loop sends one report. What the driver sees is the caller's:
 * a handler that catches still shows its message. The report is made in a chunk of its own
 * (faultReport.ts), loaded only when there is one to send: a first visit carries just this.
 */
const reported = new Set<string>();

/**
 * What throws without being a fault of ours: a script of the app that could not be loaded
 * (offline; each browser says it in its own words), Firebase's answer (its refusal, or no answer),
 * a request that ended unanswered. A network failure of our API comes back as a result
 * (api.ts), never a throw.
 */
const SCRIPT_NOT_LOADED = /dynamically imported module|module script failed/i;
const NOT_OURS = new Set(['FirebaseError', 'AbortError', 'TimeoutError', 'NetworkError']);

const isOwnFault = (error: unknown): error is Error =>
  error instanceof Error && !NOT_OURS.has(error.name) && !(error instanceof TypeError && SCRIPT_NOT_LOADED.test(error.message));

/** Reports `error` if it is a fault of our code and was not reported before. */
export function reportFault(error: unknown): void {
  if (!isOwnFault(error)) return;
  const key = `${error.name}\n${error.message}\n${error.stack ?? ''}`;
  if (reported.has(key)) return;
  reported.add(key);
  // A report that can't be sent (offline) is dropped: the fault shows again on the next visit.
  void import('./faultReport.js').then(({ sendFaultReport }) => sendFaultReport(error)).catch(() => undefined);
}

/** What no handler caught (a throw in an event handler, a promise no one awaited) is reported too. */
export function reportUncaughtFaults(): void {
  window.addEventListener('error', (event) => reportFault(event.error));
  window.addEventListener('unhandledrejection', (event) => reportFault(event.reason));
}
