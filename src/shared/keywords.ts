import { _, type Code, type KeywordDefinition } from 'ajv';

/**
 * Custom keywords for rules relative to today. They generate plain code (no closures), so the
 * same keyword works in the server's runtime Ajv and in the browser's precompiled validators,
 * and is evaluated against the date on which validation runs, not the date of the build.
 */

/** Inline code for `isoDateOffset(years, months)` of dates.ts. */
function isoDateOffsetCode(years: number, months: number): Code {
  return _`(function (d) { d.setFullYear(d.getFullYear() + ${years}, d.getMonth() + ${months}); return d.getFullYear() + "-" + ("0" + (d.getMonth() + 1)).slice(-2) + "-" + ("0" + d.getDate()).slice(-2); })(new Date())`;
}

function wholeNumber(value: unknown, keyword: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new Error(`"${keyword}" must be a whole number of 0 or more, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** A date (YYYY-MM-DD) at least N years ago: `"minAgeYears": 18`. */
const minAgeYears: KeywordDefinition = {
  keyword: 'minAgeYears',
  type: 'string',
  schemaType: 'number',
  code(cxt) {
    const limit = isoDateOffsetCode(-wholeNumber(cxt.schema, 'minAgeYears'), 0);
    cxt.fail(_`${cxt.data} > ${limit}`);
  },
  error: {
    message: ({ schema }) => _`"must be a date at least " + ${schema} + " years ago"`,
    params: ({ schema }) => _`{years: ${schema}}`,
  },
};

/** A date (YYYY-MM-DD) at least N months from today: `"minMonthsAhead": 6`. */
const minMonthsAhead: KeywordDefinition = {
  keyword: 'minMonthsAhead',
  type: 'string',
  schemaType: 'number',
  code(cxt) {
    const limit = isoDateOffsetCode(0, wholeNumber(cxt.schema, 'minMonthsAhead'));
    cxt.fail(_`${cxt.data} < ${limit}`);
  },
  error: {
    message: ({ schema }) => _`"must be a date at least " + ${schema} + " months ahead"`,
    params: ({ schema }) => _`{months: ${schema}}`,
  },
};

interface YearWindow {
  yearsBack: number;
  yearsAhead: number;
}

/**
 * A 4-digit year within this year − yearsBack … this year + yearsAhead. Its error carries
 * `min` and `max`, which an `errorMessage` can show as `{min}` and `{max}`.
 */
const yearWithin: KeywordDefinition = {
  keyword: 'yearWithin',
  type: 'string',
  schemaType: 'object',
  metaSchema: {
    type: 'object',
    properties: { yearsBack: { type: 'integer', minimum: 0 }, yearsAhead: { type: 'integer', minimum: 0 } },
    required: ['yearsBack', 'yearsAhead'],
    additionalProperties: false,
  },
  code(cxt) {
    const { yearsBack, yearsAhead } = cxt.schema as YearWindow;
    const year = _`Number(${cxt.data})`;
    const now = _`new Date().getFullYear()`;
    // Only a 4-digit value is judged here; the format has its own rule and message.
    cxt.fail(_`/^[0-9]{4}$/.test(${cxt.data}) && (${year} < ${now} - ${yearsBack} || ${year} > ${now} + ${yearsAhead})`);
  },
  error: {
    message: 'must be a year within the allowed range',
    params: ({ schema }) => {
      const { yearsBack, yearsAhead } = schema as YearWindow;
      return _`{min: new Date().getFullYear() - ${yearsBack}, max: new Date().getFullYear() + ${yearsAhead}}`;
    },
  },
};

/**
 * A US bank routing (ABA) number: 9 digits whose weighted sum 3·(d1+d4+d7) + 7·(d2+d5+d8) +
 * (d3+d6+d9) is a multiple of 10: `"abaRouting": true`. Only a value of 1 to 9 digits is judged
 * here; "not a number" and "too long" have their own rules and messages.
 */
const abaRouting: KeywordDefinition = {
  keyword: 'abaRouting',
  type: 'string',
  schemaType: 'boolean',
  code(cxt) {
    if (cxt.schema !== true) return;
    const d = (i: number) => _`Number(${cxt.data}[${i}])`;
    const sum = _`3 * (${d(0)} + ${d(3)} + ${d(6)}) + 7 * (${d(1)} + ${d(4)} + ${d(7)}) + ${d(2)} + ${d(5)} + ${d(8)}`;
    cxt.fail(_`/^[0-9]{1,9}$/.test(${cxt.data}) && !(/^[0-9]{9}$/.test(${cxt.data}) && (${sum}) % 10 === 0)`);
  },
  error: { message: 'must be a valid routing number' },
};

/**
 * A value that must not be kept readable: `"sensitive": true` (SSN, account number). Validation
 * ignores it; the server encrypts the field at rest on its own and answers it masked
 * (server/lib/answers.ts), and the browser never keeps it on the device.
 */
const sensitive: KeywordDefinition = { keyword: 'sensitive', schemaType: 'boolean' };

export const customKeywords: KeywordDefinition[] = [minAgeYears, minMonthsAhead, yearWithin, abaRouting, sensitive];
