import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../../widgets/widgets.css';
import './app.css';
import { App } from './App.js';
import { appConfig } from './config.js';
import { prepareFirstPage } from './locale.js';

// The flow's texts in the page's language before the first page shows (English needs nothing,
// and stands in when they cannot be loaded); the page shows whatever happened.
void prepareFirstPage()
  .catch(() => undefined)
  .finally(() => {
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
