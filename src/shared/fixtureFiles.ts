/**
 * The fixture format (docs/authoring.md): a form's values and what the validators must say of
 * them, for `npm run validate`, `npm test` and the form studio.
 *
 *   {
 *     "description": "an email with nothing after the @",
 *     "step": "signup",
 *     "expect": "invalid",
 *     "errors": { "/email": "<the first message a driver reads for the email>" },
 *     "data": { "email": "driver@", … }
 *   }
 *
 * `step` is a form step of flows/onboarding.flow.json; a step's variant is named by its schema
 * ("step": "completeProfile", "variant": "profile-social"). `"locale": "es"` says the messages
 * are the Spanish ones (locales/es/); without it they are English. `errors` holds, for each field that
 * fails, its first message exactly as a driver reads it, keyed by the field's JSON pointer.
 * A date may be written relative to the day the fixture runs: "$today-18y" (18 years ago today),
 * "$today+6m-1d" (a day short of six months ahead), so a rule's edge stays tested as time passes.
 * Pure: the files are listed by src/node/projectFiles.ts (listFixtureFiles).
 */
import { isoDateOffset } from './dates.js';
import type { Flow } from './flow.js';
import { DEFAULT_LOCALE, isLocale, LOCALES, type Locale } from './locales.js';
import type { JsonObject } from './schemaFiles.js';

/** Field (as a JSON pointer, "/email") → message. */
export type Messages = Record<string, string>;

export interface Fixture {
  step: string;
  variant?: string;
  /** The schema the step (or its variant) renders. */
  schema: string;
  expect: 'valid' | 'invalid';
  /** The language of the messages (`"locale": "es"`); English when the fixture names none. */
  locale: Locale;
  /** Empty for a valid fixture. */
  errors: Messages;
  data: JsonObject;
}

/** A fixture with the file it came from (tests/fixtures/…), as the form studio lists it. */
export type ListedFixture = Fixture & { file: string };

/** A mistake in a fixture or an argument, at a place ("step", "errors/email"). */
export class FixtureProblem extends Error {
  constructor(
    readonly place: string,
    message: string,
  ) {
    super(message);
    this.name = 'FixtureProblem';
  }
}

/** The schema a form step renders, or one of its variants; the message lists the choices. */
export function schemaOfStep(flow: Flow, stepId: string, variant?: string): string {
  const step = Object.hasOwn(flow.steps, stepId) ? flow.steps[stepId] : undefined;
  if (step?.kind !== 'form') {
    const formSteps = Object.entries(flow.steps).flatMap(([id, s]) => (s.kind === 'form' ? [id] : []));
    const what = step ? `step "${stepId}" shows a screen, not a form` : `no step "${stepId}" in flows/onboarding.flow.json`;
    throw new FixtureProblem('step', `${what} — use one of the form steps: ${formSteps.join(', ')}`);
  }
  if (variant === undefined) return step.schema;
  const variants = (step.variants ?? []).map((v) => v.schema);
  if (!variants.includes(variant)) {
    const fix = variants.length > 0 ? `use one of: ${variants.join(', ')}` : `"${stepId}" has no variants, leave "variant" out`;
    throw new FixtureProblem('variant', `step "${stepId}" has no variant "${variant}" — ${fix}`);
  }
  return variant;
}

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

const RELATIVE_DATE = /^\$today((?:[+-]\d+[ymd])*)$/;

/** "$today-18y+1d" → the date, as YYYY-MM-DD; undefined when the text is not one. */
export function relativeDate(text: string, now: Date = new Date()): string | undefined {
  const offsets = RELATIVE_DATE.exec(text)?.[1];
  if (offsets === undefined) return undefined;
  const by = { y: 0, m: 0, d: 0 };
  for (const [, sign, amount, unit] of offsets.matchAll(/([+-])(\d+)([ymd])/g)) by[unit as 'y' | 'm' | 'd'] += (sign === '-' ? -1 : 1) * Number(amount);
  const day = new Date(now.getTime());
  day.setDate(day.getDate() + by.d);
  return isoDateOffset(by.y, by.m, day);
}

/** The values with each "$today…" date resolved; a text that starts so but is no such date is a problem. */
function resolveDates(value: unknown, place: string, now: Date, problems: FixtureProblem[]): unknown {
  if (typeof value === 'string' && value.startsWith('$today')) {
    const date = relativeDate(value, now);
    if (date === undefined)
      problems.push(new FixtureProblem(place, `"${value}" is no date relative to today — write e.g. "$today-18y" or "$today+6m-1d" (y, m, d)`));
    return date ?? value;
  }
  if (Array.isArray(value)) return value.map((item, i) => resolveDates(item, `${place}/${i}`, now, problems));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveDates(item, `${place}/${key}`, now, problems)]));
  return value;
}

const FIXTURE_KEYS = ['description', 'step', 'variant', 'locale', 'expect', 'errors', 'data'];

/** A fixture file's contents, checked, its relative dates resolved for `now`; every mistake found is thrown at once. */
export function parseFixture(json: JsonObject, flow: Flow, now: Date = new Date()): Fixture {
  if (!('step' in json) && !('data' in json)) {
    throw new FixtureProblem('', 'not a fixture: it needs "step", "expect" and "data" — for a bare payload, name its step with --step NAME');
  }
  const problems: FixtureProblem[] = [];
  for (const key of Object.keys(json)) {
    if (!FIXTURE_KEYS.includes(key)) problems.push(new FixtureProblem(key, `unknown key — a fixture has ${FIXTURE_KEYS.join(', ')}`));
  }
  const { step, variant, locale = DEFAULT_LOCALE, expect, errors = {}, data, description } = json;
  if (!isLocale(locale))
    problems.push(
      new FixtureProblem(
        'locale',
        `must be one of ${Object.keys(LOCALES)
          .map((l) => `"${l}"`)
          .join(', ')}`,
      ),
    );
  let schema = '';
  if (typeof step !== 'string') {
    problems.push(new FixtureProblem('step', 'missing — name a form step of flows/onboarding.flow.json, e.g. "step": "signup"'));
  } else {
    try {
      schema = schemaOfStep(flow, step, typeof variant === 'string' ? variant : undefined);
    } catch (error) {
      if (!(error instanceof FixtureProblem)) throw error;
      problems.push(error);
    }
  }
  if (variant !== undefined && typeof variant !== 'string')
    problems.push(new FixtureProblem('variant', 'must be the name of the variant\'s schema, e.g. "profile-social"'));
  if (expect !== 'valid' && expect !== 'invalid') problems.push(new FixtureProblem('expect', 'must be "valid" or "invalid"'));
  if (!isObject(data)) problems.push(new FixtureProblem('data', 'must be the form\'s values, e.g. "data": { "email": "driver@example.com" }'));
  const values = resolveDates(data, 'data', now, problems);
  if (description !== undefined && typeof description !== 'string') problems.push(new FixtureProblem('description', 'must be text'));
  if (!isObject(errors))
    problems.push(new FixtureProblem('errors', 'must map each field to its message, e.g. "errors": { "/email": "<the message a driver reads>" }'));
  else {
    for (const [field, message] of Object.entries(errors)) {
      const place = `errors/${field.replace(/^\//, '')}`;
      if (field !== '' && !field.startsWith('/')) problems.push(new FixtureProblem(place, `a field is written as a JSON pointer — write "/${field}"`));
      if (typeof message !== 'string' || message === '') problems.push(new FixtureProblem(place, 'must be the message a driver reads'));
    }
    const listed = Object.keys(errors).length > 0;
    if (expect === 'valid' && listed)
      problems.push(new FixtureProblem('errors', 'a valid fixture lists no messages — remove "errors", or make it "expect": "invalid"'));
    if (expect === 'invalid' && !listed)
      problems.push(
        new FixtureProblem(
          'errors',
          'an invalid fixture lists the message of each field that fails, e.g. "errors": { "/email": "<the message a driver reads>" }',
        ),
      );
  }
  if (problems.length > 0) throw new AggregateError(problems);
  return {
    step: step as string,
    ...(variant === undefined ? {} : { variant: variant as string }),
    schema,
    locale: isLocale(locale) ? locale : DEFAULT_LOCALE,
    expect: expect as Fixture['expect'],
    errors: errors as Messages,
    data: values as JsonObject,
  };
}
