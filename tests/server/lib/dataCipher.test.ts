import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createDataCipher } from '../../../src/server/lib/dataCipher.js';

describe('the data cipher', () => {
  const cipher = createDataCipher(randomBytes(32));

  it('round-trips and never repeats a ciphertext', () => {
    const a = cipher.encrypt('123456789', 'ssn:x');
    expect(cipher.decrypt(a, 'ssn:x').toString()).toBe('123456789');
    expect(cipher.encrypt('123456789', 'ssn:x').equals(a)).toBe(false);
  });

  it('seals a stream of chunks as it seals the whole: the same reading opens it', async () => {
    const plain = randomBytes(200_000);
    const chunks = [plain.subarray(0, 65_536), plain.subarray(65_536, 131_072), plain.subarray(131_072)];
    const sealed = Buffer.concat(await Readable.from(cipher.encryptStream(Readable.from(chunks), 'upload:x')).toArray());
    expect(cipher.decrypt(sealed, 'upload:x').equals(plain)).toBe(true);
    expect(() => cipher.decrypt(sealed, 'upload:y')).toThrow();
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
