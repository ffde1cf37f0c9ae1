import { describe, expect, it } from 'vitest';
import { answerFor } from '../../src/server/errors.js';

describe('answerFor', () => {
  it('hides the details of anything unexpected', () => {
    expect(answerFor(new TypeError('secret'), 'Something went wrong.')).toEqual({ statusCode: 500, body: { message: 'Something went wrong.' } });
  });
  it('keeps a 4xx from a plugin a 4xx, in our words', () => {
    expect(answerFor(Object.assign(new Error('reach files limit'), { statusCode: 413, code: 'FST_FILES_LIMIT' }), 'Something went wrong.')).toEqual({
      statusCode: 413,
      body: { message: 'Too many files were sent with this form.' },
    });
  });
});
