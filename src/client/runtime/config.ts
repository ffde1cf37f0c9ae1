/** Runtime settings the server writes into the page (see the server's static route). */
export interface AppConfig {
  firebase: { apiKey: string; authDomain: string; projectId: string };
  /** The Firebase Auth emulator, used locally instead of Google's servers; null in production. */
  authEmulatorUrl: string | null;
  ipLookupUrl: string;
  payments: { provider: 'stripe'; publishableKey: string } | { provider: 'sandbox'; confirmUrl: string };
  /** The weekly price drivers are shown on /summary. */
  subscriptionPlan: { amountCents: number; currency: string; interval: string };
  /** Under `npm run dev`: the build this page comes from; the page then follows live edits (dev/liveEdits.tsx). */
  dev: { version: number } | null;
}

let cached: AppConfig | undefined;

export function appConfig(): AppConfig {
  if (!cached) {
    const text = document.getElementById('app-config')?.textContent;
    if (!text) throw new Error('The page has no #app-config; it must be served by the Onramp server.');
    cached = JSON.parse(text) as AppConfig;
  }
  return cached;
}
