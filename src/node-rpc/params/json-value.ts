import { CodecError } from '../../rpc/codec';
import { INT64_MAX, INT64_MIN, UINT64_MAX } from '../../rpc/int-bounds';
import type { NodeParamType } from './param-types';

const HEX = /^[0-9a-fA-F]*$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

/** A value as it appears in an error message: its JSON, at most 64 characters, never a thrown error. */
function shown(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = jsonKind(value);
  }
  return text.length > 64 ? `${text.slice(0, 61)}...` : text;
}

/** Parses a decimal integer text for an int kind, with Go's overflow message. */
export function parseInteger(text: string, type: 'int64' | 'int' | 'uint', raw: string): bigint | number {
  const value = BigInt(text);
  const min = type === 'uint' ? 0n : INT64_MIN;
  const max = type === 'uint' ? UINT64_MAX : INT64_MAX;
  if (value < min || value > max) {
    throw new CodecError(`json: cannot unmarshal number ${raw} into Go value of type ${type}`);
  }
  if (type === 'int64') return value;
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new CodecError(`json: cannot unmarshal number ${raw} into Go value of type ${type}`);
  }
  return Number(value);
}

export function decodeHex(text: string): Uint8Array {
  if (text.length % 2 !== 0 || !HEX.test(text)) {
    throw new CodecError(`encoding/hex: invalid byte: ${JSON.stringify(text.slice(0, 16))}`);
  }
  return Uint8Array.from(Buffer.from(text, 'hex'));
}

function decodeBase64(text: string): Uint8Array {
  if (text.length % 4 !== 0 || !BASE64.test(text)) {
    throw new CodecError('illegal base64 data at input byte 0');
  }
  return Uint8Array.from(Buffer.from(text, 'base64'));
}

/**
 * Converts one JSON-RPC param value (amino-JSON rules): integers must be strings, []byte is base64,
 * HexBytes is hex without 0x, []string a string array.
 */
export function fromJsonValue(value: unknown, type: NodeParamType): unknown {
  switch (type) {
    case 'int64':
    case 'int':
    case 'uint': {
      if (typeof value === 'number') {
        throw new CodecError(`invalid ${type === 'int64' ? '64-bit ' : ''}integer encoding "${value}", expected string`);
      }
      if (typeof value !== 'string') {
        throw new CodecError(`json: cannot unmarshal ${jsonKind(value)} into Go value of type ${type}`);
      }
      if (!/^-?[0-9]+$/.test(value)) {
        throw new CodecError(`strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
      }
      return parseInteger(value, type, value);
    }
    case 'bool':
      if (typeof value !== 'boolean') {
        throw new CodecError(`json: cannot unmarshal ${jsonKind(value)} into Go value of type bool`);
      }
      return value;
    case 'string':
      if (typeof value !== 'string') {
        throw new CodecError(`json: cannot unmarshal ${jsonKind(value)} into Go value of type string`);
      }
      return value;
    case 'bytes':
      if (typeof value !== 'string') {
        throw new CodecError(`json: cannot unmarshal ${jsonKind(value)} into Go value of type []uint8`);
      }
      return decodeBase64(value);
    case 'hexbytes':
      if (typeof value !== 'string') throw new CodecError(`invalid hex string: ${shown(value)}`);
      return decodeHex(value);
    case 'strings':
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
        throw new CodecError(`json: cannot unmarshal ${jsonKind(value)} into Go value of type []string`);
      }
      return value;
    case 'evidence':
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw new CodecError(`json: cannot unmarshal ${jsonKind(value)} into Go value of type types.Evidence`);
      }
      return value;
  }
}
