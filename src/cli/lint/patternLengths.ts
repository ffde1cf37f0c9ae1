/**
 * How long a text a `pattern` lets through: `^[0-9]{4}$` only 4 characters, `^[0-9]*$` any
 * number, `\S` at least 1. With it the lint finds a pattern that no value within the field's
 * `minLength`/`maxLength` (or the UI's input cap) can meet. The pattern is read by regexpp, the
 * parser ESLint's own regular-expression rules use, as Ajv runs it (with the `u` flag).
 */
import { RegExpParser } from '@eslint-community/regexpp';
import type { Alternative, Element, Pattern } from '@eslint-community/regexpp/ast';

export interface LengthRange {
  min: number;
  max: number;
}

const parser = new RegExpParser({ ecmaVersion: 2024 });

const times = (a: number, b: number) => (a === 0 || b === 0 ? 0 : a * b);

function elementRange(element: Element): LengthRange {
  switch (element.type) {
    case 'Character':
    case 'CharacterClass':
    case 'CharacterSet':
    case 'ExpressionCharacterClass':
      return { min: 1, max: 1 };
    case 'Assertion':
      return { min: 0, max: 0 };
    case 'Backreference':
      return { min: 0, max: Number.POSITIVE_INFINITY };
    case 'Group':
    case 'CapturingGroup':
      return alternativesRange(element.alternatives);
    case 'Quantifier': {
      const inner = elementRange(element.element);
      return { min: times(inner.min, element.min), max: times(inner.max, element.max) };
    }
    default:
      return { min: 0, max: Number.POSITIVE_INFINITY };
  }
}

function alternativeRange(alternative: Alternative): LengthRange {
  return alternative.elements.map(elementRange).reduce((a, b) => ({ min: a.min + b.min, max: a.max + b.max }), { min: 0, max: 0 });
}

function alternativesRange(alternatives: Alternative[]): LengthRange {
  const ranges = alternatives.map(alternativeRange);
  return { min: Math.min(...ranges.map((r) => r.min)), max: Math.max(...ranges.map((r) => r.max)) };
}

const isAnchor = (element: Element | undefined, kind: 'start' | 'end') => element?.type === 'Assertion' && element.kind === kind;

/**
 * The lengths of text the pattern accepts, or undefined when it is not a regular expression.
 * A pattern not anchored at both ends (`^…$`) matches a part of the text, so any longer text passes.
 */
export function patternLengths(pattern: string): LengthRange | undefined {
  let ast: Pattern;
  try {
    ast = parser.parsePattern(pattern, 0, pattern.length, { unicode: true });
  } catch (error) {
    // Not a regular expression: no lengths (the schema checks report the pattern).
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
  const range = alternativesRange(ast.alternatives);
  const anchored = ast.alternatives.every((alternative) => isAnchor(alternative.elements[0], 'start') && isAnchor(alternative.elements.at(-1), 'end'));
  return anchored ? range : { min: range.min, max: Number.POSITIVE_INFINITY };
}
