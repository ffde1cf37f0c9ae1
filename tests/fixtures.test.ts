// The fixture payloads under tests/fixtures/ against the browser's precompiled validator (the
// code `npm run build` generates) and the shared validator the server and the CLI use: both
// must give exactly the messages each fixture lists.
import { createPrecompiledValidator } from '@rjsf/validator-ajv8';
import type { RJSFSchema } from '@rjsf/utils';
import { describe, expect, it } from 'vitest';
import { compareMessages, firstMessages, listFixtures, schemaMessages } from '../src/cli/fixtures.js';
import { expandErrors, fieldOf } from '../src/shared/errors.js';

const fixtures = listFixtures();

async function browserMessages(schemaName: string, formData: Record<string, unknown>): Promise<Record<string, string>> {
  const form = (await import(`../build/generated/forms/${schemaName}.js`)) as { schema: RJSFSchema; validateFns: never };
  const validator = createPrecompiledValidator(form.validateFns, form.schema);
  const { errors } = validator.validateFormData(formData, form.schema, undefined, (e) => expandErrors(e));
  const byField: Record<string, string[]> = {};
  for (const error of errors) (byField[fieldOf(error.property)] ??= []).push(error.message ?? '');
  return firstMessages(byField);
}

describe('fixture payloads', () => {
  it('include at least 20 bad payloads', () => {
    expect(fixtures.filter((f) => !f.valid).length).toBeGreaterThanOrEqual(20);
  });

  describe.each(fixtures.map((f) => [f.file, f] as const))('%s', (_file, fixture) => {
    it(`${fixture.valid ? 'passes' : 'fails'} the shared validator${fixture.valid ? '' : ' with its messages'}`, () => {
      expect(compareMessages(fixture.errors, schemaMessages(fixture.schema, fixture.formData))).toEqual([]);
    });

    it(`${fixture.valid ? 'passes' : 'fails'} the browser’s precompiled validator${fixture.valid ? '' : ' with the same messages'}`, async () => {
      expect(compareMessages(fixture.errors, await browserMessages(fixture.schema, fixture.formData))).toEqual([]);
    });
  });
});
