/**
 * Property tests of the node RPC's parameter parsing (fromUriValue, fromJsonValue) for every
 * NodeParamType: any input converts or fails with a CodecError; what converts round-trips through the
 * codec's encode.
 * Long run: FUZZ_RUNS=100000 npx jest test/unit/fuzz --runInBand --testTimeout=0 (FUZZ_SEED=<n> replays).
 */
import fc from 'fast-check';
import * as codecs from '../../../src/node-rpc/params/codecs';
import { fromJsonValue } from '../../../src/node-rpc/params/json-value';
import type { NodeParamType } from '../../../src/node-rpc/params/param-types';
import { fromUriValue } from '../../../src/node-rpc/params/uri-value';
import { CodecError, type Codec } from '../../../src/rpc/codec';
import { checkRoundTrip, failureOf } from '../../fuzz/oracles';
import { jsonValue, mutated, nearHex, numberText, settings, unicode } from './arbitraries';

const TYPES: [NodeParamType, Codec<unknown>][] = [
  ['int64', codecs.int64], ['int', codecs.int], ['uint', codecs.uint], ['bool', codecs.bool], ['string', codecs.string],
  ['bytes', codecs.bytes], ['hexbytes', codecs.hexbytes], ['strings', codecs.strings], ['evidence', codecs.evidence],
];

const base64 = fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('base64'));
/** URI query values: bare and quoted numbers, 0x-hex, quoted strings, JSON, and edits of those. */
const uriText = fc.oneof(
  numberText,
  numberText.map((n) => JSON.stringify(n)),
  nearHex,
  unicode,
  unicode.map((s) => JSON.stringify(s)),
  base64.map((s) => JSON.stringify(s)),
  jsonValue.map((v) => JSON.stringify(v) ?? ''),
  mutated(jsonValue.map((v) => JSON.stringify(v) ?? '')),
);
const jsonInput = fc.oneof(jsonValue, numberText, base64, nearHex.map((h) => h.replace(/^0x/i, '')), fc.array(unicode, { maxLength: 4 }));

describe.each(TYPES)('%s', (type, codec) => {
  it('fromUriValue converts any text or fails with a CodecError', () => {
    fc.assert(fc.property(uriText, (text) => void failureOf(() => fromUriValue(text, type), CodecError)), settings());
  });

  it('fromJsonValue converts any JSON value or fails with a CodecError, and round-trips through encode', () => {
    fc.assert(
      fc.property(jsonInput, (value) => {
        let out: unknown;
        if (!failureOf(() => (out = fromJsonValue(value, type)), CodecError)) checkRoundTrip(codec, out);
      }),
      settings(),
    );
  });
});

describe('integers', () => {
  it('a decimal in range reads as that integer, bare or quoted in a URI and quoted in JSON', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (n) => {
        expect(fromUriValue(String(n), 'int64')).toBe(n);
        expect(fromUriValue(JSON.stringify(String(n)), 'int64')).toBe(n);
        expect(fromJsonValue(String(n), 'int64')).toBe(n);
      }),
      settings(),
    );
  });

  it('hex in a URI reads as those bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const hex = '0x' + Buffer.from(bytes).toString('hex');
        expect(fromUriValue(hex, 'bytes')).toEqual(bytes);
        expect(fromUriValue(hex.toUpperCase().replace('0X', '0x'), 'hexbytes')).toEqual(bytes);
      }),
      settings(),
    );
  });
});
