/**
 * The resume link /:id/:token: reads the driver's status with the link's token and takes the
 * driver to the right step by the flow's resume table. The link's token is single-use: the
 * status call exchanges it for a session token (`response.token`). It leaves the address bar
 * at once, so it stays out of the history, screenshots and any Referer.
 */
import { useEffect, useRef, useState } from 'react';
import toast from 'react-hot-toast';
import { useLocation, useParams } from 'wouter';
import type { ScreenStep } from '../../shared/flow.js';
import { callApi } from '../api.js';
import { callByName, flow, routeOf } from '../flow.js';
import { followResume } from '../stepRuntime.js';
import { WaitingScreen } from './parts.js';

/** What the address bar shows instead of the token. */
const TOKEN_REMOVED = '-';

function decoded(value: string | undefined): string | undefined {
  if (!value || value === TOKEN_REMOVED) return undefined;
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

export function ResumeScreen({ step }: { step: ScreenStep }) {
  const params = useParams<{ id: string; token: string }>();
  const [, navigate] = useLocation();
  // Read once: the address bar changes below.
  const [link] = useState(() => ({ id: params.id ?? '', token: decoded(params.token) }));
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    if (!link.id || !link.token || !step.call) {
      navigate(routeOf(flow.start), { replace: true });
      return;
    }
    window.history.replaceState(window.history.state, '', `/${encodeURIComponent(link.id)}/${TOKEN_REMOVED}`);
    void (async () => {
      const result = await callApi(callByName(step.call ?? ''), {}, { id: link.id }, link.token);
      if (!result.ok) {
        toast.error(result.message ?? flow.messages.statusFailed);
        navigate(routeOf(flow.start), { replace: true });
        return;
      }
      const next = await followResume(result.data, link);
      navigate(next.to, { replace: true, state: next.state });
    })();
  }, [link, navigate, step.call]);

  return <WaitingScreen text={step.content?.title} />;
}
