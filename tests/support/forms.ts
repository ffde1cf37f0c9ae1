/**
 * `virtual:forms` for the component tests (vitest.config.ts points the import here): each form
 * as the build makes it (its schema, its UI schema and its precompiled validator), read from
 * schemas/ instead of bundled.
 */
import type { RJSFSchema } from '@rjsf/utils';
import type { FormModule } from 'virtual:forms';
import { loadSchema, loadUiSchema } from '../../src/node/projectFiles.js';
import { precompiledValidateFns } from '../../src/node/precompiledValidators.js';

export async function loadForm(name: string): Promise<FormModule> {
  const schema = loadSchema(name);
  return { schema: schema as RJSFSchema, uiSchema: loadUiSchema(name), validateFns: precompiledValidateFns(schema) };
}
