/**
 * What the flow file says of its calls, looked up by name: the call, the form step whose answers
 * it sends, the names its values go by (payload key, form field, context name), and the flow's
 * texts in each language.
 */
import { basename } from 'node:path';
import { splitSource, type Call, type Flow, type FormStep } from '../../../shared/flow.js';
import { FLOW_FILE, readTranslations } from '../../../node/projectFiles.js';
import { DEFAULT_LOCALE, localize, type Locale } from '../../../shared/locales.js';

export interface FlowIndex {
  readonly flow: Flow;
  /** The same flow with its texts (messages, toasts) in a language, made once per language. */
  flowIn(locale: Locale): Flow;
  /** The call of the flow file by name; throws (a fault in the code, not the driver's) if the flow lacks it. */
  call(name: string): Call;
  /** The step whose form a call sends, if it sends one (a private step's answers never reach the server). */
  formStepOf(callName: string): { id: string; step: FormStep } | null;
  /** The payload keys of a call that carry files. */
  fileKeysOf(callName: string): Set<string>;
  /** The payload key a form step's file field is sent as, if the step sends one there. */
  fileKeyOf(stepId: string, field: string): string | undefined;
}

/** The names a call's non-form values go by in the context schema (storage.email → "email"), by payload key. */
export function contextNamesOf(call: Call): Map<string, string> {
  const names = new Map<string, string>();
  for (const [key, mapping] of Object.entries(call.payload ?? {})) {
    const { kind, path } = splitSource(mapping.from);
    if (kind === 'storage' || kind === 'context') names.set(key, path.join('.'));
  }
  return names;
}

/** Payload key of a form field, for messages ("zipcode" for the form's zipCode). */
export const payloadKeyOf = (call: Call, field: string) =>
  Object.entries(call.payload ?? {}).find(([, mapping]) => splitSource(mapping.from).path.join('.') === field)?.[0] ?? field;

export function createFlowIndex(flow: Flow): FlowIndex {
  const call = (name: string): Call => {
    const found = Object.hasOwn(flow.calls, name) ? flow.calls[name] : undefined;
    if (!found) throw new Error(`flows/onboarding.flow.json has no call "${name}"`);
    return found;
  };
  const flows = new Map<Locale, Flow>([[DEFAULT_LOCALE, flow]]);
  return {
    flow,
    flowIn(locale) {
      let localized = flows.get(locale);
      if (!localized) {
        localized = localize(flow, readTranslations(locale, basename(FLOW_FILE)), locale);
        flows.set(locale, localized);
      }
      return localized;
    },
    call,
    formStepOf(callName) {
      for (const [id, step] of Object.entries(flow.steps)) if (step.kind === 'form' && step.call === callName && !step.private) return { id, step };
      return null;
    },
    fileKeysOf(callName) {
      const mapping = call(callName).payload ?? {};
      return new Set(Object.keys(mapping).filter((key) => splitSource(mapping[key]!.from).kind === 'file'));
    },
    fileKeyOf(stepId, field) {
      const step = Object.hasOwn(flow.steps, stepId) ? flow.steps[stepId] : undefined;
      const payload = step?.kind === 'form' && !step.private ? (call(step.call).payload ?? {}) : {};
      return Object.keys(payload).find((each) => {
        const { kind, path } = splitSource(payload[each]!.from);
        return kind === 'file' && path.join('.') === field;
      });
    },
  };
}
