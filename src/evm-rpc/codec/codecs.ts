import type { BlockRef, LogFilter, TraceConfig } from '../evm-types';
import type { Codec } from '../../rpc/codec';
import type { Json, JsonObject } from '../../rpc/json';
import { decodeBlockNumber, decodeBlockNumberOrHash } from './block-number';
import { decodeData } from './data';
import { decodeFilterCriteria } from './filter-criteria';
import { decodeAddress, decodeHash } from './fixed-bytes';
import { decodeBool, decodeGoInteger, decodeSlice, decodeString, isObject, jsonKind, typeError } from './go-json';
import { toQuantity } from './hex';
import { BIG, decodeDecimalOrHex, decodeQuantity, UINT, UINT64 } from './quantity';
import { decodeTraceConfig } from './trace-config';
import { decodeTransactionArgs, type RpcTransactionArgs } from './transaction-args';
import { decodeTypedData } from './typed-data';

/** A codec: how the value is read from the JSON-RPC param, and how it is written back (a backend's upstream call). */
const codec = <T>(decode: (value: unknown) => T, encode: (value: T) => Json): Codec<T> => ({ decode, encode });

/** Values whose decoded form is their wire form. */
const asIs = (value: Json): Json => value;
const quantity = (value: bigint): Json => toQuantity(value);

/*
 * The codecs of EVM method parameters, named after the Go types of go-ethereum's and Evmos'
 * signatures. Each takes the JSON value and returns what the handler gets, or throws a CodecError;
 * `encode` writes that value in the JSON-RPC form go-ethereum takes.
 */

/** common.Address → lower-case 0x-hex. */
export const address = codec((v) => decodeAddress(v), asIs);
/** common.Hash → lower-case 0x-hex. */
export const hash = codec((v) => decodeHash(v), asIs);
/** hexutil.Bytes → lower-case 0x-hex. */
export const data = codec((v) => decodeData(v), asIs);
/** hexutil.Uint64 → bigint. */
export const uint64 = codec((v) => decodeQuantity(v, UINT64), quantity);
/** hexutil.Uint → bigint. */
export const uint = codec((v) => decodeQuantity(v, UINT), quantity);
/** *hexutil.Big → bigint. */
export const big = codec((v) => decodeQuantity(v, BIG), quantity);
/** rpc.BlockNumber → BlockRef (written back as a tag or a 0x quantity). */
export const blockNumber = codec(decodeBlockNumber, encodeBlockRef);
/** rpc.BlockNumberOrHash → BlockRef (written back as a tag, a 0x quantity or `{blockHash, requireCanonical}`). */
export const blockNumberOrHash = codec(decodeBlockNumberOrHash, encodeBlockRef);
/** rpc.DecimalOrHex → bigint (written back as a 0x quantity). */
export const decimalOrHex = codec(decodeDecimalOrHex, quantity);
export const bool = codec((v) => decodeBool(v), asIs);
export const string = codec((v) => decodeString(v), asIs);
/** rpc.ID (filter and subscription ids). */
export const id = codec((v) => decodeString(v, 'rpc.ID'), asIs);
/** Go int from a JSON number. */
export const int = codec((v) => decodeGoInteger(v, 'int'), asIs);
/** Go uint64 from a JSON number (e.g. an unlock duration in seconds). */
export const uint64Number = codec((v) => decodeGoInteger(v, 'uint64'), asIs);
export const strings = codec(
  (v) => decodeSlice(v, '[]string', (item) => decodeString(item)),
  (v) => [...v],
);
export const floats = codec(
  (v) =>
    decodeSlice(v, '[]float64', (item) => {
      if (typeof item !== 'number') throw typeError(jsonKind(item), 'float64');
      return item;
    }),
  (v) => [...v],
);
export const transactionArgs = codec(decodeTransactionArgs, encodeTransactionArgs);
export const filterCriteria = codec(decodeFilterCriteria, encodeFilterCriteria);
export const traceConfig = codec(decodeTraceConfig, encodeTraceConfig);
export const typedData = codec(decodeTypedData, (v) => v as unknown as Json);
/** eth_call's state overrides: an address → account map. */
export const stateOverride = codec(
  (v): Record<string, unknown> => {
    if (v !== null && !isObject(v)) throw typeError(jsonKind(v), 'types.StateOverride');
    return v ?? {};
  },
  (v) => v as JsonObject,
);
/** Handed over as is; the handler validates (eth_subscribe's kind-dependent arguments). */
export const any = codec(
  (v: unknown) => v,
  (v) => v as Json,
);

/*
 * The wire forms of the structured values.
 */

/** A block: a tag, a 0x quantity, or EIP-1898's `{blockHash, requireCanonical}`. */
function encodeBlockRef(block: BlockRef): Json {
  switch (block.kind) {
    case 'number':
      return toQuantity(block.number);
    case 'tag':
      return block.tag;
    case 'hash':
      return { blockHash: block.hash, requireCanonical: block.requireCanonical };
  }
}

/** go-ethereum's TransactionArgs: quantities as 0x-hex, the call data under both names. */
function encodeTransactionArgs(args: RpcTransactionArgs): Json {
  const out: JsonObject = {};
  if (args.from !== undefined) out.from = args.from;
  if (args.to !== undefined) out.to = args.to;
  if (args.gas !== undefined) out.gas = toQuantity(args.gas);
  if (args.gasPrice !== undefined) out.gasPrice = toQuantity(args.gasPrice);
  if (args.maxFeePerGas !== undefined) out.maxFeePerGas = toQuantity(args.maxFeePerGas);
  if (args.maxPriorityFeePerGas !== undefined) out.maxPriorityFeePerGas = toQuantity(args.maxPriorityFeePerGas);
  if (args.value !== undefined) out.value = toQuantity(args.value);
  if (args.nonce !== undefined) out.nonce = toQuantity(args.nonce);
  // Both names: go-ethereum accepts them when equal, older nodes read only `data`.
  const input = args.input ?? args.data;
  if (input !== undefined) out.input = out.data = input;
  if (args.accessList !== undefined) out.accessList = args.accessList.map((e) => ({ address: e.address, storageKeys: [...e.storageKeys] }));
  if (args.chainId !== undefined) out.chainId = toQuantity(args.chainId);
  if (args.type !== undefined) out.type = toQuantity(args.type);
  return out;
}

/** go-ethereum's FilterCriteria: addresses always as a list; blocks as encodeBlockRef writes them. */
function encodeFilterCriteria(filter: LogFilter): Json {
  const out: JsonObject = {};
  if (filter.address !== undefined) out.address = [...filter.address];
  if (filter.topics !== undefined) out.topics = filter.topics.map((t) => (t === null ? null : [...t]));
  if (filter.blockHash !== undefined) out.blockHash = filter.blockHash;
  if (filter.fromBlock !== undefined) out.fromBlock = encodeBlockRef(filter.fromBlock);
  if (filter.toBlock !== undefined) out.toBlock = encodeBlockRef(filter.toBlock);
  return out;
}

/** go-ethereum's TraceConfig: the options that are set. */
function encodeTraceConfig(config: TraceConfig): Json {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(config)) if (v !== undefined) out[k] = v as Json;
  return out;
}
