/** The onboarding flow file for the browser, and its step routes. Code navigates by step id. */
import flowFile from '../../../flows/onboarding.flow.json';
import { stageOf, type Flow, type FormStep, type Step } from '../../shared/flow.js';
import { localize, type Locale, type Translations } from '../../shared/locales.js';

// `npm run lint` checks the file against flows/flow.schema.json, whose generated type this is; a
// JSON import's own type only widens its words ("form" to string).
const englishFlow = flowFile as Flow;

/** The flow in the language the page shows (locale.ts switches it): its texts, and the same steps, calls and rules. */
export let flow: Flow = englishFlow;

/** Puts the flow's texts in `locale`, from their translations (none: English). */
export function translateFlow(locale: Locale, translations?: Translations): void {
  flow = localize(englishFlow, translations, locale);
}

export function stepById(id: string): Step {
  const step = flow.steps[id];
  if (!step) throw new Error(`The flow has no step "${id}"`);
  return step;
}

export const routeOf = (id: string): string => stepById(id).route;

/** The stage of the journey a step the page shows belongs to (stageOf), found by its route in the flow as written. */
export const stageOfStep = (step: Step | undefined): number =>
  stageOf(englishFlow, step && Object.values(englishFlow.steps).find((each) => each.route === step.route));

export function callByName(name: string) {
  const call = flow.calls[name];
  if (!call) throw new Error(`The flow has no call "${name}"`);
  return call;
}

export const isFormStep = (step: Step): step is FormStep => step.kind === 'form';
