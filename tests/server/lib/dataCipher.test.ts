import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createDataCipher, type DataKey } from '../../../src/server/lib/dataCipher.js';

const keyA: DataKey = { id: '0', key: randomBytes(32) };
const keyB: DataKey = { id: 'b', key: randomBytes(32) };

/** A ciphertext as the server sealed it before keys had ids: iv | ciphertext | tag, nothing before. */
function legacySealed(key: Buffer, plain: string, context: string, iv = randomBytes(12)): Buffer {
  const encryptionKey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'onramp:encryption', 32));
  const cipher = createCipheriv('aes-256-gcm', encryptionKey, iv);
  cipher.setAAD(Buffer.from(context));
  return Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
}

describe('the data cipher', () => {
  const cipher = createDataCipher([keyA]);

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
    expect(cipher.keyIdOf(sealed, 'upload:x')).toBe('0');
    expect(() => cipher.decrypt(sealed, 'upload:y')).toThrow();
  });

  it('detects a changed byte', () => {
    const sealed = cipher.encrypt('123456789', 'ssn:x');
    sealed[14]! ^= 1;
    expect(() => cipher.decrypt(sealed, 'ssn:x')).toThrow();
  });

  it('cannot be read with another key of the same id', () => {
    const sealed = cipher.encrypt('123456789', 'ssn:x');
    expect(() => createDataCipher([{ id: '0', key: randomBytes(32) }]).decrypt(sealed, 'ssn:x')).toThrow();
  });
});

describe('the data keys', () => {
  it('names the current key in a header: version 1, the id, then iv | ciphertext | tag', () => {
    const sealed = createDataCipher([keyB, keyA]).encrypt('123456789', 'ssn:x');
    expect([...sealed.subarray(0, 3)]).toEqual([1, 1, 'b'.charCodeAt(0)]);
    expect(sealed.length).toBe(3 + 12 + 9 + 16);
  });

  it('opens what an older key sealed, with or without a header, by the key it names', () => {
    const underA = createDataCipher([keyA]).encrypt('123456789', 'ssn:x');
    const legacy = legacySealed(keyA.key, '987654321', 'ssn:x');
    const rotated = createDataCipher([keyB, keyA]);
    expect(rotated.decrypt(underA, 'ssn:x').toString()).toBe('123456789');
    expect(rotated.decrypt(legacy, 'ssn:x').toString()).toBe('987654321');
    expect(rotated.keyIdOf(legacy, 'ssn:x')).toBe('0');
    expect(rotated.keyIdOf(rotated.encrypt('1', 'ssn:x'), 'ssn:x')).toBe('b');
  });

  it('reads a legacy ciphertext whose random iv begins like a header naming a key it holds', () => {
    const iv = Buffer.concat([Buffer.from([1, 1]), Buffer.from('b'), randomBytes(9)]);
    const legacy = legacySealed(keyA.key, '123456789', 'ssn:x', iv);
    expect(createDataCipher([keyB, keyA]).decrypt(legacy, 'ssn:x').toString()).toBe('123456789');
  });

  it('says which key is missing when a ciphertext names one the ring does not hold', () => {
    const underB = createDataCipher([keyB]).encrypt('123456789', 'ssn:x');
    expect(() => createDataCipher([keyA]).decrypt(underB, 'ssn:x')).toThrow('This data was encrypted with data key "b", which DATA_KEYS does not hold.');
    const legacy = legacySealed(keyA.key, 'x', 'ctx');
    expect(() => createDataCipher([keyB]).decrypt(legacy, 'ctx')).toThrow('This data was encrypted with data key "0", which DATA_KEYS does not hold.');
  });

  it('hashes under the current key and checks a hash made under any key of the ring', () => {
    const old = createDataCipher([keyA]);
    const rotated = createDataCipher([keyB, keyA]);
    expect(rotated.codeHash('1234')).not.toBe(old.codeHash('1234'));
    expect(rotated.codeHashes('1234')).toEqual([rotated.codeHash('1234'), old.codeHash('1234')]);
    expect(rotated.fingerprints('x', 'c')).toEqual([rotated.fingerprint('x', 'c'), old.fingerprint('x', 'c')]);
  });
});
