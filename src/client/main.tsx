import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../../widgets/widgets.css';
import './app.css';
import { App } from './App.js';
import { appConfig } from './config.js';
import { beginReadingDraft } from './drafts.js';
import { flow, isFormStep } from './flow.js';
import { prepareFirstPage } from './locale.js';
import { getItem } from './storage.js';
import type { FormStep } from '../shared/flow.js';

// A form step opened by its address draws once, with its form filled: its page's scripts, its
// form and its draft are loaded before the first render (index.html shows a spinner meanwhile),
// not shown one after the other behind spinners of their own.
const opened = Object.entries(flow.steps).find((entry): entry is [string, FormStep] => isFormStep(entry[1]) && entry[1].route === window.location.pathname);
const openedStep = opened && [beginReadingDraft(getItem('driver_id'), opened[0]), import('./StepPage.js').then((page) => page.prepareStepPage(opened[1]))];

// The flow's texts in the page's language before the first page shows (English needs nothing,
// and stands in when they cannot be loaded); the page shows whatever happened.
void Promise.allSettled([prepareFirstPage(), ...(openedStep ?? [])]).finally(() => {
  const root = document.getElementById('root');
  if (root) {
    createRoot(root).render(
      <StrictMode>
        <App />
      </StrictMode>,
    );
  }
});

// Under `npm run dev` only: its own chunk, which no other page loads.
const { dev } = appConfig();
if (dev) void import('./dev/liveEdits.js').then((module) => module.followLiveEdits(dev.version));
