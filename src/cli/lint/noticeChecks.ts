/**
 * flows/notices.json beyond its shape: every `{placeholder}` is one the server fills for that
 * message (src/shared/notices.ts), and the values a message exists to give (a code, a reason)
 * are in every one of its texts; the reminders name steps of the flow, in an order that can be kept;
 * the documents that expire name fields of the flow's steps.
 */
import { FIX_REASON_VALUE, NOTICE_NAMES, NOTICE_VALUES, type NoticeName, REQUIRED_VALUES, STAFF_NOTICES } from '../../shared/notices.js';
import type { Flow } from '../../shared/flow.js';
import { placeholdersIn } from '../../shared/placeholders.js';
import { isObject, type JsonObject } from '../../shared/schemaFiles.js';
import { closest, placeholderFix, pointer, type Problems } from './problems.js';

export const NOTICES_FILE = 'flows/notices.json';

export function checkNotices(notices: JsonObject, problems: Problems): void {
  for (const name of NOTICE_NAMES) {
    const notice = notices[name];
    if (!isObject(notice)) continue;
    const offered: readonly string[] = NOTICE_VALUES[name];
    const readers = (STAFF_NOTICES as readonly NoticeName[]).includes(name) ? 'staff members' : 'drivers';
    for (const [channel, words] of Object.entries(notice)) {
      const required: readonly string[] = (REQUIRED_VALUES[name] as Record<string, readonly string[]> | undefined)?.[channel] ?? [];
      if (!isObject(words)) continue;
      for (const [part, text] of Object.entries(words)) {
        if (typeof text !== 'string') continue;
        for (const placeholder of placeholdersIn(text)) {
          if (offered.includes(placeholder)) continue;
          // A typo, or a part of the name ({last4} for {accountLast4}).
          const lower = placeholder.toLowerCase();
          const near = closest(placeholder, offered) ?? offered.find((each) => each.toLowerCase().includes(lower) || lower.includes(each.toLowerCase()));
          const fix = placeholderFix(near, offered);
          problems.add(
            NOTICES_FILE,
            pointer(name, channel, part),
            `{${placeholder}} is not a value the "${name}" message has, so ${readers} would read "{${placeholder}}"`,
            fix,
          );
        }
      }
      const text = typeof words.text === 'string' ? words.text : '';
      for (const value of required) {
        if (!placeholdersIn(text).includes(value)) {
          problems.add(
            NOTICES_FILE,
            pointer(name, channel, 'text'),
            `the "${name}" ${channel === 'sms' ? 'text message' : 'email'} never says {${value}}, which it exists to give`,
            `put {${value}} in its text`,
          );
        }
      }
    }
  }
}

/** The reminders' schedule against the flow: each step one the flow has, the delays increasing, the state's answer a field of a form step. */
export function checkReminders(
  notices: JsonObject,
  flow: Pick<Flow, 'steps'>,
  fieldsOf: (schemaName: string) => string[] | undefined,
  problems: Problems,
): void {
  const reminders = notices.reminders;
  if (!isObject(reminders)) return;
  const answer = reminders.stateAnswer;
  if (isObject(answer) && typeof answer.step === 'string' && typeof answer.field === 'string') {
    const otherwise = "so no driver's time zone would be known, and every notice kept to Eastern time's quiet hours";
    const at = ['reminders', 'stateAnswer'];
    checkFormField(
      flow,
      fieldsOf,
      { step: { name: answer.step, at: [...at, 'step'], otherwise }, field: { name: answer.field, at: [...at, 'field'], otherwise } },
      problems,
    );
  }
  const steps = Array.isArray(reminders.steps) ? reminders.steps : [];
  const known = Object.keys(flow.steps);
  for (const [index, step] of steps.entries()) {
    if (typeof step !== 'string' || known.includes(step)) continue;
    const near = closest(step, known);
    problems.add(
      NOTICES_FILE,
      pointer('reminders', 'steps', String(index)),
      `"${step}" is not a step of flows/onboarding.flow.json, so no driver would ever be reminded of it`,
      near ? `did you mean "${near}"?` : `use one of the flow's steps: ${known.join(', ')}`,
    );
  }
  const delays = Array.isArray(reminders.afterHours) ? reminders.afterHours : [];
  for (const [index, hours] of delays.entries()) {
    if (index > 0 && typeof hours === 'number' && hours <= (delays[index - 1] as number)) {
      problems.add(
        NOTICES_FILE,
        pointer('reminders', 'afterHours', String(index)),
        `each reminder comes after the one before it, so ${hours} hours can't follow ${String(delays[index - 1])}`,
        'list the delays from the shortest to the longest',
      );
    }
  }
}

/**
 * The documents that expire against the flow and its schemas: each a step of the flow, its date
 * and files fields of that step's schema; the notices' days from the most to the fewest; the
 * fixes' words with the placeholder they are given.
 */
export function checkExpiries(
  notices: JsonObject,
  flow: Pick<Flow, 'steps'>,
  fieldsOf: (schemaName: string) => string[] | undefined,
  problems: Problems,
): void {
  const expiries = notices.expiries;
  if (!isObject(expiries)) return;
  const documents = Array.isArray(expiries.documents) ? expiries.documents : [];
  for (const [index, document] of documents.entries()) {
    if (!isObject(document) || typeof document.step !== 'string') continue;
    const named: [string, unknown][] = [
      ['date', document.date],
      ...(Array.isArray(document.files) ? document.files : []).map((file, at): [string, unknown] => [`files/${at}`, file]),
    ];
    const at = ['expiries', 'documents', String(index)];
    for (const [where, field] of named) {
      if (typeof field !== 'string') continue;
      const step = { name: document.step, at: [...at, 'step'], otherwise: "so this document's date is never answered" };
      const otherwise = `so this document would never be ${where === 'date' ? 'found to expire' : 'replaced'}`;
      // A step that is not a form step is said once.
      if (!checkFormField(flow, fieldsOf, { step, field: { name: field, at: [...at, ...where.split('/')], otherwise } }, problems)) break;
    }
  }
  const days = Array.isArray(expiries.daysBefore) ? expiries.daysBefore : [];
  for (const [index, count] of days.entries()) {
    if (index > 0 && typeof count === 'number' && count >= (days[index - 1] as number)) {
      problems.add(
        NOTICES_FILE,
        pointer('expiries', 'daysBefore', String(index)),
        `each notice comes nearer the date than the one before it, so ${count} days before can't follow ${String(days[index - 1])}`,
        'list the days from the most to the fewest',
      );
    }
  }
  for (const key of ['fixReason', 'renewReason']) {
    const words = expiries[key];
    if (typeof words !== 'string') continue;
    for (const placeholder of placeholdersIn(words)) {
      if (placeholder === FIX_REASON_VALUE) continue;
      problems.add(
        NOTICES_FILE,
        pointer('expiries', key),
        `{${placeholder}} is not a value the fix is given, so drivers would read "{${placeholder}}"`,
        `use {${FIX_REASON_VALUE}}`,
      );
    }
  }
}

/** A step and field the notices name, each with its place and what a wrong one would cause. */
interface NamedField {
  step: { name: string; at: string[]; otherwise: string };
  field: { name: string; at: string[]; otherwise: string };
}

/** A step and field against the flow and its schemas: a form step of the flow, a field of its schema. Whether the step is a form step. */
function checkFormField(flow: Pick<Flow, 'steps'>, fieldsOf: (schemaName: string) => string[] | undefined, named: NamedField, problems: Problems): boolean {
  const { step, field } = named;
  const steps = Object.keys(flow.steps);
  const stepFile = Object.hasOwn(flow.steps, step.name) ? flow.steps[step.name] : undefined;
  const schemaName = stepFile && 'schema' in stepFile ? stepFile.schema : undefined;
  if (!schemaName) {
    const near = closest(step.name, steps);
    problems.add(
      NOTICES_FILE,
      pointer(...step.at),
      `"${step.name}" is not a form step of flows/onboarding.flow.json, ${step.otherwise}`,
      near ? `did you mean "${near}"?` : `use one of the flow's form steps: ${steps.filter((name) => 'schema' in flow.steps[name]!).join(', ')}`,
    );
    return false;
  }
  // A schema that does not load is reported in its own file.
  const fields = fieldsOf(schemaName);
  if (!fields || fields.includes(field.name)) return true;
  const near = closest(field.name, fields);
  problems.add(
    NOTICES_FILE,
    pointer(...field.at),
    `"${field.name}" is not a field of schemas/${schemaName}.schema.json, ${field.otherwise}`,
    near ? `did you mean "${near}"?` : `use one of its fields: ${fields.join(', ')}`,
  );
  return true;
}
