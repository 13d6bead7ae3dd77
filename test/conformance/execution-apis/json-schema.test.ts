import { SchemaValidator } from './json-schema';

describe('the JSON Schema subset validator', () => {
  const v = new SchemaValidator({
    uint: { type: 'string', pattern: '^0x(0|[1-9a-f][0-9a-f]*)$' },
    hash: { type: 'string', pattern: '^0x[0-9a-f]{64}$' },
    Point: { type: 'object', required: ['x'], properties: { x: { $ref: '#/components/schemas/uint' }, y: { type: ['string', 'null'] } }, additionalProperties: false },
  });
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

  it('checks $ref, type, pattern, required, properties and additionalProperties', () => {
    expect(v.validate('0x1a', ref('uint'))).toEqual([]);
    expect(v.validate('0x01', ref('uint'))).toEqual(['$: "0x01" does not match ^0x(0|[1-9a-f][0-9a-f]*)$']);
    expect(v.validate(1, ref('uint'))).toEqual(['$: 1 is not of type string']);
    expect(v.validate({ x: '0x0', y: null }, ref('Point'))).toEqual([]);
    expect(v.validate({ y: 3, z: 1 }, ref('Point'))).toEqual(['$: missing required x', '$.y: 3 is not of type string|null', '$.z: not allowed (additionalProperties: false)']);
    expect(v.validate({ x: '0x0', z: '0x1' }, { type: 'object', additionalProperties: ref('uint') })).toEqual([]);
    expect(() => v.validate(1, ref('nope'))).toThrow('unresolved $ref #/components/schemas/nope');
  });

  it('checks items, oneOf, anyOf, allOf, not, enum, const, minimum and patternProperties', () => {
    expect(v.validate(['0x1', '0x2'], { type: 'array', items: ref('uint') })).toEqual([]);
    expect(v.validate(['0x1', 'x'], { type: 'array', items: ref('uint') })).toEqual(['$[1]: "x" does not match ^0x(0|[1-9a-f][0-9a-f]*)$']);
    const either = { oneOf: [ref('uint'), ref('hash')] };
    expect(v.validate('0x1', either)).toEqual([]);
    expect(v.validate('zz', either)[0]).toMatch(/^\$: matches none of oneOf/);
    expect(v.validate('0x1', { oneOf: [ref('uint'), { type: 'string' }] })).toEqual(['$: matches 2 of oneOf']);
    expect(v.validate('0x1', { anyOf: [ref('uint'), { type: 'string' }] })).toEqual([]);
    expect(v.validate(true, { anyOf: [ref('uint'), { type: 'null' }] })[0]).toMatch(/matches none of anyOf/);
    expect(v.validate({ x: '0x1' }, { allOf: [{ required: ['x'] }, { required: ['y'] }] })).toEqual(['$: missing required y']);
    expect(v.validate('a', { not: { type: 'string' } })).toEqual(['$: matches a `not` schema']);
    expect(v.validate('b', { enum: ['a', 'b'] })).toEqual([]);
    expect(v.validate('c', { const: 'a' })).toEqual(['$: "c" is not "a"']);
    expect(v.validate(-1, { type: 'integer', minimum: 0 })).toEqual(['$: -1 < 0']);
    expect(v.validate({ '0xab': '0x1', other: 1 }, { type: 'object', patternProperties: { '^0x': ref('uint') }, additionalProperties: false })).toEqual(['$.other: not allowed (additionalProperties: false)']);
  });
});
