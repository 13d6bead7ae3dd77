/**
 * Jazzer target: the EVM hex codecs (addresses, hashes, data, quantities) on one param value: the input
 * as JSON when it parses, else as a string. Defects: a failure other than a CodecError, a decoded value
 * that does not survive encode, over 1 s.
 */
import { address, big, data as bytes, decimalOrHex, hash, uint, uint64 } from '../../../src/evm-rpc/codec/codecs';
import { CodecError } from '../../../src/evm-rpc/codec/codec-error';
import type { Codec } from '../../../src/rpc/codec';
import { checkRoundTrip, failureOf } from '../oracles';
import { paramValue } from '../param-value';

const CODECS: Codec<unknown>[] = [address, hash, bytes, uint64, uint, big, decimalOrHex];

export function fuzz(data: Buffer): void {
  const value = paramValue(data);
  for (const codec of CODECS) {
    let out: unknown;
    if (!failureOf(() => (out = codec.decode(value)), CodecError)) checkRoundTrip(codec, out);
  }
}
