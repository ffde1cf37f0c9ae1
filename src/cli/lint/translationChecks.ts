/**
 * The translations (locales/<language>/<file>): every text of every file with copy translated,
 * none made from English that has changed since, the same {placeholders} as the English's, and
 * none of a text that is gone. A problem is reported in the translation file, at the text's
 * pointer, so the fix is made where it is read. A translation still to write (missing, or made
 * from English since changed) is a warning: drivers read that text in English until it is
 * written, so an urgent English edit never waits for a translator.
 */
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { copyPointers } from '../../shared/copy.js';
import { type Locale, type Translations, TRANSLATED_LOCALES, translationFileOf, translationProblems } from '../../shared/locales.js';
import { RJSF_ENGLISH, RJSF_STRINGS_FILE } from '../../shared/rjsfStrings.js';
import { isObject, type JsonObject } from '../../shared/schemaFiles.js';
import { parseJsonObject, readProjectFile } from './jsonFiles.js';
import { pointer, type Problems } from './problems.js';

/** A file with copy, and the JSON Schema whose `"copy": true` marks its texts. */
export interface CopySource {
  file: string;
  schema: string;
}

/**
 * The files operations staff write copy in: each step and UI schema of schemas/ (described by
 * `stepSchema` and `uiSchema`), and the data files named with their own (the flow, the notices…).
 */
export function copySources(root: string, { stepSchema, uiSchema }: { stepSchema: string; uiSchema: string }, dataFiles: CopySource[]): CopySource[] {
  const schemas = readdirSync(join(root, 'schemas'))
    .filter((name) => name.endsWith('.schema.json') || name.endsWith('.ui.json'))
    .sort()
    .map((name) => ({ file: `schemas/${name}`, schema: name.endsWith('.ui.json') ? uiSchema : stepSchema }));
  return [...schemas, ...dataFiles];
}

/** A translation file's entries (its "$comment" left out). */
export function entriesOf(file: JsonObject): Translations {
  return Object.fromEntries(Object.entries(file).filter(([key, value]) => !key.startsWith('$') && isObject(value))) as Translations;
}

/**
 * Checks the translations of each source, in each language. `read` gives a source file and its
 * describing schema, parsed (undefined when it is broken: its own problem is reported already).
 */
export function checkTranslations(
  root: string,
  sources: CopySource[],
  read: (file: string) => JsonObject | undefined,
  problems: Problems,
  locales: readonly Locale[] = TRANSLATED_LOCALES,
): void {
  for (const { file, schema } of sources) {
    const source = read(file);
    const describing = read(schema);
    if (source && describing)
      checkFileTranslations(root, { about: file, fileName: basename(file) }, source, copyPointers(source, describing), problems, locales);
  }
  // rjsf's own strings: their English is rjsf's.
  checkFileTranslations(root, { about: "rjsf's strings", fileName: RJSF_STRINGS_FILE }, RJSF_ENGLISH, rjsfCopy(), problems, locales);
}

/** rjsf's strings as copy: each by its key. */
export const rjsfCopy = () => Object.keys(RJSF_ENGLISH).map((key) => pointer(key));

/** One source's translations in each language: `about` names the source, `fileName` its translations' file, `copy` its texts. */
function checkFileTranslations(
  root: string,
  { about, fileName }: { about: string; fileName: string },
  source: JsonObject,
  copy: string[],
  problems: Problems,
  locales: readonly Locale[],
): void {
  if (copy.length === 0) return;
  for (const locale of locales) {
    const translationFile = translationFileOf(locale, fileName);
    const text = readProjectFile(root, translationFile);
    if (text === undefined) {
      // Translations are optional content: without the file its texts are shown in English.
      problems.warn(
        translationFile,
        '/',
        `file not found: ${about} has ${copy.length} texts to translate, shown in English meanwhile`,
        'run npm run locales, then write each text',
      );
      continue;
    }
    const translations = parseJsonObject(translationFile, text, problems);
    if (!translations) continue;
    for (const problem of translationProblems(source, copy, entriesOf(translations), locale)) {
      // At the entry's key that needs the fix; an entry that is missing altogether, at the file.
      const at = Object.hasOwn(translations, problem.entry) ? pointer(problem.entry, ...(problem.key ? [problem.key] : [])) : '/';
      // One still to write blocks no English edit: the text is shown in English until it is written.
      if (problem.toWrite) problems.warn(translationFile, at, problem.what, problem.fix);
      else problems.add(translationFile, at, problem.what, problem.fix);
    }
  }
}
