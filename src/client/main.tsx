import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../../widgets/widgets.css';
import './app.css';
import { App } from './App.js';

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
