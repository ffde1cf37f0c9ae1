/** JSON pointers (RFC 6901), the one escaping: "~" is "~0" and "/" is "~1" in a key. */

/** The pointer of keys: ["properties", "a/b"] → "/properties/a~1b"; no keys → "" (the whole document). */
export const pointerOf = (keys: readonly (string | number)[]): string => keys.map((key) => `/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

/** The keys of a pointer, unescaped ("" and "/" have none). */
export function pointerKeys(pointer: string): string[] {
  if (pointer === '' || pointer === '/') return [];
  return pointer
    .replace(/^\//, '')
    .split('/')
    .map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~'));
}
