import type { Codec } from '../../rpc/codec';
import { decodeBlockNumber, decodeBlockNumberOrHash } from './block-number';
import { decodeData } from './data';
import { decodeFilterCriteria } from './filter-criteria';
import { decodeAddress, decodeHash } from './fixed-bytes';
import { decodeBool, decodeGoInteger, decodeSlice, decodeString, isObject, jsonKind, typeError } from './go-json';
import { BIG, decodeDecimalOrHex, decodeQuantity, UINT, UINT64 } from './quantity';
import { decodeTraceConfig } from './trace-config';
import { decodeTransactionArgs } from './transaction-args';
import { decodeTypedData } from './typed-data';

const codec = <T>(decode: (value: unknown) => T): Codec<T> => ({ decode });

/*
 * The codecs of EVM method parameters, named after the Go types of go-ethereum's and Evmos'
 * signatures. Each takes the JSON value and returns what the handler gets, or throws a CodecError.
 */

/** common.Address → lower-case 0x-hex. */
export const address = codec((v) => decodeAddress(v));
/** common.Hash → lower-case 0x-hex. */
export const hash = codec((v) => decodeHash(v));
/** hexutil.Bytes → lower-case 0x-hex. */
export const data = codec((v) => decodeData(v));
/** hexutil.Uint64 → bigint. */
export const uint64 = codec((v) => decodeQuantity(v, UINT64));
/** hexutil.Uint → bigint. */
export const uint = codec((v) => decodeQuantity(v, UINT));
/** *hexutil.Big → bigint. */
export const big = codec((v) => decodeQuantity(v, BIG));
/** rpc.BlockNumber → BlockRef. */
export const blockNumber = codec(decodeBlockNumber);
/** rpc.BlockNumberOrHash → BlockRef. */
export const blockNumberOrHash = codec(decodeBlockNumberOrHash);
/** rpc.DecimalOrHex → bigint. */
export const decimalOrHex = codec(decodeDecimalOrHex);
export const bool = codec((v) => decodeBool(v));
export const string = codec((v) => decodeString(v));
/** rpc.ID (filter and subscription ids). */
export const id = codec((v) => decodeString(v, 'rpc.ID'));
/** Go int from a JSON number. */
export const int = codec((v) => decodeGoInteger(v, 'int'));
/** Go uint64 from a JSON number (e.g. an unlock duration in seconds). */
export const uint64Number = codec((v) => decodeGoInteger(v, 'uint64'));
export const strings = codec((v) => decodeSlice(v, '[]string', (item) => decodeString(item)));
export const floats = codec((v) =>
  decodeSlice(v, '[]float64', (item) => {
    if (typeof item !== 'number') throw typeError(jsonKind(item), 'float64');
    return item;
  }),
);
export const transactionArgs = codec(decodeTransactionArgs);
export const filterCriteria = codec(decodeFilterCriteria);
export const traceConfig = codec(decodeTraceConfig);
export const typedData = codec(decodeTypedData);
/** eth_call's state overrides: an address → account map. */
export const stateOverride = codec((v): Record<string, unknown> => {
  if (v !== null && !isObject(v)) throw typeError(jsonKind(v), 'types.StateOverride');
  return v ?? {};
});
/** Handed over as is; the handler validates (eth_subscribe's kind-dependent arguments). */
export const any = codec((v: unknown) => v);
