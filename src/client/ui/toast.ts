/**
 * Toasts, shown by ToastArea.tsx (spec §8).
 *
 * The toast library (react-hot-toast and its styling, goober) is loaded when the first page is
 * on the page, not before it: a step drawn by the server shows no toast until then, and its
 * bytes would otherwise share a slow link with the scripts the page's hydration waits for.
 */
import type { ToastOptions } from 'react-hot-toast';
import { preloadable } from './preloadable.js';

/** Where toasts show (ToastArea.tsx), loaded on its own (App.tsx draws it once loaded). */
export const toastArea = preloadable(
  // Through ToastArea.tsx, a module of the app's: the build puts what it shares with the first page (React) in the first page's scripts.
  () => import('./ToastArea.js'),
  (module) => module.ToastArea,
);

const library = () => toastArea.load().then((module) => module.toasts);

/** Calls in the order made: each waits for the library, which is loaded once. */
export const toast = {
  error: (message: string, options?: ToastOptions): void => void library().then((toasts) => toasts.error(message, options)),
  success: (message: string, options?: ToastOptions): void => void library().then((toasts) => toasts.success(message, options)),
  dismiss: (): void => void library().then((toasts) => toasts.dismiss()),
};
