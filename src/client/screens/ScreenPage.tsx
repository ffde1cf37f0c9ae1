import { useEffect, useMemo } from 'react';
import { toast } from '../ui/toast.js';
import { useLocation } from 'wouter';
import type { ScreenStep } from '../../shared/flow.js';
import { routeOf } from '../runtime/flow.js';
import { isScreenName } from '../../shared/registries.js';
import { screens } from './index.js';
import { clearTarget } from '../runtime/storage.js';
import { guardRedirect } from '../runtime/stepFlow.js';

/** Renders a screen step: its guards, what it clears on entering, then its registered screen. */
export function ScreenPage({ step }: { step: ScreenStep }) {
  const [, navigate] = useLocation();
  const guard = useMemo(() => guardRedirect(step.guards), [step]);

  useEffect(() => {
    if (guard) {
      if (guard.toast) toast.error(guard.toast, { id: guard.toast });
      navigate(routeOf(guard.to), { replace: true });
      return;
    }
    for (const target of step.onEnter?.clear ?? []) clearTarget(target);
  }, [guard, navigate, step]);

  const Screen = isScreenName(step.screen) ? screens[step.screen] : undefined;
  if (guard || !Screen) return null;
  return <Screen step={step} />;
}
