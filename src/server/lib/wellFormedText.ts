/**
 * Text that is not Unicode: a lone UTF-16 surrogate ("\ud800" is valid JSON, yet no character).
 * PostgreSQL refuses to store it (jsonb: 22P02), so a request carrying one would fail half-way;
 * it is refused where the request is read instead: every JSON body (app.ts), and each multipart
 * field (lib/callReader/multipartBody.ts), which a part sent as UTF-16 ("charset=utf-16le") can fill with one.
 * String.prototype.isWellFormed is not in Node 20: with the `u` flag a regular expression reads a
 * well-formed pair as one code point, so \p{Surrogate} matches only a lone half.
 */
const LONE_SURROGATE = /\p{Surrogate}/u;

export const isWellFormedText = (text: string): boolean => !LONE_SURROGATE.test(text);

/** Whether every string in a parsed JSON value, keys too, is well-formed; walked without recursion, however deep the value nests. A raw body (a Buffer: the payment webhook's) is not text to check. */
export function isWellFormedJson(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') {
      if (!isWellFormedText(next)) return false;
    } else if (Array.isArray(next)) {
      for (const item of next) pending.push(item);
    } else if (next !== null && typeof next === 'object' && !Buffer.isBuffer(next)) {
      for (const [key, inner] of Object.entries(next)) {
        if (!isWellFormedText(key)) return false;
        pending.push(inner);
      }
    }
  }
  return true;
}
