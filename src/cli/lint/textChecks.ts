/**
 * A text a driver reads, as its file writes it: every `{placeholder}` is one that something
 * fills there (else drivers read "{mni}"), and a number that one of the field's rules defines is
 * written as that rule's placeholder, so a changed rule changes the text too (src/shared/ruleValues.ts).
 */
import { placeholdersIn } from '../../shared/placeholders.js';
import { RULE_VALUE_KEYWORDS } from '../../shared/ruleValues.js';
import { closest } from './problems.js';

export interface TextContext {
  /** The placeholders something fills in this text. */
  offered: readonly string[];
  /** The numbers of the field's rules by keyword, which the text may show as `{keyword}`. */
  rules: Readonly<Record<string, number>>;
  /** The rule a message is for ("minLength" for errorMessage.minLength, "pattern" for errorMessage.pattern). */
  ownRule?: string;
}

export type Report = (what: string, fix: string) => void;

/** A number standing alone: "12", "4-digit"; not "$199", "{min}" or a part of a word. */
const NUMBER = /(?<![\w.{$])\d+(?![\w}])/g;

/** The rules a number followed by a unit is about: "12 characters", "4-digit", "18 years". */
const UNIT_RULES: Record<string, string[]> = {
  characters: ['minLength', 'maxLength'],
  digits: ['minLength', 'maxLength'],
  letters: ['minLength', 'maxLength'],
  years: ['minAgeYears'],
  months: ['minMonthsAhead'],
};

/**
 * The unit right after a number, as its plural ("4-digit" → "digits"), if it is one the rules
 * measure; the first number of a range has the unit of the range's end ("12 to 17 digits").
 */
function unitAfter(text: string, end: number): string | undefined {
  const rangeEnd = /^\s*(?:to|or|and|-|–)\s*\d+/.exec(text.slice(end));
  if (rangeEnd) return unitAfter(text, end + rangeEnd[0].length);
  const word = /^[\s-]?([a-z]+)/i.exec(text.slice(end))?.[1]?.toLowerCase();
  if (!word) return undefined;
  const plural = word.endsWith('s') ? word : `${word}s`;
  return plural in UNIT_RULES ? plural : undefined;
}

const list = (words: string[]) => (words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`);
const braced = (names: readonly string[]) => names.map((name) => `{${name}}`);

export function checkText(text: string, { offered, rules, ownRule }: TextContext, report: Report): void {
  const unfilled = [...new Set(placeholdersIn(text).filter((name) => !offered.includes(name)))];
  if (unfilled.length > 0) {
    const ruleKeywords: readonly string[] = RULE_VALUE_KEYWORDS;
    const suggestions = unfilled.map((name) => closest(name, offered)).filter((near) => near !== undefined);
    const missingRules = unfilled.filter((name) => ruleKeywords.includes(name));
    const fix =
      suggestions.length === unfilled.length
        ? `did you mean ${list(braced(suggestions))}?`
        : missingRules.length === unfilled.length
          ? `this field has no ${list(missingRules.map((name) => `"${name}"`))} rule: add the rule, or write the number out`
          : offered.length > 0
            ? `use one of ${list(braced(offered))}, or write the text out`
            : 'nothing fills a placeholder here: write the text out';
    const one = unfilled.length === 1;
    report(`${list(braced(unfilled))} ${one ? 'is' : 'are'} filled by nothing here, so drivers would read "{${unfilled[0]}}"`, fix);
  }

  const numbers = [...text.matchAll(NUMBER)].map((match) => ({ number: Number(match[0]), unit: unitAfter(text, match.index + match[0].length) }));
  // The rules a number of the text is about: its own message's rule's, or the ones its unit
  // measures ("10 characters"). A message of a rule without a number (a pattern's) speaks of that
  // rule ("a 5-digit zip code, or ZIP+4"), and a number with no unit is no rule's ("100 Main St").
  const ownNumber = ownRule !== undefined && rules[ownRule] !== undefined && !placeholdersIn(text).includes(ownRule);
  const rulesOf = (unit: string | undefined) =>
    ownNumber ? [ownRule!] : ownRule === undefined && unit ? UNIT_RULES[unit]!.filter((each) => each in rules) : [];
  // A number the text ties to a rule that no such rule has.
  for (const { number, unit } of numbers) {
    const related = rulesOf(unit);
    if (related.length === 0 || related.some((each) => rules[each] === number)) continue;
    const now = list(related.map((each) => `${each} is ${rules[each]}`));
    report(
      `the text says ${number}${unit ? ` ${unit}` : ''}, but this field's ${now}: it no longer tells the rule`,
      `write ${list(braced(related))} where the number is`,
    );
    return;
  }
  const stated: { number: number; keyword: string }[] = [];
  for (const { number, unit } of numbers) {
    const keyword = rulesOf(unit).find((each) => rules[each] === number);
    if (keyword && !stated.some((each) => each.keyword === keyword)) stated.push({ number, keyword });
  }
  if (stated.length > 0) {
    const keywords = stated.map((each) => each.keyword);
    const one = stated.length === 1;
    report(
      `the text states ${list(stated.map((each) => String(each.number)))}, which ${one ? 'is' : 'are'} this field's ${list(keywords)}`,
      `write ${list(braced(keywords))} instead, so the text follows the rule${one ? '' : 's'}`,
    );
  }
}
