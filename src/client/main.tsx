import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../../widgets/widgets.css';
import './app.css';
import { App } from './App.js';
import { appConfig } from './config.js';
import { prepareFirstPage } from './locale.js';

// The flow's texts in the page's language before the first page shows (English needs nothing);
// if they cannot be loaded (the network dropped), the page shows in English.
void prepareFirstPage()
  .catch(() => undefined)
  .then(() => {
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
