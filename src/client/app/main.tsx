import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import '../../../widgets/widgets.css';
import './app.css';
import { App } from './App.js';
import { appConfig } from '../runtime/config.js';
import { flow, isFormStep } from '../runtime/flow.js';
import { prepareFirstPage } from '../runtime/locale.js';
import { beginOpeningRead, type KeyedRead } from '../runtime/reads.js';
import { draftRead, storedAnswersRead } from '../runtime/stepReads.js';
import { guardRedirect } from '../runtime/stepFlow.js';
import type { FormStep } from '../../shared/flow.js';

/**
 * A form step opened by its address draws once, complete: its page's scripts and form are loaded,
 * and what it reads (its draft; what a signed-in driver sent of a reviewed step) is read, beside
 * the app's scripts rather than after them, before the first render (index.html shows a spinner
 * meanwhile), instead of a spinner page, then the step's spinner, then the form. Nothing to wait
 * for when the address is no form step's, or the step's guard sends the driver elsewhere.
 */
function prepareOpenedStep(): Promise<unknown>[] {
  const opened = Object.entries(flow.steps).find((entry): entry is [string, FormStep] => isFormStep(entry[1]) && entry[1].route === window.location.pathname);
  if (!opened || guardRedirect(opened[1].guards)) return [];
  const [id, step] = opened;
  const reads = [draftRead(id), storedAnswersRead(id)].flatMap((read: KeyedRead<unknown> | null) => (read ? [beginOpeningRead(read)] : []));
  return [...reads, import('../form/StepPage.js').then((page) => page.prepareStepPage(step))];
}

// The flow's texts in the page's language before the first page shows (English needs nothing,
// and stands in when they cannot be loaded); the page shows whatever happened.
void Promise.allSettled([prepareFirstPage(), ...prepareOpenedStep()]).finally(() => {
  const root = document.getElementById('root');
  if (!root) return;
  // In a transition: what a page loads lazily and has loaded already (its page module, its form)
  // is taken as it settles, where a plain first render would commit the Suspense fallback and
  // reveal the page after React's reveal throttle. index.html's spinner stays until then.
  startTransition(() =>
    createRoot(root).render(
      <StrictMode>
        <App />
      </StrictMode>,
    ),
  );
});

// Under `npm run dev` only: its own chunk, which no other page loads.
const { dev } = appConfig();
if (dev) void import('../dev/liveEdits.js').then((module) => module.followLiveEdits(dev.version));
