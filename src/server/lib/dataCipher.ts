/**
 * Encryption at rest for what the spec collects that must not leak: SSNs and identity
 * documents (AES-256-GCM, so a changed byte is detected), and keyed hashes of one-time codes and
 * of sensitive answers.
 * Each use gets its own key derived from DATA_KEY, so one purpose can never decrypt another's data.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface DataCipher {
  /** iv | ciphertext | tag. `context` (e.g. "ssn:<driver id>") is bound as associated data. */
  encrypt(plain: Buffer | string, context: string): Buffer;
  /** The same sealing of bytes read as they come: a large file is never whole in memory. */
  encryptStream(plain: AsyncIterable<Buffer>, context: string): AsyncGenerator<Buffer>;
  /** Throws if the data or its context was changed. */
  decrypt(sealed: Uint8Array, context: string): Buffer;
  /** Keyed hash (hex) of a sensitive value in its context: equal values compare equal, nothing else shows. */
  fingerprint(text: string, context: string): string;
  /** Keyed hash (hex) of a one-time code and what it is for. */
  codeHash(text: string): string;
  /** Constant-time comparison of two hex hashes. */
  sameHash(a: string, b: string): boolean;
}

const derive = (dataKey: Buffer, purpose: string) => Buffer.from(hkdfSync('sha256', dataKey, Buffer.alloc(0), `onramp:${purpose}`, 32));

export function createDataCipher(dataKey: Buffer): DataCipher {
  if (dataKey.length !== 32) throw new Error('The data key must be 32 bytes.');
  const encryptionKey = derive(dataKey, 'encryption');
  const codeKey = derive(dataKey, 'one-time-codes');
  const fingerprintKey = derive(dataKey, 'fingerprints');
  return {
    encrypt(plain, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', encryptionKey, iv);
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(typeof plain === 'string' ? Buffer.from(plain) : plain), cipher.final()]);
      return Buffer.concat([iv, body, cipher.getAuthTag()]);
    },
    async *encryptStream(plain, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', encryptionKey, iv);
      cipher.setAAD(Buffer.from(context));
      yield iv;
      for await (const chunk of plain) yield cipher.update(chunk);
      yield Buffer.concat([cipher.final(), cipher.getAuthTag()]);
    },
    decrypt(sealed, context) {
      const bytes = Buffer.from(sealed);
      if (bytes.length < IV_BYTES + TAG_BYTES) throw new Error('Encrypted data is too short.');
      const decipher = createDecipheriv('aes-256-gcm', encryptionKey, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
    },
    fingerprint: (text, context) => createHmac('sha256', fingerprintKey).update(`${context}\n${text}`).digest('hex').slice(0, 32),
    codeHash: (text) => createHmac('sha256', codeKey).update(text).digest('hex'),
    sameHash(a, b) {
      const left = Buffer.from(a, 'hex');
      const right = Buffer.from(b, 'hex');
      return left.length === right.length && timingSafeEqual(left, right);
    },
  };
}
