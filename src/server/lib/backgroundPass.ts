/**
 * The passes a server runs in the background (reminders, expiry notices, notice delivery,
 * sweeps): each every so often, one at a time, a failure logged and left for the next pass
 * (the database away comes back), never keeping the process alive, and the pass in flight
 * finished before the app's other resources close.
 */
import type { FastifyInstance } from 'fastify';

export interface BackgroundPass {
  /** Names the pass in the log line of a failure. */
  name: string;
  intervalMs: number;
  run(): Promise<unknown>;
  /** Runs one pass at once too, beside the server's start. */
  atStart?: boolean;
}

/**
 * Runs `run` every `intervalMs` until the app closes; its onClose hook waits for the pass in flight.
 * Each pass is timed and its failure counted under its name (plugins/metrics.ts), in an app that
 * keeps metrics (a bare Fastify instance in a test keeps none).
 */
export function everyInterval(
  app: Pick<FastifyInstance, 'addHook' | 'log'> & Partial<Pick<FastifyInstance, 'metrics'>>,
  { name, intervalMs, run, atStart = false }: BackgroundPass,
): void {
  const measured = () => (app.metrics ? app.metrics.measurePass(name, run) : run());
  let inFlight: Promise<void> | null = null;
  const pass = () => {
    // A pass slower than the interval is not joined by another: the next tick after it looks again.
    if (inFlight) return;
    inFlight = Promise.resolve()
      .then(measured)
      .then(
        () => undefined,
        (error: unknown) => app.log.warn({ pass: name, error: String(error) }, 'A background pass failed; the next one will try again'),
      )
      .finally(() => {
        inFlight = null;
      });
  };
  const timer = setInterval(pass, intervalMs);
  timer.unref();
  // Fastify runs onClose hooks last-added first: added after the hooks that close what a pass
  // uses (a transport), this one stops the pass before they run.
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await inFlight;
  });
  if (atStart) pass();
}

/** How soon after a change a pass runs for it: long enough for the change's transaction to commit. */
const SOON_MS = 50;

/**
 * `run` soon after a change that gives it work (a notice or an event queued), rather than at the
 * next interval: a pass 50 ms after a change, and one more 50 ms after that pass for the changes
 * made while it waited (their transactions may have committed too late for it); none once the
 * server is closing (from preClose, before any onClose hook closes what a pass uses). `closing`
 * says so to the pass.
 */
export function passSoon(app: Pick<FastifyInstance, 'addHook'>, run: () => Promise<unknown>, failed: (error: unknown) => void) {
  let timer: NodeJS.Timeout | null = null;
  let more = false;
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    if (timer) clearTimeout(timer);
  });
  const soon = () => {
    if (closing) return;
    if (timer) {
      more = true;
      return;
    }
    timer = setTimeout(() => {
      timer = null;
      void run().catch(failed);
      if (more) {
        more = false;
        soon();
      }
    }, SOON_MS);
    timer.unref();
  };
  return {
    soon,
    get closing() {
      return closing;
    },
  };
}
