// `npm run locales`: brings each language's translation files (locales/<language>/) in line with
// the files they translate. A new text gets an entry with its English and an empty translation to
// write; a text that is gone loses its entry; every translation written stays as it is, a stale
// one included (the lint names it, with the English it was made from). Entries follow the order
// of the texts in their file. Run it after adding or removing copy; `npm run lint:schemas` then
// lists what is left to translate.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CONTENT_ROOT } from '../node/projectFiles.js';
import { textAt, TRANSLATED_LOCALES, translationFileOf, LOCALES, type Translation } from '../shared/locales.js';
import type { JsonObject } from '../shared/schemaFiles.js';
import { RJSF_ENGLISH, RJSF_STRINGS_FILE } from '../shared/rjsfStrings.js';
import { copyPointers } from '../shared/copy.js';
import { entriesOf, rjsfCopy } from './lint/translationChecks.js';
import { copySourcesAt } from './lintProject.js';

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as JsonObject;

/** Writes the translation files under `root`; answers a line per file it changed. */
export function updateTranslationFiles(root: string): string[] {
  const sources = copySourcesAt(root).map(({ file, schema }) => {
    const source = readJson(join(root, file));
    return { about: file, fileName: basename(file), source, copy: copyPointers(source, readJson(join(root, schema))) };
  });
  // rjsf's own strings, whose English is rjsf's.
  sources.push({ about: "rjsf's strings", fileName: RJSF_STRINGS_FILE, source: RJSF_ENGLISH, copy: rjsfCopy() });
  const changed: string[] = [];
  for (const { about, fileName, source, copy } of sources) {
    if (copy.length === 0) continue;
    for (const locale of TRANSLATED_LOCALES) {
      const path = join(root, translationFileOf(locale, fileName));
      const before = existsSync(path) ? readJson(path) : {};
      const entries = entriesOf(before);
      const next: Record<string, unknown> = {
        $comment: `The ${LOCALES[locale]} (${locale}) of ${about}: by the JSON pointer of each text, the English it was translated from ("en") and its translation ("${locale}"). npm run locales adds new texts and removes gone ones; docs/authoring.md tells how to translate.`,
      };
      for (const pointer of copy) {
        const english = textAt(source, pointer) ?? '';
        next[pointer] = entries[pointer] ?? ({ en: english, [locale]: '' } satisfies Translation);
      }
      const text = `${JSON.stringify(next, null, 2)}\n`;
      if (!existsSync(path) || readFileSync(path, 'utf8') !== text) {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, text);
        const added = copy.filter((pointer) => !entries[pointer]).length;
        const removed = Object.keys(entries).filter((pointer) => !copy.includes(pointer)).length;
        changed.push(`${translationFileOf(locale, fileName)}: ${added} new, ${removed} removed`);
      }
    }
  }
  return changed;
}

if (process.argv[1] && import.meta.url.endsWith(basename(process.argv[1]))) {
  const changed = updateTranslationFiles(process.argv[2] ?? CONTENT_ROOT);
  for (const line of changed) console.log(line);
  console.log(changed.length ? `${changed.length} translation files updated` : 'the translation files are up to date');
}
