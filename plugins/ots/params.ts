/**
 * The parameters of the ots_* methods as erigon reads them. Otterscan sends block numbers, nonces and
 * page sizes as bare JSON numbers, which erigon's types take:
 *
 * - rpc.BlockNumber: a tag, a decimal (bare or quoted) or a 0x quantity; null is `latest`;
 * - rpc.BlockNumberOrHash: the same, a block hash, or the EIP-1898 object;
 * - Go's uint64, uint16 and uint8: a JSON number in range.
 *
 * Anything else fails with go-ethereum's words, as the EVM codecs word it.
 */
import { CodecError, evmCodecs, type BlockRef, type Codec } from 'rpc-gateway/plugin-api';

const DECIMAL = /^[0-9]+$/;
const INT64_MAX = 2n ** 63n - 1n;

/** A decimal block number: within int64, as erigon requires. */
function decimalBlock(text: string, tooHigh: string): BlockRef {
  const number = BigInt(text);
  if (number > INT64_MAX) throw new CodecError(tooHigh);
  return { kind: 'number', number };
}

/** erigon's rpc.BlockNumber. */
export const blockNumber: Codec<BlockRef> = {
  decode(value: unknown): BlockRef {
    if (value === null || value === 'latestExecuted') return { kind: 'tag', tag: 'latest' };
    const text = typeof value === 'number' ? String(value) : value;
    if (typeof text === 'string' && DECIMAL.test(text)) return decimalBlock(text, 'block number larger than int64');
    return evmCodecs.blockNumber.decode(value);
  },
  encode: (block) => evmCodecs.blockNumber.encode!(block),
};

/** erigon's rpc.BlockNumberOrHash: a bare decimal number too. */
export const blockNumberOrHash: Codec<BlockRef> = {
  decode(value: unknown): BlockRef {
    if (typeof value === 'number' && DECIMAL.test(String(value))) return decimalBlock(String(value), 'blocknumber too high');
    return evmCodecs.blockNumberOrHash.decode(value);
  },
  encode: (block) => evmCodecs.blockNumberOrHash.encode!(block),
};

/** Go's unsigned integer of `bits` bits from a JSON number (null: 0). */
function goUnsigned(bits: 8 | 16 | 64): Codec<number> {
  const goType = `uint${bits}`;
  const max = 2 ** bits - 1;
  return {
    decode(value: unknown): number {
      if (value === null) return 0;
      if (typeof value !== 'number') {
        const kind = Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
        throw new CodecError(`json: cannot unmarshal ${kind} into Go value of type ${goType}`);
      }
      if (!Number.isInteger(value) || value < 0 || value > max) throw new CodecError(`json: cannot unmarshal number ${value} into Go value of type ${goType}`);
      return value;
    },
    encode: (value) => value,
  };
}

export const uint8 = goUnsigned(8);
export const uint16 = goUnsigned(16);
export const uint64 = goUnsigned(64);
