import { dateLimits, type DateRuleSchema } from '../src/shared/dates';

/** The parts of a date field's schema the date picker reads. */
export interface DateFieldSchema extends DateRuleSchema {
  errorMessage?: unknown;
}

/**
 * The hint a date field shows: the schema's own message for its relative-date rule ("You must
 * be at least 18 years old to access the app.", "You can only select a date that is 6 months
 * ahead."), so the hint and the error can never say different things.
 */
export function dateRuleHint(schema: DateFieldSchema): string | undefined {
  const messages = schema.errorMessage;
  if (messages === null || typeof messages !== 'object') return undefined;
  const { minAgeYears, minMonthsAhead } = messages as Record<string, unknown>;
  if (typeof minAgeYears === 'string' && minAgeYears !== '') return minAgeYears;
  if (typeof minMonthsAhead === 'string' && minMonthsAhead !== '') return minMonthsAhead;
  return undefined;
}

/** The picker's `min`/`max` from the schema's rule keywords (`minAgeYears`, `minMonthsAhead`). */
export function datePickerLimits(schema: DateFieldSchema, now: Date = new Date()): { min?: string; max?: string } {
  return dateLimits(schema, now);
}
