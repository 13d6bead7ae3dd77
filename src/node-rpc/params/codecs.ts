import type { Codec } from '../../rpc/codec';
import type { Json, JsonObject } from '../../rpc/json';
import { fromJsonValue } from './json-value';
import { zeroValue, type NodeParamType } from './param-types';
import { fromUriValue } from './uri-value';

/** The codec of a node RPC parameter type: its JSON-RPC form, its URI form and Go's zero value. */
function codec<T>(type: NodeParamType, encode: (value: T) => Json): Codec<T> {
  return {
    decode: (value) => fromJsonValue(value, type) as T,
    decodeText: (text) => fromUriValue(text, type) as T,
    zero: () => zeroValue(type) as T,
    encode,
  };
}

const asString = (value: bigint | number): Json => String(value);
const same = <T extends Json>(value: T): Json => value;

/**
 * Parameter codecs of the node RPC, named after the Go types of CometBFT's route handlers: integers
 * are JSON strings in JSON-RPC and bare in URIs, []byte is base64 (or 0x-hex / a quoted string in URIs),
 * HexBytes is hex without 0x.
 */
export const int64 = codec<bigint>('int64', asString);
export const int = codec<number>('int', asString);
export const uint = codec<number>('uint', asString);
export const bool = codec<boolean>('bool', same);
export const string = codec<string>('string', same);
export const bytes = codec<Uint8Array>('bytes', (v) => Buffer.from(v).toString('base64'));
export const hexbytes = codec<Uint8Array>('hexbytes', (v) => Buffer.from(v).toString('hex').toUpperCase());
export const strings = codec<string[]>('strings', same);
export const evidence = codec<JsonObject | null>('evidence', same);
