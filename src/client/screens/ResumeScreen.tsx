/**
 * The resume link /:id/:token: reads the driver's status with the link's token and takes the
 * driver to the right step by the flow's resume table. The link's token is single-use: the
 * status call exchanges it for a session token (`response.token`). It leaves the address bar
 * at once, so it stays out of the history, screenshots and any Referer.
 */
import { useEffect, useState } from 'react';
import { toast } from '../ui/toast.js';
import useSWR from 'swr';
import { useLocation, useParams } from 'wouter';
import type { ScreenStep } from '../../shared/flow.js';
import { callApi } from '../runtime/api.js';
import { callByName, flow, routeOf } from '../runtime/flow.js';
import { dataOf, READ_ONCE, type RequestError } from '../runtime/reads.js';
import { followResume } from '../runtime/stepFlow.js';
import { WaitingScreen } from './parts.js';

/** What the address bar shows instead of the token. */
const TOKEN_REMOVED = '-';

function decoded(value: string | undefined): string | undefined {
  if (!value || value === TOKEN_REMOVED) return undefined;
  try {
    return decodeURIComponent(value);
  } catch (error) {
    // A link cut or mangled on its way (URIError): no token, which the screen says.
    if (error instanceof URIError) return undefined;
    throw error;
  }
}

const readStatus = ([callName, id, token]: readonly [string, string, string]) =>
  dataOf(callApi(callByName(callName), {}, { id }, token), flow.messages.statusFailed);

export function ResumeScreen({ step }: { step: ScreenStep }) {
  const params = useParams<{ id: string; token: string }>();
  const [, navigate] = useLocation();
  // Read once: the address bar changes below.
  const [link] = useState(() => ({ id: params.id ?? '', token: decoded(params.token) }));
  const valid = Boolean(link.id && link.token && step.call);

  useEffect(() => {
    if (valid) window.history.replaceState(window.history.state, '', `/${encodeURIComponent(link.id)}/${TOKEN_REMOVED}`);
    else navigate(routeOf(flow.start), { replace: true });
  }, [valid, link.id, navigate]);

  // Read once, as the token is spent by it: swr runs these callbacks once per read, not per render.
  useSWR<Record<string, unknown>, RequestError>(valid ? [step.call, link.id, link.token] : null, readStatus, {
    ...READ_ONCE,
    onSuccess: async (answer) => {
      const next = await followResume(answer, link);
      navigate(next.to, { replace: true, state: next.state });
    },
    onError: (failed) => {
      toast.error(failed.message);
      navigate(routeOf(flow.start), { replace: true });
    },
  });

  return <WaitingScreen text={step.content?.title} />;
}
