/**
 * Jazzer target: the block-parameter parsers (rpc.BlockNumber, rpc.BlockNumberOrHash) and the filter
 * criteria (eth_getLogs, eth_newFilter) on one param value: the input as JSON when it parses, else as a
 * string. Defects: a failure other than a CodecError, a decoded value that does not survive encode, over 1 s.
 */
import { blockNumber, blockNumberOrHash, filterCriteria } from '../../../src/evm-rpc/codec/codecs';
import { CodecError } from '../../../src/evm-rpc/codec/codec-error';
import type { Codec } from '../../../src/rpc/codec';
import { checkRoundTrip, failureOf } from '../oracles';
import { paramValue } from '../param-value';

const CODECS: Codec<unknown>[] = [blockNumber, blockNumberOrHash, filterCriteria];

export function fuzz(data: Buffer): void {
  const value = paramValue(data);
  for (const codec of CODECS) {
    let out: unknown;
    if (!failureOf(() => (out = codec.decode(value)), CodecError)) checkRoundTrip(codec, out);
  }
}
