import { describe, expect, it } from 'vitest';
import { createAjv } from '../../src/shared/ajv.js';
import { expandErrors, fromAjvErrors, messagesByField } from '../../src/shared/errors.js';
import { fillPlaceholders } from '../../src/shared/placeholders.js';
import { loadSchema } from '../../src/node/projectFiles.js';

describe('expandErrors', () => {
  it('moves an object-level required message onto the missing field', () => {
    const [error] = expandErrors([
      {
        name: 'errorMessage',
        property: '',
        message: 'Please enter your email',
        params: { errors: [{ keyword: 'required', params: { missingProperty: 'email' } }] },
        stack: ' Please enter your email',
      },
    ]);
    expect(error).toMatchObject({ property: 'email', message: 'Please enter your email' });
  });

  it('fills {min} and {max} from the replaced error', () => {
    const [error] = expandErrors([
      {
        name: 'errorMessage',
        property: '.modelYear',
        message: 'Year must be between {min} and {max}',
        params: { errors: [{ keyword: 'yearWithin', params: { min: 1926, max: 2027 } }] },
        stack: '',
      },
    ]);
    expect(error?.message).toBe('Year must be between 1926 and 2027');
  });

  it('leaves other errors as they are', () => {
    const error = { name: 'format', property: '.email', message: 'must match format "email"', stack: '' };
    expect(expandErrors([error])).toEqual([error]);
  });
});

describe('fillPlaceholders', () => {
  it('keeps a placeholder it has no value for', () => {
    expect(fillPlaceholders('between {min} and {max}', { min: 1 })).toBe('between 1 and {max}');
  });
});

describe('messagesByField with the sign-up schema', () => {
  it('gives each field its own required message', () => {
    const validate = createAjv().compile(loadSchema('signup'));
    validate({});
    const messages = messagesByField(fromAjvErrors(validate.errors ?? []));
    expect(messages.email).toEqual(['Please enter your email']);
    expect(messages.confirmPassword).toEqual(['Please confirm your password']);
    expect(messages['']).toBeUndefined();
  });
});
