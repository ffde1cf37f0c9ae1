/**
 * The approval wait: asks for the driver's status while the screen is open and moves on by
 * itself when an administrator approves (the flow's `poll`); a rejected driver reads why and
 * how to fix it.
 */
import { useEffect } from 'react';
import { toast } from '../ui/toast.js';
import useSWR from 'swr';
import { useLocation } from 'wouter';
import { lookupIn, resolveNextStep, type ScreenStep } from '../../shared/flow.js';
import type { DriverStatus } from '../../shared/review.js';
import { callApi } from '../runtime/api.js';
import { followResume } from '../runtime/stepFlow.js';
import { callByName, flow, routeOf } from '../runtime/flow.js';
import { Layout } from '../ui/Layout.js';
import { dataOf, driverStatusKey, type RequestError } from '../runtime/reads.js';
import { getItem } from '../runtime/storage.js';
import { MessageScreen } from './MessageScreen.js';
import { ScreenActionButton } from './parts.js';

// An answer without data reads as a status not yet known.
async function fetchStatus([, callName, id]: ReturnType<typeof driverStatusKey>): Promise<Partial<DriverStatus>> {
  const answer = await dataOf(callApi<{ data?: DriverStatus }>(callByName(callName), {}, { id }), flow.messages.statusFailed);
  return answer.data ?? {};
}

export function AwaitingApprovalScreen({ step }: { step: ScreenStep }) {
  const [, navigate] = useLocation();
  const driverId = getItem('driver_id');
  const poll = step.poll;
  const { data } = useSWR<Partial<DriverStatus>, RequestError>(poll && driverId ? driverStatusKey(poll.call, driverId) : null, fetchStatus, {
    refreshInterval: poll?.everyMs,
    revalidateOnFocus: true,
    // One toast per message, however often the poll fails.
    onError: (failed) => toast.error(failed.message, { id: failed.message }),
  });

  useEffect(() => {
    if (!data || !poll) return;
    const next = resolveNextStep(poll.next, lookupIn({ status: data }));
    if (next?.to) navigate(routeOf(next.to), { replace: true, state: next.state });
  }, [data, poll, navigate]);

  const rejected = step.rejected;
  if (data?.status === 'rejected' && rejected) {
    return (
      <Layout>
        <section className="message-screen">
          <h1>{rejected.title}</h1>
          {data.fixes?.length && data.nextFix && rejected.fixes ? (
            <>
              {data.rejectionReason && <blockquote className="rejection-reason">{data.rejectionReason}</blockquote>}
              <p>{rejected.fixes.message}</p>
              <ul className="fix-list">
                {data.fixes.map((fix) => (
                  <li key={`${fix.step}/${fix.field}`}>
                    <strong>{fix.title}:</strong> {fix.reason}
                  </li>
                ))}
              </ul>
              {/* By the resume table, as a returning driver: it keeps what the fix steps need (the vehicle's id). */}
              <button
                type="button"
                className="button button-primary"
                onClick={() => void followResume({ data, fixing: true }).then((to) => navigate(to.to, { state: to.state }))}
              >
                {rejected.fixes.action}
              </button>
            </>
          ) : (
            <>
              <p>{rejected.message}</p>
              {data.rejectionReason && <blockquote className="rejection-reason">{data.rejectionReason}</blockquote>}
              <p>{rejected.hint}</p>
              <ScreenActionButton action={rejected.action} />
            </>
          )}
        </section>
      </Layout>
    );
  }
  return <MessageScreen step={step} />;
}
