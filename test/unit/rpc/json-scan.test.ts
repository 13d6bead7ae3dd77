/**
 * The structural scanner against what JSON.parse and Go's decoder read: the raw text of the last member
 * whose key matches case-insensitively, escapes in keys and strings included.
 */
import fc from 'fast-check';
import { arrayElements, memberText, valueEnd } from '../../../src/rpc/json-scan';
import { jsonValue, settings } from '../fuzz/arbitraries';

/** A key as a client may write it: plain, escaped in part, in another case. */
const keyText = fc.oneof(
  fc.constantFrom('"id"', '"ID"', '"Id"', '"\\u0069d"', '"i\\u0044"', '"\\u0069\\u0064"', '"method"', '"params"', '"i"', '"idx"', '"\\\\id"', '"id\\\\"'),
  fc.string({ maxLength: 6 }).map((s) => JSON.stringify(s)),
);
/** Value texts with quotes, backslashes and brackets inside strings. */
const valueText = fc.oneof(
  jsonValue.map((v) => JSON.stringify(v) ?? 'null'),
  fc.string({ unit: fc.constantFrom('a', '"', '\\', '[', '{', '}', ']', ','), maxLength: 12 }).map((s) => JSON.stringify(s)),
  fc.constantFrom('1.50', '-0', '1e3', '123456789012345678901234567890'),
);
const spaces = fc.constantFrom('', ' ', '\n\t');

describe('memberText', () => {
  it('gives the raw text of the last member whose key is the name in any case, as JSON.parse decodes the keys', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(keyText, valueText, spaces), { maxLength: 6 }), (members) => {
        const text = `{${members.map(([k, v, s]) => `${s}${k}${s}:${s}${v}${s}`).join(',')}}`;
        const matching = members.filter(([k]) => (JSON.parse(k) as string).toLowerCase() === 'id');
        expect(memberText(text, 'id')).toBe(matching.length === 0 ? undefined : matching[matching.length - 1][1]);
      }),
      settings(),
    );
  });

  it('reads a numeric id as written, past params holding escaped quotes', () => {
    expect(memberText('{"jsonrpc":"2.0","method":"x","params":["a\\"b\\\\","\\\\\\""],"id":1.50}', 'id')).toBe('1.50');
    expect(memberText('{"\\u0069d":7,"ID":8}', 'id')).toBe('8');
    expect(memberText('{"idx":7,"i":8}', 'id')).toBeUndefined();
  });
});

describe('valueEnd and arrayElements', () => {
  it('cut any array into the raw texts of its elements', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(valueText, spaces), { maxLength: 6 }), (elements) => {
        const text = `[${elements.map(([v, s]) => `${s}${v}${s}`).join(',')}]`;
        expect(valueEnd(text, 0)).toBe(text.length);
        expect(arrayElements(text)).toEqual(elements.map(([v]) => v));
      }),
      settings(),
    );
  });
});
