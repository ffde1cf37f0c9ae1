/** Runtime settings the server writes into the page (src/server/routes/static.ts `appConfigOf`), which the browser reads (src/client/runtime/config.ts). */
export interface AppConfig {
  /** The build the page's scripts come from (a hash of the index.html that names them): what a fault report names. */
  build: string;
  firebase: { apiKey: string; authDomain: string; projectId: string };
  /** The Firebase Auth emulator, used locally instead of Google's servers; null in production. */
  authEmulatorUrl: string | null;
  ipLookupUrl: string;
  payments: { provider: 'stripe'; publishableKey: string } | { provider: 'sandbox'; confirmUrl: string };
  /** The weekly price drivers are shown on /summary. */
  subscriptionPlan: { amountCents: number; currency: string; interval: string };
  /** Under `npm run dev`: the build this page comes from; the page then follows live edits (src/client/dev/liveEdits.tsx). */
  dev: { version: number } | null;
}
