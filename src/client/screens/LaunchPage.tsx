/**
 * The page a launch link opens (/launch#<token>, routes/integrations.ts): it spends the link's
 * token, which came in the fragment (no server, log or Referer saw it) and leaves the address bar
 * at once, then opens the step the server names (the sign-up, or the sign-in for a driver with an
 * account) with the email and phone the integration sent filled in, as a draft of that step.
 * Whoever was signed in on this device before is signed out: the link is for someone else's start.
 */
import { useEffect, useState } from 'react';
import { useLocation } from 'wouter';
import { isLocale } from '../../shared/locales.js';
import { INTEGRATION_PREFIX, INTEGRATION_ROUTES, LAUNCH_PAGE_PATH, type LaunchOpened } from '../../shared/review.js';
import { request } from '../runtime/api.js';
import { saveDraft } from '../runtime/drafts.js';
import { flow, routeOf } from '../runtime/flow.js';
import { chooseLocale } from '../runtime/locale.js';
import { dataOf } from '../runtime/reads.js';
import { signOut } from '../runtime/session.js';
import { holdsDriverToken } from '../runtime/storage.js';
import { toast } from '../ui/toast.js';
import { WaitingScreen } from './parts.js';

async function openLaunchLink(token: string): Promise<string> {
  const opened = await dataOf(request<LaunchOpened>(`${INTEGRATION_PREFIX}${INTEGRATION_ROUTES.launch}`, { method: 'POST', body: { token } }));
  if (holdsDriverToken()) await signOut();
  if (isLocale(opened.locale)) await chooseLocale(opened.locale);
  await saveDraft(undefined, opened.step, { values: opened.values, photos: {} });
  return routeOf(opened.step);
}

export function LaunchPage() {
  const [, navigate] = useLocation();
  // Read once: the address bar changes below.
  const [token] = useState(() => window.location.hash.slice(1));

  useEffect(() => {
    window.history.replaceState(window.history.state, '', LAUNCH_PAGE_PATH);
    if (!token) {
      navigate(routeOf(flow.start), { replace: true });
      return;
    }
    openLaunchLink(token).then(
      (route) => navigate(route, { replace: true }),
      (failed: Error) => {
        toast.error(failed.message);
        navigate(routeOf(flow.start), { replace: true });
      },
    );
  }, [token, navigate]);

  return <WaitingScreen />;
}
