/**
 * Shared settings and generators of the property tests in this folder.
 *
 * FUZZ_RUNS sets the runs per property (default 300, the CI run); FUZZ_SEED replays a run, e.g.
 *   FUZZ_RUNS=100000 npx jest test/unit/fuzz --runInBand --testTimeout=0
 */
import fc from 'fast-check';

export const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

/** fast-check parameters of one property: the run count (scaled by `share`), the seed if given. */
export function settings(share = 1): fc.Parameters<unknown> {
  return { numRuns: Math.max(1, Math.round(RUNS * share)), ...(SEED === undefined ? {} : { seed: SEED }) };
}

const HEX = '0123456789abcdefABCDEF';
/** Hex digits, sometimes many. */
export const hexDigits = fc.oneof(
  fc.string({ unit: fc.constantFrom(...HEX.split('')), maxLength: 20 }),
  fc.string({ unit: fc.constantFrom(...HEX.split('')), minLength: 60, maxLength: 140 }),
);

/** Strings close to a hex quantity or hex data: prefixes, leading zeros, one bad character, signs, spaces. */
export const nearHex: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('0x', '0X', '', 'x', '0', '-0x', '+0x', ' 0x', '0x0', '0x00', '00x'),
    hexDigits,
    fc.option(fc.tuple(fc.nat(), fc.constantFrom('g', 'G', ' ', '_', '-', '.', 'x', '\u0660', '\uff10', '\0', 'é')), { nil: undefined }),
    fc.constantFrom('', '', '', ' ', '\n', 'n'),
  )
  .map(([prefix, digits, bad, suffix]) => {
    let text = prefix + digits;
    if (bad) {
      const at = bad[0] % (text.length + 1);
      text = text.slice(0, at) + bad[1] + text.slice(at);
    }
    return text + suffix;
  });

/** Number-like texts: huge integers, exponents, fractions, signs, leading zeros. */
export const numberText: fc.Arbitrary<string> = fc.oneof(
  fc.bigInt({ min: -(2n ** 300n), max: 2n ** 300n }).map(String),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.double().map(String),
  fc.constantFrom('-0', '00', '007', '1e400', '-1e400', '1E2', '0.5', '.5', '5.', '+1', '9223372036854775807', '9223372036854775808',
    '-9223372036854775808', '-9223372036854775809', '18446744073709551615', '18446744073709551616', 'NaN', 'Infinity', '0x10'),
);

/** Unicode text: any code points (lone surrogates too), graphemes, and plain ASCII. */
export const unicode: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  fc.string({ maxLength: 30 }),
);

/** Nesting as deep as `depth` arrays/objects around a leaf. */
export const deep: fc.Arbitrary<unknown> = fc
  .tuple(fc.integer({ min: 1, max: 3000 }), fc.boolean(), fc.jsonValue({ maxDepth: 1 }))
  .map(([depth, objects, leaf]) => {
    let value: unknown = leaf;
    for (let i = 0; i < depth; i++) value = objects ? { a: value } : [value];
    return value;
  });

/** Any JSON value, the interesting scalars included. */
export const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  nearHex,
  numberText,
  numberText.map(Number),
  unicode,
  deep,
  fc.constantFrom(null, true, false, 0, -1, 1.5, '', 'latest', 'pending', 'earliest', 'safe', 'finalized', [], {}),
);

/** JSON text with one edit: truncated, a character inserted or dropped. */
export function mutated(text: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .tuple(text, fc.nat(), fc.constantFrom('truncate', 'insert', 'drop'), fc.constantFrom('{', '}', '[', ']', '"', ',', ':', '\\', 'e', '-', '0', ' ', '\u2028', '\ud800'))
    .map(([t, n, how, ch]) => {
      const at = n % (t.length + 1);
      if (how === 'truncate') return t.slice(0, at);
      if (how === 'insert') return t.slice(0, at) + ch + t.slice(at);
      return t.slice(0, at) + t.slice(at + 1);
    });
}

/** Deep nesting as text, balanced or not. */
export const deepText: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 1, max: 20000 }), fc.constantFrom('[', '{"a":'), fc.boolean())
  .map(([depth, open, closed]) => open.repeat(depth) + '1' + (closed ? (open === '[' ? ']' : '}').repeat(depth) : ''));
