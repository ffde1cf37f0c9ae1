/**
 * The forms' modules: each form schema of the flow, in each language, with its UI schema and its
 * precompiled validator, so no Ajv compiler and no eval reach the browser; and the loader the
 * client imports them by (`virtual:forms`).
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GENERATED } from './paths.js';
import { type RjsfPart, rjsfPartsCalledFor } from './rjsfParts.js';
import { precompiledValidatorsCode } from '../precompiledValidators.js';
import { filesReadBy, loadSchema, loadUiSchema, textOf } from '../projectFiles.js';
import { DEFAULT_LOCALE, LOCALES, type Locale } from '../../shared/locales.js';

/** What generateForms made: the loader's code, and the optional parts of rjsf some form calls for. */
export interface GeneratedForms {
  loader: string;
  rjsfParts: ReadonlySet<RjsfPart>;
}

/**
 * Each form module as last generated: the files it was made from, with their texts, its schema
 * and UI schema, and the parts of rjsf it calls for. A rebuild makes again only the modules whose
 * files changed, and compiles and writes only those whose schemas did.
 */
const generatedFrom = new Map<string, { files: Map<string, string | undefined>; source: string; rjsfParts: RjsfPart[] }>();
const unchanged = (files: Map<string, string | undefined>) => [...files].every(([path, text]) => textOf(path) === text);

/** What a generated loader (this one, devForms.ts's) answers for a form the flow does not have, as code. */
export const NO_SUCH_FORM = `Promise.reject(new Error('No form "' + name + '" in "' + locale + '"'))`;

/** A form's module in a language: "profile", "profile.es". */
export const formModuleOf = (name: string, locale: Locale) => (locale === DEFAULT_LOCALE ? name : `${name}.${locale}`);

/** Writes build/generated/forms/<name>[.<locale>].js (schema + UI schema + validator) for each form, in each language. */
export async function generateForms(names: string[]): Promise<GeneratedForms> {
  if (generatedFrom.size === 0) {
    await rm(GENERATED, { recursive: true, force: true });
    await mkdir(join(GENERATED, 'forms'), { recursive: true });
  }
  for (const name of names) {
    for (const locale of Object.keys(LOCALES) as Locale[]) {
      const module = formModuleOf(name, locale);
      const before = generatedFrom.get(module);
      if (before && unchanged(before.files)) continue;
      const {
        made: [schema, uiSchema],
        files,
      } = filesReadBy(() => [loadSchema(name, locale), loadUiSchema(name, locale)] as const);
      const source = JSON.stringify([schema, uiSchema]);
      if (before?.source !== source) {
        await writeFile(join(GENERATED, 'forms', `${module}.validators.cjs`), precompiledValidatorsCode(schema));
        await writeFile(
          join(GENERATED, 'forms', `${module}.js`),
          `import validateFns from './${module}.validators.cjs';\n` +
            `export const schema = ${JSON.stringify(schema)};\n` +
            `export const uiSchema = ${JSON.stringify(uiSchema)};\n` +
            `export { validateFns };\n`,
        );
      }
      generatedFrom.set(module, { files, source, rjsfParts: rjsfPartsCalledFor(schema, uiSchema) });
    }
  }
  const rjsfParts = new Set(
    names.flatMap((name) => (Object.keys(LOCALES) as Locale[]).flatMap((locale) => generatedFrom.get(formModuleOf(name, locale))?.rjsfParts ?? [])),
  );
  const cases = names
    .flatMap((name) =>
      (Object.keys(LOCALES) as Locale[]).map(
        (locale) => `    case ${JSON.stringify(`${name}\n${locale}`)}: return import('./forms/${formModuleOf(name, locale)}.js');`,
      ),
    )
    .join('\n');
  const loader =
    `export function loadForm(name, locale = ${JSON.stringify(DEFAULT_LOCALE)}) {\n  switch (name + '\\n' + locale) {\n${cases}\n    default: return ${NO_SUCH_FORM};\n  }\n}\n` +
    // Bundled with the app: one version of each.
    `export const formVersion = () => '';\n`;
  return { loader, rjsfParts };
}
