import { afterEach, describe, expect, it, vi } from 'vitest';
import { compileOnce, sharedAjv } from '../../src/shared/ajv.js';

/** A schema no other test compiles: each test starts with nothing cached for it. */
const schemaWith = (maxLength: number) => ({ type: 'string', maxLength, $comment: `compileOnce.test ${maxLength}` });

describe('compileOnce', () => {
  afterEach(() => vi.restoreAllMocks());

  it('compiles the same content once, whichever copy of it is asked for', () => {
    const compile = vi.spyOn(sharedAjv(), 'compile');
    const first = compileOnce(schemaWith(3));
    const again = compileOnce(structuredClone(schemaWith(3)));
    expect(again).toBe(first);
    expect(compile).toHaveBeenCalledTimes(1);
    expect(first('abcd')).toBe(false);
  });

  it('compiles a changed content again, and judges by the change', () => {
    const compile = vi.spyOn(sharedAjv(), 'compile');
    const before = compileOnce(schemaWith(5));
    const changed = compileOnce(schemaWith(6));
    expect(changed).not.toBe(before);
    expect(compile).toHaveBeenCalledTimes(2);
    expect([before('abcdef'), changed('abcdef')]).toEqual([false, true]);
  });

  it('keeps a strict compile apart from a lenient one of the same content', () => {
    const lenient = compileOnce(schemaWith(7));
    const strict = compileOnce(schemaWith(7), { strict: true });
    expect(strict).not.toBe(lenient);
    expect(sharedAjv({ strict: true })).not.toBe(sharedAjv());
  });

  it('answers Ajv’s refusal each time for a schema it refuses, without compiling it again', () => {
    const refused = { type: 'string', maxLength: 'ten', $comment: 'compileOnce.test refused' };
    const compile = vi.spyOn(sharedAjv(), 'compile');
    expect(() => compileOnce(refused)).toThrow('schema is invalid: data/maxLength must be integer');
    expect(() => compileOnce(structuredClone(refused))).toThrow('schema is invalid: data/maxLength must be integer');
    expect(compile).toHaveBeenCalledTimes(1);
  });
});
