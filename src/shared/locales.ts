/**
 * The languages drivers read Onramp in. The English text is the files' own (the spec's words);
 * each other language has, for each file with copy, a file of its translations beside it
 * (locales/es/signup.schema.json for schemas/signup.schema.json), keyed by the JSON pointer of
 * each text (src/shared/copy.ts says which strings are copy). Each entry keeps the English it was
 * translated from, so the lint knows when the English changed after the translation, and the
 * reader is shown the English until the translation is made again (localize).
 */
import { placeholdersIn } from './placeholders.js';
import { pointerKeys } from './jsonPointer.js';
import { isObject, type Json } from './schemaFiles.js';

/** The languages, the first the files' own. The names are each language's own, as the switcher shows them. */
export const LOCALES = { en: 'English', es: 'Español' } as const;
export type Locale = keyof typeof LOCALES;
/** The languages' names in English, for the messages of the tools. */
export const LOCALE_NAMES: Record<Locale, string> = { en: 'English', es: 'Spanish' };
export const DEFAULT_LOCALE: Locale = 'en';
export const TRANSLATED_LOCALES = (Object.keys(LOCALES) as Locale[]).filter((locale) => locale !== DEFAULT_LOCALE);

export const isLocale = (value: unknown): value is Locale => typeof value === 'string' && Object.hasOwn(LOCALES, value);

/** One text's translation: the English it was made from, and the text in the file's language. */
export interface Translation {
  en: string;
  [locale: string]: string;
}

/** A translation file: by the pointer of each text in its source file. */
export type Translations = Record<string, Translation>;

/**
 * An entry's text in `locale`, if it has one: a text of nothing but spaces is none, like an empty
 * one (a translation still to write), so a reader is shown the English, never a blank.
 */
export const translatedText = (entry: Partial<Translation> | undefined, locale: Locale): string | undefined => {
  const text = entry?.[locale];
  return typeof text === 'string' && text.trim() !== '' ? text : undefined;
};

/** The folder of a language's files, and the file that translates a source file (by its name, without folders). */
export const LOCALES_FOLDER = 'locales';
export const translationFileOf = (locale: Locale, sourceFileName: string) => `${LOCALES_FOLDER}/${locale}/${sourceFileName}`;

/**
 * The language a request or a browser asks for: the first of its preferences (an Accept-Language
 * header, navigator.languages) that Onramp speaks, by its primary tag ("es-MX" is Spanish).
 */
export function preferredLocale(preferences: string | readonly string[] | undefined): Locale {
  const tags =
    typeof preferences === 'string'
      ? preferences
          .split(',')
          .map((part) => {
            const [tag = '', ...params] = part.trim().split(';');
            // A weight that is no number from 0 to 1 ("q=abc", "q=-1") leaves the language out.
            const weight = params
              .find((param) => /^\s*q=/i.test(param))
              ?.replace(/^\s*q=/i, '')
              .trim();
            const q = weight === undefined ? 1 : /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(weight) ? Number(weight) : 0;
            return { tag, q };
          })
          .filter(({ q }) => q > 0)
          .sort((a, b) => b.q - a.q)
          .map(({ tag }) => tag)
      : (preferences ?? []);
  for (const tag of tags) {
    const primary = tag.toLowerCase().split('-')[0];
    if (isLocale(primary)) return primary;
  }
  return DEFAULT_LOCALE;
}

/**
 * The source file with each translated text in `locale` in place of its English; texts without
 * one stay English, and so does a text whose English changed since it was translated (stale): a
 * reader is never shown words that may no longer mean what the English now says.
 */
export function localize<T>(source: T, translations: Translations | undefined, locale: Locale): T {
  if (locale === DEFAULT_LOCALE || !translations) return source;
  const copy = structuredClone(source) as Json;
  for (const [pointer, entry] of Object.entries(translations)) {
    const text = translatedText(entry, locale);
    if (text === undefined) continue;
    const keys = pointerKeys(pointer);
    const last = keys.pop();
    let parent: Json | undefined = copy;
    for (const key of keys) parent = Array.isArray(parent) ? parent[Number(key)] : isObject(parent) ? parent[key] : undefined;
    if (last === undefined) continue;
    if (Array.isArray(parent) && parent[Number(last)] === entry.en) parent[Number(last)] = text;
    else if (isObject(parent) && Object.hasOwn(parent, last) && parent[last] === entry.en) parent[last] = text;
  }
  return copy as T;
}

/** The string at a pointer, if there is one. */
export function textAt(source: Json, pointer: string): string | undefined {
  let node: Json | undefined = source;
  for (const key of pointerKeys(pointer)) node = Array.isArray(node) ? node[Number(key)] : isObject(node) ? node[key] : undefined;
  return typeof node === 'string' ? node : undefined;
}

/** What a text's translation must keep: its {placeholders}, and rjsf's %1-style values (src/shared/rjsfStrings.ts). */
const markersIn = (text: string): string[] => [...new Set([...placeholdersIn(text), ...(text.match(/%\d/g) ?? [])])].sort();

export interface TranslationProblem {
  /** The entry's pointer (its key in the translation file). */
  entry: string;
  /**
   * A translation not written yet (missing, or made from English since changed): the text is shown
   * in English meanwhile, so it blocks no English edit. Anything else would show a driver wrong words.
   */
  toWrite?: true;
  /** The key of the entry the problem is in ("en", the language's); none when the entry is missing or all wrong. */
  key?: string;
  what: string;
  fix: string;
}

/**
 * What is wrong with a file's translations into `locale`: a text of the source with none, a
 * translation of a text that is no longer there, one made from English that has changed since
 * (stale), and one whose {placeholders} differ from the English's. The first and the third are
 * translations still to write (`toWrite`); the others would show drivers wrong words.
 */
export function translationProblems(source: Json, copy: readonly string[], translations: Translations, locale: Locale): TranslationProblem[] {
  const problems: TranslationProblem[] = [];
  for (const pointer of copy) {
    const english = textAt(source, pointer) ?? '';
    const entry = translations[pointer];
    const translated = translatedText(entry, locale);
    if (!entry || translated === undefined) {
      problems.push({
        entry: pointer,
        toWrite: true,
        ...(entry ? { key: locale } : {}),
        what: `no ${LOCALE_NAMES[locale]} text for ${pointer} ("${english}"): ${LOCALE_NAMES[locale]} readers see the English meanwhile`,
        fix: entry ? `write its ${LOCALE_NAMES[locale]}` : `add "${pointer}": { "en": ${JSON.stringify(english)}, "${locale}": "…" } (npm run locales adds it)`,
      });
      continue;
    }
    if (entry.en !== english) {
      problems.push({
        entry: pointer,
        toWrite: true,
        key: 'en',
        what: `the English changed since this was translated: it was "${entry.en}", it is now "${english}"; ${LOCALE_NAMES[locale]} readers see the new English meanwhile`,
        fix: `translate the new English, then set "en" to ${JSON.stringify(english)}`,
      });
      // Never shown while stale (localize), so its placeholders can't fail a driver: the new English's are checked once it is written.
      continue;
    }
    const wanted = markersIn(english);
    const found = markersIn(translated);
    if (wanted.join() !== found.join()) {
      const braces = (names: string[]) => (names.length ? names.map((name) => (name.startsWith('%') ? name : `{${name}}`)).join(', ') : 'none');
      problems.push({
        entry: pointer,
        key: locale,
        what: `the placeholders differ from the English's: ${braces(found)} here, ${braces(wanted)} in English`,
        fix: 'keep each {placeholder} of the English, spelled the same, and add none',
      });
    }
  }
  const known = new Set(copy);
  for (const pointer of Object.keys(translations)) {
    if (pointer.startsWith('$')) continue;
    if (!known.has(pointer)) {
      problems.push({ entry: pointer, what: `the source file has no text at ${pointer}`, fix: 'remove this entry (npm run locales removes it)' });
    }
  }
  return problems;
}
