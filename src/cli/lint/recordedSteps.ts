/**
 * The steps stored data names, against the flow. The server stores answers, files, fixes, reminders
 * and progress under a step's name; a step renamed or removed in the flow would orphan them (a
 * driver's answers gone from the review, the step gone from the insights) with nothing to say so.
 *
 * Which names stored data may hold is itself data: flows/recorded-steps.json, committed with the
 * content, lists every name the flow has ever recorded (the steps lib/insights.ts funnelSteps finds:
 * the milestones and the form steps a driver sends). A step the flow records must be listed there,
 * and a listed name must still be a step the flow records, or be declared in the flow's "renamed"
 * (old name → new), which the server carries into the stored data when it starts
 * (lib/stepRenames.ts). The list only grows, so a rename made long ago is still known.
 */
import { funnelSteps } from '../../server/lib/insights.js';
import type { Flow } from '../../shared/flow.js';
import type { JsonObject } from '../../shared/schemaFiles.js';
import { FLOW_FILE } from './flowChecks.js';
import { closest, pointer, suggestion, type Problems } from './problems.js';

export const RECORDED_STEPS_FILE = 'flows/recorded-steps.json';

export function checkRecordedSteps(flow: Flow, listFile: JsonObject, problems: Problems): void {
  const listed = Array.isArray(listFile.steps) ? listFile.steps : undefined;
  if (!listed || listed.some((step) => typeof step !== 'string')) {
    problems.add(RECORDED_STEPS_FILE, pointer('steps'), '"steps" must be a list of step names', 'restore it (git checkout), then add the new steps');
    return;
  }
  const names = listed as string[];
  const recorded = funnelSteps(flow).map(({ step }) => step);
  const renamed = flow.renamed ?? {};

  for (const step of recorded) {
    if (names.includes(step)) continue;
    problems.add(
      RECORDED_STEPS_FILE,
      pointer('steps'),
      `the flow records step "${step}" (drivers' answers or progress are stored under its name), and this list lacks it`,
      `add "${step}" to "steps"`,
    );
  }
  for (const [from, to] of Object.entries(renamed)) {
    if (Object.hasOwn(flow.steps, from)) {
      problems.add(FLOW_FILE, pointer('renamed', from), `"${from}" is renamed, yet it is still a step of "steps"`, 'remove this entry, or rename the step');
    } else if (!recorded.includes(to)) {
      problems.add(
        FLOW_FILE,
        pointer('renamed', from),
        `"${from}" is renamed "${to}", which is no step the flow records, so what drivers sent under "${from}" would be lost`,
        suggestion(to, recorded),
      );
    }
  }
  // The recorded steps the list lacks: the likely new names of a step gone.
  const unlisted = recorded.filter((step) => !names.includes(step));
  for (const step of names) {
    if (recorded.includes(step) || Object.hasOwn(renamed, step)) continue;
    const near = unlisted.length === 1 ? unlisted[0] : closest(step, unlisted);
    const gone = Object.hasOwn(flow.steps, step) ? `step "${step}" no longer records anything` : `step "${step}" is gone`;
    problems.add(
      FLOW_FILE,
      pointer('steps'),
      `${gone}, but drivers' stored answers and progress name it (${RECORDED_STEPS_FILE}): they would be orphaned`,
      `if it was renamed, say so beside "steps": "renamed": { "${step}": "${near ?? '<its new name>'}" } (the server moves what is stored under the old name when it starts); otherwise put it back`,
    );
  }
}
