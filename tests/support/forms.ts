/**
 * `virtual:forms` for the component tests (vitest.config.ts points the import here): each form
 * as the build makes it (its schema, its UI schema and its precompiled validator), read from
 * schemas/ instead of bundled.
 */
import type { RJSFSchema } from '@rjsf/utils';
import type { FormModule } from 'virtual:forms';
import { loadSchema, loadUiSchema } from '../../src/node/projectFiles.js';
import { precompiledValidateFns } from '../../src/node/precompiledValidators.js';
import { DEFAULT_LOCALE, isLocale } from '../../src/shared/locales.js';

export async function loadForm(name: string, locale: string = DEFAULT_LOCALE): Promise<FormModule> {
  const language = isLocale(locale) ? locale : DEFAULT_LOCALE;
  const schema = loadSchema(name, language);
  return { schema: schema as RJSFSchema, uiSchema: loadUiSchema(name, language), validateFns: precompiledValidateFns(schema) };
}

/** Each form as schemas/ holds it: one version of each. */
export const formVersion = (): string => '';
