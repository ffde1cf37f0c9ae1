import { randomUUID } from 'node:crypto';
import Ajv from 'ajv';
import { afterEach, describe, expect, it, vi } from 'vitest';

/** A schema no other run compiled: a regular expression's format, a length and our message, under a fresh comment. */
const freshSchema = () => ({
  type: 'object',
  properties: { pattern: { type: 'string', format: 'regex' }, code: { type: 'string', maxLength: 3 } },
  errorMessage: { properties: { code: 'Three characters at most' } },
  $comment: `lintCache.test ${randomUUID()}`,
});

/** The cache's module as a new lint process loads it: nothing compiled in memory yet. */
async function freshLint() {
  vi.resetModules();
  return import('../../src/cli/lint/compiled.js');
}

describe("the lint's validators", () => {
  afterEach(() => vi.restoreAllMocks());

  it('are compiled by the first lint only: the next reads them and judges as Ajv does', async () => {
    const schema = freshSchema();
    const compile = vi.spyOn(Ajv.prototype, 'compile');
    (await freshLint()).compileCached(schema);
    expect(compile).toHaveBeenCalledWith(schema);

    compile.mockClear();
    const validate = (await freshLint()).compileCached(structuredClone(schema));
    expect(compile).not.toHaveBeenCalledWith(schema);
    expect(validate({ pattern: '[a-z]+', code: 'abc' })).toBe(true);
    expect(validate({ pattern: '\\-', code: 'abcd' })).toBe(false);
    expect(validate.errors?.map((error) => [error.instancePath, error.message])).toEqual([
      ['/pattern', 'must match format "regex"'],
      ['/code', 'Three characters at most'],
    ]);
  });

  it('are compiled again for a changed schema, and a refused one is refused each time', async () => {
    const schema = freshSchema();
    (await freshLint()).compileCached(schema);
    const compile = vi.spyOn(Ajv.prototype, 'compile');
    const changed = { ...schema, properties: { ...schema.properties, code: { type: 'string', maxLength: 4 } } };
    expect((await freshLint()).compileCached(changed)({ code: 'abcd' })).toBe(true);
    expect(compile).toHaveBeenCalledWith(changed);

    const refused = { ...freshSchema(), maxProperties: 'ten' };
    for (const lint of [await freshLint(), await freshLint()]) {
      expect(() => lint.compileCached(refused)).toThrow('schema is invalid: data/maxProperties must be integer');
    }
  });
});
