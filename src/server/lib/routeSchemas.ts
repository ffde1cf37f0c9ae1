/**
 * Route schemas for what JSON Schema alone does not state: an answer that is a file, and a body the
 * route reads itself. Both are documented in the API's document (plugins/openApi.ts).
 */

/** An answer that is a file, not JSON, by its content types: the route sends its bytes as they are. */
export const fileAnswer = (description: string, ...types: string[]) => ({
  description,
  content: Object.fromEntries(types.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }])),
});

/** Options of a route that reads its body itself (a signed payload, words of its own): its `body` schema documents it. */
export const readsItsOwnBody = { validatorCompiler: () => (value: unknown) => ({ value }) };
