import { describe, expect, it } from 'vitest';
import { loadSchema, loadUiSchema } from '../../src/node/projectFiles.js';
import { ruleValuesOf, schemaWithRuleValues, uiWithRuleValues } from '../../src/shared/ruleValues.js';

const schema = {
  type: 'object',
  required: ['code'],
  properties: {
    code: {
      type: 'string',
      minLength: 4,
      maxLength: 6,
      errorMessage: { minLength: 'At least {minLength} characters', maxLength: 'At most {maxLength}, not {limit}' },
    },
    note: { type: 'string', errorMessage: { type: 'No rule: {minLength}' } },
  },
  errorMessage: { required: { code: 'Enter the {minLength}-character code' } },
};

describe('a text showing its rule’s value', () => {
  it('reads the numbers of a field’s rules', () => {
    expect(ruleValuesOf(schema.properties.code)).toEqual({ minLength: 4, maxLength: 6 });
  });

  it('fills a field’s messages and its required message from its own rules, and leaves an error’s values for later', () => {
    const filled = schemaWithRuleValues(schema) as typeof schema;
    expect(filled.properties.code.errorMessage).toEqual({ minLength: 'At least 4 characters', maxLength: 'At most 6, not {limit}' });
    expect(filled.properties.note.errorMessage.type).toBe('No rule: {minLength}');
    expect(filled.errorMessage.required.code).toBe('Enter the 4-character code');
  });

  it('fills a field’s UI texts from that field’s rules only', () => {
    const ui = { 'ui:title': 'Code {minLength}', code: { 'ui:placeholder': '{minLength} to {maxLength} letters' } };
    expect(uiWithRuleValues(ui, schema)).toEqual({ 'ui:title': 'Code {minLength}', code: { 'ui:placeholder': '4 to 6 letters' } });
  });

  it('gives drivers the shipped words: the bank step says 12 and 17', () => {
    const bank = loadSchema('bank') as { properties: { accountNumber: { errorMessage: Record<string, string> } } };
    expect(bank.properties.accountNumber.errorMessage.minLength).toBe('Account Number must be minimum 12 characters long.');
    expect((loadUiSchema('bank').accountNumber as Record<string, string>)['ui:placeholder']).toBe('12 to 17 digits');
  });
});
