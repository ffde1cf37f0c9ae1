import { lazy, Suspense } from 'react';
import { Toaster } from 'react-hot-toast';
import { Redirect, Route, Switch } from 'wouter';
import { flow, routeOf } from './flow.js';
import { ScreenPage } from './ScreenPage.js';
import { TOASTER_PROPS } from './toast.js';

// The form renderer (rjsf) is the heaviest part; screens that are not forms don't load it.
const StepPage = lazy(() => import('./StepPage.js').then((module) => ({ default: module.StepPage })));

function Loading() {
  return (
    <div className="page-loading" role="status" aria-live="polite">
      <span className="spinner spinner-large" aria-hidden="true" />
    </div>
  );
}

/** Routes built from the flow file: one per step. */
export function App() {
  return (
    <>
      <Toaster {...TOASTER_PROPS} />
      <Suspense fallback={<Loading />}>
        <Switch>
          {Object.entries(flow.steps).map(([id, step]) => (
            <Route key={id} path={step.route}>
              {step.kind === 'form' ? <StepPage key={id} step={step} /> : <ScreenPage key={id} step={step} />}
            </Route>
          ))}
          <Route>
            <Redirect to={routeOf(flow.start)} replace />
          </Route>
        </Switch>
      </Suspense>
    </>
  );
}
