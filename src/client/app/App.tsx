import { lazy, useEffect, useState } from 'react';
import { SWRConfig } from 'swr';
import { Redirect, Route, Switch } from 'wouter';
import { CurrentStep } from '../ui/currentStep.js';
import { PAGE_ROUTES } from '../../shared/review.js';
import { flow, routeOf } from '../runtime/flow.js';
import { useLocale } from '../runtime/locale.js';
import { readPath } from '../runtime/reads.js';
import { RideRequestPanelProvider } from '../ui/rideRequestPanel.js';
import { ScreenPage } from '../screens/ScreenPage.js';
import { toastArea } from '../ui/toast.js';
import { preloadable } from '../ui/preloadable.js';
import { PageSuspense } from '../ui/PageSuspense.js';

/**
 * The form renderer (rjsf) is the heaviest part; screens that are not forms don't load it. A step
 * opened by its address loads it before the first draw (main.tsx), which then hydrates at once.
 */
export const stepPage = preloadable(
  () => import('../form/StepPage.js'),
  (module) => module.StepPage,
);
const StepPage = stepPage.Component;
// Administrators and schema editors only: never part of a driver's download.
const AdminPage = lazy(() => import('../admin/AdminPage.js').then((module) => ({ default: module.AdminPage })));
const StudioPage = lazy(() => import('../studio/StudioPage.js').then((module) => ({ default: module.StudioPage })));
const LaunchPage = lazy(() => import('../screens/LaunchPage.js').then((module) => ({ default: module.LaunchPage })));
const StudioFrame = lazy(() => import('../studio/StudioFrame.js').then((module) => ({ default: module.StudioFrame })));

/**
 * Toasts from the first page on, their code loaded once the app is on the page and drawn once
 * loaded, without Suspense: the server's drawing holds none, so hydration waits for none of it,
 * and no fallback is committed whose reveal React would throttle (~300 ms).
 */
function Toasts() {
  const [loaded, setLoaded] = useState(false);
  useEffect(() => {
    void toastArea.load().then(() => setLoaded(true));
  }, []);
  return loaded ? <toastArea.Component /> : null;
}

/** What a page reads by a path alone (the widgets' lists) is read with the one API client. */
const PAGE_READS = { fetcher: readPath };

export function App() {
  return (
    <SWRConfig value={PAGE_READS}>
      <Pages />
    </SWRConfig>
  );
}

/** Routes built from the flow file: one per step, plus the review page and the form studio. */
function Pages() {
  // A new language draws every page again, with the flow's texts in it (locale.ts).
  useLocale();
  return (
    <RideRequestPanelProvider>
      <Toasts />
      <Switch>
        <Route path={PAGE_ROUTES.admin}>
          <PageSuspense>
            <AdminPage />
          </PageSuspense>
        </Route>
        <Route path={PAGE_ROUTES.launch}>
          <PageSuspense>
            <LaunchPage />
          </PageSuspense>
        </Route>
        <Route path={PAGE_ROUTES.studioFrame}>
          <PageSuspense>
            <StudioFrame />
          </PageSuspense>
        </Route>
        <Route path={PAGE_ROUTES.studio}>
          <PageSuspense>
            <StudioPage />
          </PageSuspense>
        </Route>
        {Object.entries(flow.steps).map(([id, step]) => (
          <Route key={id} path={step.route}>
            <PageSuspense>
              <CurrentStep.Provider value={step}>
                {step.kind === 'form' ? <StepPage key={id} id={id} step={step} /> : <ScreenPage key={id} step={step} />}
              </CurrentStep.Provider>
            </PageSuspense>
          </Route>
        ))}
        <Route>
          <Redirect to={routeOf(flow.start)} replace />
        </Route>
      </Switch>
    </RideRequestPanelProvider>
  );
}
