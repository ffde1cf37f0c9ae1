/**
 * What the server answers a driver in `message`: flows/server-messages.json, read once (in
 * English, the code's words), and each answer put in the request's language where it leaves the
 * server (app.ts's error handler, and the routes' confirmations) from the same files' translations.
 *
 * Answers are translated by their English, as gettext does: a route throws the English message,
 * and the answer carries the translation of that text in the request's language. So a message
 * read anywhere in the code (a plugin, a helper) needs no language of its own, and a text with
 * {placeholders} filled is recognised by its template.
 */
import { basename } from 'node:path';
import { FLOW_FILE, loadServerMessages, readJsonFile, readTranslations, SERVER_MESSAGES_FILE } from '../node/projectFiles.js';
import { DEFAULT_LOCALE, textAt, type Locale } from '../shared/locales.js';
import { fillPlaceholders, placeholdersIn } from '../shared/placeholders.js';

export const SERVER_MESSAGES = loadServerMessages();

/** The files whose translations answers are looked up in: the server's messages and the flow's (its messages, toasts). */
const ANSWER_FILES = [SERVER_MESSAGES_FILE, FLOW_FILE];

interface Lookup {
  exact: Map<string, string>;
  templates: { pattern: RegExp; names: string[]; translated: string }[];
}

const lookups = new Map<Locale, Lookup>();

function lookupFor(locale: Locale): Lookup {
  let lookup = lookups.get(locale);
  if (!lookup) {
    lookup = { exact: new Map(), templates: [] };
    for (const path of ANSWER_FILES) {
      const english = readJsonFile(path);
      for (const [pointer, entry] of Object.entries(readTranslations(locale, basename(path)) ?? {})) {
        const translated = entry[locale];
        if (typeof entry.en !== 'string' || typeof translated !== 'string' || translated === '') continue;
        // Made from English that has changed since (stale): the answer stays in today's English.
        if (textAt(english, pointer) !== entry.en) continue;
        lookup.exact.set(entry.en, translated);
        const names = placeholdersIn(entry.en);
        if (names.length === 0) continue;
        const pattern = entry.en.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\\\{[\w.]+\\\}/g, '(.+?)');
        lookup.templates.push({ pattern: new RegExp(`^${pattern}$`, 'su'), names, translated });
      }
    }
    lookups.set(locale, lookup);
  }
  return lookup;
}

/** An English answer in `locale`: its translation, with its placeholders' values carried over; as it is when it has none. */
export function answerIn(locale: Locale, text: string): string {
  if (locale === DEFAULT_LOCALE) return text;
  const lookup = lookupFor(locale);
  const exact = lookup.exact.get(text);
  if (exact !== undefined) return exact;
  for (const { pattern, names, translated } of lookup.templates) {
    const match = pattern.exec(text);
    if (match) return fillPlaceholders(translated, Object.fromEntries(names.map((name, i) => [name, match[i + 1]])));
  }
  return text;
}
