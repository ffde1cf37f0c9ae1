import { StrictMode, startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { Router } from 'wouter';
import '../../../widgets/widgets.css';
import './app.css';
import { App, stepPage } from './App.js';
import { reportUncaughtFaults } from '../runtime/faults.js';
import { appConfig } from '../runtime/config.js';
import { flow, isFormStep } from '../runtime/flow.js';
import { currentLocale, prepareFirstPage } from '../runtime/locale.js';
import { beginOpeningRead, type KeyedRead } from '../runtime/reads.js';
import { draftRead, storedAnswersRead } from '../runtime/stepReads.js';
import { browserLookup, guardRedirect } from '../runtime/stepFlow.js';
import { getTokenCookie } from '../runtime/storage.js';
import { followTypingIn, serverPage } from '../runtime/serverPage.js';
import { deviceFills } from '../../shared/drawnPage.js';
import { takeSentAwayCookie } from '../runtime/storage.js';
import { toast } from '../ui/toast.js';
import { stepSchemaName, type FormStep } from '../../shared/flow.js';

/**
 * A form step opened by its address draws once, complete: its page's scripts and form are loaded,
 * and what it reads (its draft; what a signed-in driver sent of a reviewed step) is read, beside
 * the app's scripts rather than after them, before the first render (index.html shows a spinner
 * meanwhile), instead of a spinner page, then the step's spinner, then the form. Nothing to wait
 * for when the address is no form step's, or the step's guard sends the driver elsewhere.
 */
function prepareOpenedStep(): { ready: Promise<unknown>[]; holdsMore: () => boolean } {
  const opened = Object.entries(flow.steps).find((entry): entry is [string, FormStep] => isFormStep(entry[1]) && entry[1].route === window.location.pathname);
  if (!opened || guardRedirect(opened[1].guards)) return { ready: [], holdsMore: () => true };
  const [id, step] = opened;
  let draftFound = false;
  const draft = draftRead(id);
  const noted: KeyedRead<unknown> = {
    key: draft.key,
    read: () =>
      draft.read().then((found) => {
        draftFound = found !== undefined;
        return found;
      }),
  };
  const stored = storedAnswersRead(id);
  const reads = [noted, stored].flatMap((read: KeyedRead<unknown> | null) => (read ? [beginOpeningRead(read)] : []));
  return {
    ready: [...reads, stepPage.load().then((page) => page.prepareStepPage(step))],
    holdsMore: () =>
      deviceFills(
        { reviewed: flow.review.steps.includes(id) },
        { draft: draftFound, signedIn: getTokenCookie() !== undefined, otherVariant: stepSchemaName(step, browserLookup()) !== serverPage()?.schema },
      ),
  };
}

/**
 * Whether the page the server drew is the one the browser would draw first, to be hydrated
 * rather than drawn again: the same step in the same language, and nothing of the device's to
 * fill it with (src/shared/drawnPage.ts).
 */
function drawnAsIs(opened: { holdsMore: () => boolean }): boolean {
  const drawn = serverPage();
  return drawn !== null && drawn.route === window.location.pathname && drawn.locale === currentLocale() && !opened.holdsMore();
}

// A fault of our code that no handler catches reaches the server's log, from the first script on.
reportUncaughtFaults();

// The flow's texts in the page's language before the first page shows (English needs nothing,
// and stands in when they cannot be loaded); the page shows whatever happened.
const opened = prepareOpenedStep();
void Promise.allSettled([prepareFirstPage(), ...opened.ready]).finally(() => {
  // A step's guard the server decided sent the visitor here (routes/static.ts): its toast shows on
  // arrival, in the page's language, as when the browser's own guard sends a driver away.
  const sentAwayFrom = takeSentAwayCookie();
  const sentAwayBy = sentAwayFrom === undefined ? undefined : guardRedirect(flow.steps[sentAwayFrom]?.guards);
  if (sentAwayBy?.toast) toast.error(sentAwayBy.toast, { id: sentAwayBy.toast });
  const root = document.getElementById('root');
  if (!root) return;
  const hydrate = drawnAsIs(opened);
  // What the driver typed into the server's drawn form is kept, whether the page is hydrated or
  // drawn again: React would set its inputs back to the values it holds.
  if (serverPage()) followTypingIn(root);
  const app = (
    <StrictMode>
      <Router>
        <App />
      </Router>
    </StrictMode>
  );
  if (hydrate) {
    hydrateRoot(root, app);
    return;
  }
  // In a transition: what a page loads lazily and has loaded already (its page module, its form)
  // is taken as it settles, where a plain first render would commit the Suspense fallback and
  // reveal the page after React's reveal throttle. index.html's spinner (or the server's drawn
  // page) stays until then.
  startTransition(() => createRoot(root).render(app));
});

// Under `npm run dev` only: its own chunk, which no other page loads.
const { dev } = appConfig();
if (dev) void import('../dev/liveEdits.js').then((module) => module.followLiveEdits(dev.version));
