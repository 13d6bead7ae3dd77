import { decodeBlockNumber, decodeBlockNumberOrHash } from './block-number';
import { decodeData } from './data';
import { decodeFilterCriteria } from './filter-criteria';
import { decodeAddress, decodeHash } from './fixed-bytes';
import { decodeBool, decodeGoInteger, decodeSlice, decodeString, isObject, jsonKind, typeError } from './go-json';
import { BIG, decodeDecimalOrHex, decodeQuantity, UINT, UINT64 } from './quantity';
import { decodeTraceConfig } from './trace-config';
import { decodeTransactionArgs } from './transaction-args';
import { decodeTypedData } from './typed-data';

/**
 * The decoders of EVM method parameters, named after the Go types of go-ethereum's and Evmos'
 * signatures. Each takes the JSON value and returns what the handler gets, or throws a CodecError.
 */
const DECODERS = {
  /** common.Address → lower-case 0x-hex. */
  address: (v: unknown) => decodeAddress(v),
  /** common.Hash → lower-case 0x-hex. */
  hash: (v: unknown) => decodeHash(v),
  /** hexutil.Bytes → lower-case 0x-hex. */
  data: (v: unknown) => decodeData(v),
  /** hexutil.Uint64 → bigint. */
  uint64: (v: unknown) => decodeQuantity(v, UINT64),
  /** hexutil.Uint → bigint. */
  uint: (v: unknown) => decodeQuantity(v, UINT),
  /** *hexutil.Big → bigint. */
  big: (v: unknown) => decodeQuantity(v, BIG),
  /** rpc.BlockNumber → BlockRef. */
  blockNumber: decodeBlockNumber,
  /** rpc.BlockNumberOrHash → BlockRef. */
  blockNumberOrHash: decodeBlockNumberOrHash,
  /** rpc.DecimalOrHex → bigint. */
  decimalOrHex: decodeDecimalOrHex,
  bool: (v: unknown) => decodeBool(v),
  string: (v: unknown) => decodeString(v),
  /** rpc.ID (filter and subscription ids). */
  id: (v: unknown) => decodeString(v, 'rpc.ID'),
  /** Go int from a JSON number. */
  int: (v: unknown) => decodeGoInteger(v, 'int'),
  /** Go uint64 from a JSON number (e.g. an unlock duration in seconds). */
  uint64Number: (v: unknown) => decodeGoInteger(v, 'uint64'),
  strings: (v: unknown) => decodeSlice(v, '[]string', (item) => decodeString(item)),
  floats: (v: unknown) =>
    decodeSlice(v, '[]float64', (item) => {
      if (typeof item !== 'number') throw typeError(jsonKind(item), 'float64');
      return item;
    }),
  transactionArgs: decodeTransactionArgs,
  filterCriteria: decodeFilterCriteria,
  traceConfig: decodeTraceConfig,
  typedData: decodeTypedData,
  /** eth_call's state overrides: an address → account map. */
  stateOverride: (v: unknown) => {
    if (v !== null && !isObject(v)) throw typeError(jsonKind(v), 'types.StateOverride');
    return v ?? {};
  },
  /** Handed over as is; the handler validates (eth_subscribe's kind-dependent arguments). */
  any: (v: unknown) => v,
} satisfies Record<string, (value: unknown) => unknown>;

export type EvmParamType = keyof typeof DECODERS;

export function decodeParam(type: EvmParamType, value: unknown): unknown {
  return DECODERS[type](value);
}
