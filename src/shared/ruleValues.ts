/**
 * A field's texts can show the values of its own rules: "Account Number must be minimum
 * {minLength} characters long." or a placeholder "{minLength} to {maxLength} digits". The text
 * then follows the rule when operations staff change it, instead of stating an old number.
 *
 * The values are filled in when a step's files are loaded (src/node/projectFiles.ts), so the
 * browser, the server and the review page all read the finished words. Placeholders of an
 * error's own values ("{min}" of yearWithin) are filled later, when the error happens
 * (src/shared/errors.ts): they may depend on the day.
 */
import { fillPlaceholders } from './placeholders.js';
import { isObject, type Json, type JsonObject } from './schemaFiles.js';

/** The keywords whose number a text may show as `{keyword}`. */
export const RULE_VALUE_KEYWORDS = [
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
  'minAgeYears',
  'minMonthsAhead',
] as const;

/** The values an error of a keyword carries, which its own message may show (`{limit}`, `{min}`). */
export const ERROR_VALUES: Readonly<Record<string, readonly string[]>> = {
  minLength: ['limit'],
  maxLength: ['limit'],
  minimum: ['limit'],
  maximum: ['limit'],
  exclusiveMinimum: ['limit'],
  exclusiveMaximum: ['limit'],
  minItems: ['limit'],
  maxItems: ['limit'],
  minAgeYears: ['years'],
  minMonthsAhead: ['months'],
  yearWithin: ['min', 'max'],
};

/** The rule keywords a field has, whatever their value (a quoted number is another problem). */
export const ruleKeywordsIn = (field: Json | undefined): string[] => (isObject(field) ? RULE_VALUE_KEYWORDS.filter((keyword) => keyword in field) : []);

/** A field's rule values by keyword: `{ minLength: 12, maxLength: 17 }`. */
export function ruleValuesOf(field: Json | undefined): Record<string, number> {
  const values: Record<string, number> = {};
  if (!isObject(field)) return values;
  for (const keyword of RULE_VALUE_KEYWORDS) {
    const value = field[keyword];
    if (typeof value === 'number') values[keyword] = value;
  }
  return values;
}

/** Every text below a node, filled. */
function fillTexts(node: Json, values: Record<string, number>): Json {
  if (typeof node === 'string') return fillPlaceholders(node, values);
  if (Array.isArray(node)) return node.map((item) => fillTexts(item, values));
  if (!isObject(node)) return node;
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, fillTexts(value, values)]));
}

/**
 * A bundled step schema with its messages filled: a field's `errorMessage` from its own rules,
 * and the form's `errorMessage.required.<field>` from that field's.
 */
export function schemaWithRuleValues(schema: JsonObject): JsonObject {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const filledProperties: JsonObject = {};
  for (const [name, field] of Object.entries(properties)) {
    filledProperties[name] =
      isObject(field) && field.errorMessage !== undefined ? { ...field, errorMessage: fillTexts(field.errorMessage, ruleValuesOf(field)) } : field;
  }
  const messages = schema.errorMessage;
  const required = isObject(messages) ? messages.required : undefined;
  const filledMessages =
    isObject(messages) && isObject(required)
      ? { ...messages, required: Object.fromEntries(Object.entries(required).map(([name, text]) => [name, fillTexts(text, ruleValuesOf(properties[name]))])) }
      : messages;
  return {
    ...schema,
    ...(schema.properties === undefined ? {} : { properties: filledProperties }),
    ...(filledMessages === undefined ? {} : { errorMessage: filledMessages }),
  };
}

/** A bundled UI schema with each field's texts (title, placeholder, help, options) filled from that field's rules in `schema`. */
export function uiWithRuleValues(ui: JsonObject, schema: JsonObject): JsonObject {
  const properties = isObject(schema.properties) ? schema.properties : {};
  return Object.fromEntries(
    Object.entries(ui).map(([key, value]) => [key, Object.hasOwn(properties, key) ? fillTexts(value, ruleValuesOf(properties[key])) : value]),
  );
}
