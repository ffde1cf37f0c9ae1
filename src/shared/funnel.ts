/**
 * The funnel: the flow's steps whose passing is recorded, in the flow's order (driver_progress,
 * migration 013), each under the title the flow gives it. The insights and reminders read progress
 * by it on the server (lib/insights.ts), and the admin page offers its steps as filters.
 */
import type { Flow } from './flow.js';

export interface FunnelStep {
  step: string;
  label: string;
  /** What progress_steps records its passing under: the fact's name for a milestone (migration 015), else the step's. */
  recordedAs: string;
}

/**
 * The funnel's steps, as the flow has them today: the steps the server records the passing of, so
 * the steps whose stored data names them (flows/recorded-steps.json lists them, for the lint), each
 * under the name the flow gives it for staff (the lint sees that it has one).
 */
export function funnelSteps(flow: Flow): FunnelStep[] {
  const milestones = new Map(Object.entries(flow.milestones).map(([fact, step]) => [step, `driver.${fact}`]));
  return Object.entries(flow.steps).flatMap(([step, definition]) => {
    const recordedAs = milestones.get(step) ?? (definition.kind === 'form' && !definition.private ? step : undefined);
    if (recordedAs === undefined) return [];
    return [{ step, label: definition.title ?? step, recordedAs }];
  });
}
