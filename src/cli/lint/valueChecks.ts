/**
 * Values in a step schema that can't mean what they say: a `const`, `default`, `enum` or
 * `examples` value its own field refuses (`"const": "true"` on a box that holds true or false:
 * nobody can sign up); a pattern no text within the field's lengths can meet; limits that leave
 * nothing; labels (`enumNames`) where the form never reads them; a blank message; and the texts
 * of messages (textChecks.ts). Like the other schema checks these run on the bundled schema and
 * report only what the file itself writes.
 */
import type { ValidateFunction } from 'ajv';
import { ERROR_VALUES, ruleKeywordsIn, ruleValuesOf } from '../../shared/ruleValues.js';
import { isObject, type Json, type JsonObject } from '../../shared/schemaFiles.js';
import { compiledOnce } from './compiled.js';
import { patternLengths } from './patternLengths.js';
import { pointer, valueAt, type Problems } from './problems.js';
import { forEachSchema } from './schemaChecks.js';
import { checkText } from './textChecks.js';

/** The rules a value of the field must meet by itself (not `const` or `enum`: a box's default may be unticked). */
const OWN_RULES = ['type', 'format', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];

/** Limits that leave nothing when the first is at or above the second. */
const EXCLUSIVE_PAIRS: [string, string][] = [
  ['minimum', 'exclusiveMaximum'],
  ['exclusiveMinimum', 'maximum'],
  ['exclusiveMinimum', 'exclusiveMaximum'],
];

/** The field's own rules as a schema; undefined when it has none, or Ajv refuses them (checkCompiles reports that). */
function ownRulesOf(node: JsonObject): ValidateFunction | undefined {
  const rules = Object.fromEntries(Object.entries(node).filter(([key]) => OWN_RULES.includes(key)));
  return Object.keys(rules).length === 0 ? undefined : compiledOnce(rules);
}

const kindOf = (value: Json) =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'a list'
      : typeof value === 'string'
        ? 'a text'
        : `${typeof value === 'object' ? 'an object' : `a ${typeof value}`}`;
const show = (value: Json) => JSON.stringify(value);

/** Why a value breaks its field's own rules, with a fix that works. */
function describeRefusal(value: Json, validate: ValidateFunction, node: JsonObject): { what: string; fix: string } {
  const error = validate.errors?.[0];
  if (error?.keyword === 'type') {
    const wanted = String(error.params.type);
    const unquoted = typeof value === 'string' ? value.trim() : '';
    const asWanted =
      (wanted === 'boolean' && /^(true|false)$/.test(unquoted)) ||
      ((wanted === 'number' || wanted === 'integer') && unquoted !== '' && !Number.isNaN(Number(unquoted)));
    const fix = asWanted
      ? `write it without quotes: ${unquoted}`
      : wanted === 'boolean'
        ? 'write true or false, without quotes'
        : wanted === 'string'
          ? `write it in quotes: ${JSON.stringify(String(JSON.stringify(value)))}`
          : `write a ${wanted === 'integer' ? 'whole number' : wanted}`;
    return { what: `${show(value)} is ${kindOf(value)}, but the field holds ${wanted === 'integer' ? 'a whole number' : `a ${wanted}`}`, fix };
  }
  const keyword = error?.keyword ?? 'type';
  const rule = keyword in node ? ` (${keyword} ${show(node[keyword] ?? null)})` : '';
  return { what: `${show(value)} breaks the field's own "${keyword}" rule${rule}`, fix: 'write a value the field accepts, or change the rule' };
}

export function checkSchemaValues(file: string, source: JsonObject, bundled: JsonObject, problems: Problems): void {
  const written = (keys: string[]) => valueAt(source, keys) !== undefined;
  const add = (keys: string[], what: string, fix: string) => {
    if (written(keys)) problems.add(file, pointer(...keys), what, fix);
  };
  const properties = isObject(bundled.properties) ? bundled.properties : {};

  forEachSchema(bundled, [], (node, keys) => {
    const validate = ownRulesOf(node);
    const checkValue = (value: Json, at: string[]) => {
      if (!validate || (isObject(value) && '$data' in value) || validate(value)) return;
      const { what, fix } = describeRefusal(value, validate, node);
      add(at, what, fix);
    };
    for (const keyword of ['const', 'default']) if (keyword in node) checkValue(node[keyword] ?? null, [...keys, keyword]);
    for (const keyword of ['enum', 'examples']) {
      const values = node[keyword];
      if (Array.isArray(values)) values.forEach((value, i) => checkValue(value, [...keys, keyword, String(i)]));
    }

    // The form (rjsf) reads a choice's label from the UI schema only: here it shows nothing.
    if (Array.isArray(node.enumNames) && written([...keys, 'enumNames'])) {
      problems.warn(
        file,
        pointer(...keys, 'enumNames'),
        'the form shows no "enumNames" of a step schema: each choice shows its value, as written in "enum"',
        `move the labels to the UI schema, as this field's "ui:enumNames"`,
      );
    }

    const lengths = typeof node.pattern === 'string' ? patternLengths(node.pattern) : undefined;
    // Lengths that contradict each other are their own problem (checkSchemaRules).
    const lengthsAgree = !(typeof node.minLength === 'number' && typeof node.maxLength === 'number' && node.minLength > node.maxLength);
    if (lengths && lengthsAgree) {
      const minLength = typeof node.minLength === 'number' ? node.minLength : 0;
      const maxLength = typeof node.maxLength === 'number' ? node.maxLength : Number.POSITIVE_INFINITY;
      const at = written([...keys, 'pattern']) ? [...keys, 'pattern'] : written([...keys, 'maxLength']) ? [...keys, 'maxLength'] : [...keys, 'minLength'];
      if (lengths.min > maxLength) {
        add(
          at,
          `the pattern needs at least ${lengths.min} characters, but maxLength is ${maxLength}: no value can pass`,
          'raise maxLength, or change the pattern',
        );
      } else if (lengths.max < minLength) {
        add(
          at,
          `the pattern allows at most ${lengths.max} characters, but minLength is ${minLength}: no value can pass`,
          'lower minLength, or change the pattern',
        );
      }
    }

    for (const [low, high] of EXCLUSIVE_PAIRS) {
      const min = node[low];
      const max = node[high];
      if (typeof min === 'number' && typeof max === 'number' && min >= max) {
        add(
          written([...keys, low]) ? [...keys, low] : [...keys, high],
          `${low} ${min} and ${high} ${max} leave no value that can pass`,
          `lower ${low} or raise ${high}`,
        );
      }
    }

    // A field's messages may show its rules' numbers (filled when the step is loaded); a deeper one only its error's values.
    const isField = keys.length === 2 && (keys[0] === 'properties' || keys[0] === '$defs');
    const rules = isField ? ruleValuesOf(node) : {};
    const messages = node.errorMessage;
    const texts: { keys: string[]; text: string; ownRule?: string; rules: Record<string, number>; field: Json | undefined }[] = [];
    if (typeof messages === 'string') texts.push({ keys: [...keys, 'errorMessage'], text: messages, rules, field: isField ? node : undefined });
    else if (isObject(messages)) {
      for (const [keyword, message] of Object.entries(messages)) {
        if (typeof message === 'string')
          texts.push({ keys: [...keys, 'errorMessage', keyword], text: message, ownRule: keyword, rules, field: isField ? node : undefined });
        else if (keyword === 'required' && isObject(message) && keys.length === 0) {
          for (const [field, text] of Object.entries(message)) {
            if (typeof text === 'string')
              texts.push({ keys: [...keys, 'errorMessage', keyword, field], text, rules: ruleValuesOf(properties[field]), field: properties[field] });
          }
        }
      }
    }
    for (const { keys: at, text, ownRule, rules: values, field } of texts) {
      // A message already reported (for a rule that isn't there) is not judged again.
      if (problems.covers(file, pointer(...at))) continue;
      if (text !== '' && text.trim() === '') {
        add(at, 'the message is only spaces: drivers would see no words', 'write the message a driver sees, in full');
        continue;
      }
      const offered = [...ruleKeywordsIn(field), ...(ownRule ? (ERROR_VALUES[ownRule] ?? []) : [])];
      checkText(text, { offered, rules: values, ...(ownRule ? { ownRule } : {}) }, (what, fix) => add(at, what, fix));
    }
  });
}
