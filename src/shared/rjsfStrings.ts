/**
 * rjsf's own strings (its `TranslatableString`s: "Remove", "Add Item"…), as copy to translate like
 * the project's files: the English is rjsf's, each string named by its key, and each language's
 * translations are in locales/<language>/rjsf.json. A form is given `translatorFor` its language
 * as rjsf's `translateString`.
 */
import { englishStringTranslator, replaceStringParameters, TranslatableString } from '@rjsf/utils';
import { type Locale, translatedText, type Translations } from './locales.js';

/** The translation file of rjsf's strings, in each language's folder. */
export const RJSF_STRINGS_FILE = 'rjsf.json';

/** rjsf's strings in English, by key: the "source file" their translations are checked against. */
export const RJSF_ENGLISH: Record<string, string> = Object.fromEntries(Object.entries(TranslatableString));

/** rjsf's `translateString` for a language: a string's translation with its %1-style values filled, else rjsf's English. */
export function translatorFor(locale: Locale, translations: Translations | undefined): (key: TranslatableString, params?: string[]) => string {
  const byEnglish = new Map(
    Object.entries(translations ?? {}).flatMap(([, entry]) => {
      const text = translatedText(entry, locale);
      return text === undefined ? [] : [[entry.en, text]];
    }),
  );
  return (key, params) => {
    const translated = byEnglish.get(key);
    return translated === undefined ? englishStringTranslator(key, params) : replaceStringParameters(translated, params);
  };
}
