/**
 * Dates relative to "today", as YYYY-MM-DD in the local calendar. The same arithmetic is
 * generated into the validators (see keywords.ts) so a picker's limit and the rule it shows
 * can never disagree.
 */
export function isoDateOffset(years: number, months: number, now: Date = new Date()): string {
  const d = new Date(now.getTime());
  d.setFullYear(d.getFullYear() + years, d.getMonth() + months);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

export interface DateRuleSchema {
  minAgeYears?: number;
  minMonthsAhead?: number;
}

/** The picker limits a date field's own schema implies (`min`/`max` of `<input type="date">`). */
export function dateLimits(schema: DateRuleSchema, now: Date = new Date()): { min?: string; max?: string } {
  const limits: { min?: string; max?: string } = {};
  if (typeof schema.minAgeYears === 'number') limits.max = isoDateOffset(-schema.minAgeYears, 0, now);
  if (typeof schema.minMonthsAhead === 'number') limits.min = isoDateOffset(0, schema.minMonthsAhead, now);
  return limits;
}
