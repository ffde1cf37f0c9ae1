/**
 * Encryption at rest for what the spec collects that must not leak: SSNs and identity
 * documents (AES-256-GCM, so a changed byte is detected), and keyed hashes of one-time codes and
 * of sensitive answers.
 * Each use gets its own key derived from a data key, so one purpose can never decrypt another's data.
 *
 * The data keys are a ring: the first makes everything new, the others only read what they made,
 * so a key can be replaced (docs/keys.md). A ciphertext names its key in a header:
 *   0x01 | id length | id (ASCII) | iv | ciphertext | tag
 * Data sealed before keys had ids (iv | ciphertext | tag) was made by the key with id LEGACY_KEY_ID.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const FORMAT_VERSION = 1;
/** The id of the key DATA_KEY sets, which made every ciphertext that has no header. */
export const LEGACY_KEY_ID = '0';
/** What a key id may be: short, and safe in a header, a log line and a setting. */
export const KEY_ID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

export interface DataKey {
  id: string;
  /** 32 bytes. */
  key: Buffer;
}

/** A ciphertext that names a key the ring does not hold: said plainly, so the operator knows which key to put back. */
export class UnknownDataKeyError extends Error {
  constructor(readonly keyId: string) {
    super(`This data was encrypted with data key "${keyId}", which DATA_KEYS does not hold.`);
    this.name = 'UnknownDataKeyError';
  }
}

export interface DataCipher {
  /** The id of the key everything new is sealed with. */
  readonly currentKeyId: string;
  /** The ids of the keys the ring holds, the current one first. */
  readonly keyIds: readonly string[];
  /** header | iv | ciphertext | tag. `context` (e.g. "ssn:<driver id>") is bound as associated data. */
  encrypt(plain: Buffer | string, context: string): Buffer;
  /** The same sealing of bytes read as they come: a large file is never whole in memory. */
  encryptStream(plain: AsyncIterable<Buffer>, context: string): AsyncGenerator<Buffer>;
  /** Opens data sealed by any key of the ring. Throws if the data or its context was changed, or its key is not held. */
  decrypt(sealed: Uint8Array, context: string): Buffer;
  /** The id of the key that sealed this data (it is opened to be sure). */
  keyIdOf(sealed: Uint8Array, context: string): string;
  /** Keyed hash (hex) of a sensitive value in its context, under the current key: equal values compare equal, nothing else shows. */
  fingerprint(text: string, context: string): string;
  /** The value's fingerprint under every key of the ring, current first: to find or check one made before a rotation. */
  fingerprints(text: string, context: string): string[];
  /** Keyed hash (hex) of a one-time code and what it is for, under the current key. */
  codeHash(text: string): string;
  /** The code's hash under every key of the ring, current first. */
  codeHashes(text: string): string[];
  /** Constant-time comparison of two hex hashes. */
  sameHash(a: string, b: string): boolean;
}

const derive = (dataKey: Buffer, purpose: string) => Buffer.from(hkdfSync('sha256', dataKey, Buffer.alloc(0), `onramp:${purpose}`, 32));

interface DerivedKeys {
  id: string;
  header: Buffer;
  encryption: Buffer;
  codes: Buffer;
  fingerprints: Buffer;
}

const headerOf = (id: string) => Buffer.concat([Buffer.from([FORMAT_VERSION, id.length]), Buffer.from(id, 'ascii')]);

/** The key id a header names, or null when the bytes have none (a legacy ciphertext). */
function headerKeyId(bytes: Buffer): string | null {
  if (bytes.length < 2 || bytes[0] !== FORMAT_VERSION) return null;
  const id = bytes.subarray(2, 2 + (bytes[1] ?? 0)).toString('ascii');
  return KEY_ID_PATTERN.test(id) && bytes.length >= 2 + id.length + IV_BYTES + TAG_BYTES ? id : null;
}

function open(key: Buffer, bytes: Buffer, context: string): Buffer {
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new Error('Encrypted data is too short.');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
}

/** A cipher over a ring of keys, the first current. */
export function createDataCipher(keys: readonly DataKey[]): DataCipher {
  if (keys.length === 0) throw new Error('At least one data key is needed.');
  const ring: DerivedKeys[] = keys.map(({ id, key }) => {
    if (!KEY_ID_PATTERN.test(id)) throw new Error(`The data key id "${id}" is not 1 to 32 letters, digits, "-" or "_".`);
    if (key.length !== 32) throw new Error('The data key must be 32 bytes.');
    return { id, header: headerOf(id), encryption: derive(key, 'encryption'), codes: derive(key, 'one-time-codes'), fingerprints: derive(key, 'fingerprints') };
  });
  if (new Set(ring.map((k) => k.id)).size !== ring.length) throw new Error('Each data key needs its own id.');
  const current = ring[0] as DerivedKeys;
  const byId = new Map(ring.map((k) => [k.id, k]));
  const legacy = byId.get(LEGACY_KEY_ID);

  /** The plain bytes and the id of the key that opened them. */
  function unseal(sealed: Uint8Array, context: string): { plain: Buffer; keyId: string } {
    const bytes = Buffer.from(sealed);
    const named = headerKeyId(bytes);
    const key = named === null ? undefined : byId.get(named);
    if (named !== null && key) {
      try {
        return { plain: open(key.encryption, bytes.subarray(key.header.length), context), keyId: key.id };
      } catch (error) {
        // A legacy ciphertext's random iv can begin like a header: the legacy key decides.
        if (!legacy) throw error;
      }
    }
    if (!legacy) throw new UnknownDataKeyError(named ?? LEGACY_KEY_ID);
    try {
      return { plain: open(legacy.encryption, bytes, context), keyId: legacy.id };
    } catch (error) {
      if (named !== null && !key) throw new UnknownDataKeyError(named);
      throw error;
    }
  }

  const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest('hex');
  const fingerprintUnder = (k: DerivedKeys, text: string, context: string) => hmac(k.fingerprints, `${context}\n${text}`).slice(0, 32);

  return {
    currentKeyId: current.id,
    keyIds: ring.map((k) => k.id),
    encrypt(plain, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current.encryption, iv);
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(typeof plain === 'string' ? Buffer.from(plain) : plain), cipher.final()]);
      return Buffer.concat([current.header, iv, body, cipher.getAuthTag()]);
    },
    async *encryptStream(plain, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current.encryption, iv);
      cipher.setAAD(Buffer.from(context));
      yield Buffer.concat([current.header, iv]);
      for await (const chunk of plain) yield cipher.update(chunk);
      yield Buffer.concat([cipher.final(), cipher.getAuthTag()]);
    },
    decrypt: (sealed, context) => unseal(sealed, context).plain,
    keyIdOf: (sealed, context) => unseal(sealed, context).keyId,
    fingerprint: (text, context) => fingerprintUnder(current, text, context),
    fingerprints: (text, context) => ring.map((k) => fingerprintUnder(k, text, context)),
    codeHash: (text) => hmac(current.codes, text),
    codeHashes: (text) => ring.map((k) => hmac(k.codes, text)),
    sameHash(a, b) {
      const left = Buffer.from(a, 'hex');
      const right = Buffer.from(b, 'hex');
      return left.length === right.length && timingSafeEqual(left, right);
    },
  };
}
