import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createDataCipher } from '../../../src/server/lib/dataCipher.js';

describe('the data cipher', () => {
  const cipher = createDataCipher(randomBytes(32));

  it('round-trips and never repeats a ciphertext', () => {
    const a = cipher.encrypt('123456789', 'ssn:x');
    expect(cipher.decrypt(a, 'ssn:x').toString()).toBe('123456789');
    expect(cipher.encrypt('123456789', 'ssn:x').equals(a)).toBe(false);
  });

  it('detects a changed byte', () => {
    const sealed = cipher.encrypt('123456789', 'ssn:x');
    sealed[14]! ^= 1;
    expect(() => cipher.decrypt(sealed, 'ssn:x')).toThrow();
  });

  it('cannot be read with another key', () => {
    const sealed = cipher.encrypt('123456789', 'ssn:x');
    expect(() => createDataCipher(randomBytes(32)).decrypt(sealed, 'ssn:x')).toThrow();
  });
});
