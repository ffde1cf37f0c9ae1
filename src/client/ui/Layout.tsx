import { memo, useEffect, useState, type ReactNode } from 'react';
import { toast } from './toast.js';
import { useLocation } from 'wouter';
import { useCurrentStep } from './currentStep.js';
import { flow, routeOf, stageOfStep } from '../runtime/flow.js';
import { JourneySteps } from './JourneySteps.js';
import { chooseLocale, useLocale } from '../runtime/locale.js';
import { LOCALES, type Locale } from '../../shared/locales.js';
import { signOut } from '../runtime/session.js';
import { holdsDriverToken } from '../runtime/storage.js';
import { useHydrated } from '../runtime/serverPage.js';
import { reportFault } from '../runtime/faults.js';

/** The address the page's heading was last focused for: none at the first page, which the browser announces itself. */
let focusedFor: string | undefined;
let headingPending = false;

/**
 * After a move to another page of the app, the focus goes to the new page's heading, so a screen
 * reader reads where the driver is (a page that loads in parts gets it once its heading shows).
 */
function useHeadingFocusOnNavigation(): void {
  const [location] = useLocation();
  useEffect(() => {
    if (focusedFor !== location) {
      headingPending = focusedFor !== undefined;
      focusedFor = location;
    }
    const heading = headingPending ? document.querySelector<HTMLElement>('main h1') : null;
    if (!heading) return;
    headingPending = false;
    heading.tabIndex = -1;
    heading.focus();
  });
}

/**
 * The page frame: the product's mark, the way to sign out, the journey strip on a step of the
 * journey (the flow's step `journey`), and one column that reads well on a phone.
 */
export function Layout({ children }: { children: ReactNode }) {
  const [location] = useLocation();
  const locale = useLocale();
  const stage = stageOfStep(useCurrentStep());
  useHeadingFocusOnNavigation();
  return (
    <div className={stage >= 0 ? 'page has-aside' : 'page'}>
      <PageHeader location={location} locale={locale} />
      {stage >= 0 && <JourneyAside stage={stage} locale={locale} />}
      <main className="page-main">{children}</main>
    </div>
  );
}

/**
 * The mark, the languages and the way to sign out, drawn again on each new page (signing in and
 * out move to one) and in each language, not at each key typed in the page's form: reading the
 * token cookie costs a key press time.
 */
const PageHeader = memo(function PageHeader({ locale }: { location: string; locale: Locale }) {
  // The sign-in is the device's: a page the server drew shows the way out once hydrated.
  const hydrated = useHydrated();
  return (
    <header className="page-header">
      <img src="/assets/logo.svg" alt="Onramp" width={120} height={32} />
      <div className="page-header-actions">
        <LanguageSwitch current={locale} />
        {hydrated && holdsDriverToken() && <SignOutButton />}
      </div>
    </header>
  );
});

/** A button for each other language, named in its own words and read out in its own voice (`lang`). */
function LanguageSwitch({ current }: { current: Locale }) {
  const [busy, setBusy] = useState(false);
  return (Object.keys(LOCALES) as Locale[])
    .filter((locale) => locale !== current)
    .map((locale) => (
      <button
        key={locale}
        type="button"
        className="button button-link language-switch"
        lang={locale}
        disabled={busy}
        onClick={() => {
          setBusy(true);
          chooseLocale(locale)
            // Its texts could not be loaded (offline), or our code failed (reported): the page stays in its language, and says so.
            .catch((error: unknown) => {
              reportFault(error);
              toast.error(flow.messages.requestFailed);
            })
            .finally(() => setBusy(false));
        }}
      >
        {LOCALES[locale]}
      </button>
    ));
}

const JourneyAside = memo(function JourneyAside({ stage }: { stage: number; locale: Locale }) {
  return (
    <nav className="page-aside" aria-label={flow.messages.journeyNavigation}>
      <JourneySteps current={stage} />
    </nav>
  );
});

/** Signs out (session.ts), then says so and goes where the flow's `account.signOut` says. */
function SignOutButton() {
  const [, navigate] = useLocation();
  const [busy, setBusy] = useState(false);
  const { toast: signedOut, to, label } = flow.account.signOut;
  const run = async () => {
    setBusy(true);
    await signOut();
    toast.success(signedOut, { id: signedOut });
    navigate(routeOf(to), { replace: true });
  };
  return (
    <button type="button" className="button button-link page-sign-out" onClick={run} disabled={busy} aria-busy={busy}>
      {label}
    </button>
  );
}
