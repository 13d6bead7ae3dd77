/**
 * Property tests of the EVM parameter codecs (src/evm-rpc/codec/codecs.ts), the block-parameter and
 * filter-criteria parsers included: any JSON value decodes or fails with a CodecError, and what decodes
 * is encoded back to a value that decodes the same.
 * Long run: FUZZ_RUNS=100000 npx jest test/unit/fuzz --runInBand --testTimeout=0 (FUZZ_SEED=<n> replays).
 */
import fc from 'fast-check';
import * as codecs from '../../../src/evm-rpc/codec/codecs';
import { CodecError } from '../../../src/evm-rpc/codec/codec-error';
import { toQuantity } from '../../../src/evm-rpc/codec/hex';
import type { Codec } from '../../../src/rpc/codec';
import { checkRoundTrip, failureOf } from '../../fuzz/oracles';
import { jsonValue, nearHex, numberText, settings } from './arbitraries';

const all = Object.entries(codecs as Record<string, Codec<unknown>>);
const hash = fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'.split('')), minLength: 64, maxLength: 64 }).map((d) => '0x' + d);
const address = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'.split('')), minLength: 40, maxLength: 40 }).map((d) => '0x' + d);
const block = fc.oneof(
  fc.constantFrom('latest', 'pending', 'earliest', 'safe', 'finalized', 'Latest', ''),
  fc.bigInt({ min: 0n, max: 2n ** 64n }).map(toQuantity),
  nearHex,
  hash,
  fc.record({ blockNumber: fc.oneof(nearHex, fc.constant(null)), blockHash: fc.oneof(hash, nearHex), requireCanonical: fc.oneof(fc.boolean(), jsonValue) }, { requiredKeys: [] }),
  jsonValue,
);
const addresses = fc.oneof(address, fc.array(fc.oneof(address, nearHex), { maxLength: 3 }), jsonValue);
const topics = fc.array(fc.oneof(fc.constant(null), hash, fc.array(fc.oneof(hash, fc.constant(null), nearHex), { maxLength: 3 }), jsonValue), { maxLength: 5 });
const filter = fc.oneof(
  fc.record(
    { fromBlock: block, toBlock: block, blockHash: fc.oneof(hash, nearHex), address: addresses, topics: fc.oneof(topics, jsonValue), FromBlock: block, ADDRESS: addresses },
    { requiredKeys: [] },
  ),
  jsonValue,
);
const transaction = fc.record(
  {
    from: fc.oneof(address, nearHex), to: fc.oneof(address, nearHex, fc.constant(null)), gas: nearHex, gasPrice: nearHex, maxFeePerGas: nearHex,
    maxPriorityFeePerGas: nearHex, value: nearHex, nonce: nearHex, data: nearHex, input: nearHex, chainId: nearHex, type: nearHex,
    accessList: fc.oneof(fc.array(fc.record({ address, storageKeys: fc.array(hash, { maxLength: 2 }) }), { maxLength: 2 }), jsonValue),
  },
  { requiredKeys: [] },
);
/** Values for every codec: generic JSON plus the shapes the structured codecs read. */
const anyInput = fc.oneof(jsonValue, block, filter, transaction, numberText, fc.array(fc.oneof(fc.double(), fc.string()), { maxLength: 3 }));

/** Decodes, returning undefined on a CodecError; anything else thrown fails the property. */
function decoded(codec: Codec<unknown>, value: unknown): { value: unknown } | undefined {
  let out: unknown;
  return failureOf(() => (out = codec.decode(value)), CodecError) ? undefined : { value: out };
}

describe.each(all)('codec %s', (name, codec) => {
  it('decodes any JSON value or fails with a CodecError', () => {
    fc.assert(fc.property(anyInput, (v) => void decoded(codec, v)), settings(0.5));
  });

  if (codec.encode && name !== 'any') {
    it('decodes its encoded values back to the same value', () => {
      fc.assert(
        fc.property(anyInput, (v) => {
          const first = decoded(codec, v);
          if (first) checkRoundTrip(codec, first.value);
        }),
        settings(0.5),
      );
    });
  }
});

describe('quantities', () => {
  const cases: [string, Codec<unknown>, bigint][] = [
    ['uint64', codecs.uint64, 2n ** 64n - 1n],
    ['uint', codecs.uint, 2n ** 64n - 1n],
    ['big', codecs.big, 2n ** 256n - 1n],
    ['decimalOrHex', codecs.decimalOrHex, 2n ** 64n - 1n],
  ];
  it.each(cases)('%s: a valid quantity decodes to the bigint it encodes, one past the range fails', (_, codec, max) => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max }), (n) => {
        expect(codec.decode(toQuantity(n))).toBe(n);
        expect(codec.encode!(n)).toBe(toQuantity(n));
      }),
      settings(),
    );
    expect(() => codec.decode(toQuantity(max + 1n))).toThrow(CodecError);
  });

  it('blockNumber and blockNumberOrHash read a quantity up to int64 as that number', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }), (n) => {
        expect(codecs.blockNumber.decode(toQuantity(n))).toEqual({ kind: 'number', number: n });
        expect(codecs.blockNumberOrHash.decode(toQuantity(n))).toEqual({ kind: 'number', number: n });
        expect(codecs.blockNumberOrHash.decode({ blockNumber: toQuantity(n) })).toEqual({ kind: 'number', number: n });
      }),
      settings(),
    );
    expect(() => codecs.blockNumber.decode(toQuantity(2n ** 63n))).toThrow(CodecError);
  });

  it('blockNumberOrHash reads a hash as that hash, lower-cased', () => {
    fc.assert(
      fc.property(hash, fc.boolean(), (h, requireCanonical) => {
        expect(codecs.blockNumberOrHash.decode({ blockHash: h, requireCanonical })).toEqual({ kind: 'hash', hash: h.toLowerCase(), requireCanonical });
      }),
      settings(),
    );
  });
});
