/**
 * A screen that makes its call on opening and goes where the answer says (the flow's `next`
 * rules over `response.*`, each with its own toast and what it clears), or to `onError` when
 * the call fails: the subscription check on /success (spec §4 "Success check").
 */
import { useEffect, useRef } from 'react';
import { toast } from '../ui/toast.js';
import { useLocation } from 'wouter';
import { buildPayload, resolveNextStep, type ScreenStep } from '../../shared/flow.js';
import { callApi } from '../runtime/api.js';
import { callByName, flow, routeOf } from '../runtime/flow.js';
import { applyStore, clearTarget } from '../runtime/storage.js';
import { browserLookup } from '../runtime/stepFlow.js';
import { WaitingScreen } from './parts.js';

export function CallOutcomeScreen({ step }: { step: ScreenStep }) {
  const [, navigate] = useLocation();
  const started = useRef(false);

  useEffect(() => {
    // Once per visit, also under StrictMode's double effects: the call is not free to repeat.
    if (started.current || !step.call) return;
    started.current = true;
    void (async () => {
      const call = callByName(step.call ?? '');
      const result = await callApi(call, buildPayload(call, browserLookup()));
      if (!result.ok) {
        const onError = step.onError;
        toast.error(result.message ?? onError?.fallback ?? flow.messages.requestFailed);
        for (const target of onError?.clear ?? []) clearTarget(target);
        navigate(routeOf(onError?.to ?? flow.start), { replace: true });
        return;
      }
      const lookup = browserLookup({ response: result.data });
      const rule = resolveNextStep(step.next, lookup);
      applyStore(step.store, lookup);
      for (const target of rule?.clear ?? []) clearTarget(target);
      if (rule?.successToast) toast.success(rule.successToast);
      if (rule?.errorToast) toast.error(rule.errorToast);
      navigate(routeOf(rule?.to ?? flow.start), { replace: true, state: rule?.state });
    })();
  }, [navigate, step]);

  return <WaitingScreen text={step.content?.title} />;
}
