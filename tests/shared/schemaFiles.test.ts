import { describe, expect, it } from 'vitest';
import { bundleSchema, type JsonObject } from '../../src/shared/schemaFiles.js';

const files: Record<string, JsonObject> = {
  'common.schema.json': { $defs: { phone: { type: 'string', pattern: '^[0-9]{10}$' } } },
  'base.schema.json': { type: 'object', required: ['a'], properties: { a: { type: 'string' } }, errorMessage: { required: { a: 'A!' } } },
  'extended.schema.json': {
    $ref: 'base.schema.json',
    required: ['phone'],
    properties: { phone: { $ref: 'common.schema.json#/$defs/phone', errorMessage: { pattern: 'Bad phone' } } },
    errorMessage: { required: { phone: 'Phone!' } },
  },
  'loop.schema.json': { $ref: 'loop.schema.json' },
  'dangling.schema.json': { properties: { x: { $ref: 'common.schema.json#/$defs/nothing' } } },
};
const read = (name: string) => {
  const file = files[name];
  if (!file) throw new Error('missing');
  return file;
};

describe('bundleSchema', () => {
  it('inlines a shared definition beside the field’s own messages', () => {
    const schema = bundleSchema('extended.schema.json', read);
    expect((schema.properties as JsonObject).phone).toEqual({ type: 'string', pattern: '^[0-9]{10}$', errorMessage: { pattern: 'Bad phone' } });
  });

  it('extends another schema, joining required lists and messages', () => {
    const schema = bundleSchema('extended.schema.json', read);
    expect(schema.required).toEqual(['a', 'phone']);
    expect(schema.errorMessage).toEqual({ required: { a: 'A!', phone: 'Phone!' } });
  });

  it('names the file and the place of a reference that points at nothing', () => {
    expect(() => bundleSchema('dangling.schema.json', read)).toThrow(
      'schemas/dangling.schema.json: "$ref" "common.schema.json#/$defs/nothing" points at nothing (at /properties/x)',
    );
  });

  it('names a circular reference', () => {
    expect(() => bundleSchema('loop.schema.json', read)).toThrow(/circular \$ref/);
  });
});
