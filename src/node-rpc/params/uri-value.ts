import { CodecError } from '../../rpc/codec';
import { decodeHex, fromJsonValue, parseInteger } from './json-value';
import { goKind, type NodeParamType } from './param-types';

const INTEGER = /^-?[0-9]+$/;

/**
 * Converts one URI query value, in CometBFT's order: a bare integer for int kinds; 0x-hex for string
 * and byte kinds; a quoted string for byte kinds is its raw UTF-8; anything else is JSON.
 */
export function fromUriValue(text: string, type: NodeParamType): unknown {
  const isInt = type === 'int64' || type === 'int' || type === 'uint';
  if (isInt && INTEGER.test(text)) return parseInteger(text, type, text);
  if (text.startsWith('0x') || text.startsWith('0X')) {
    const hex = text.slice(2);
    if (type === 'string') return Buffer.from(decodeHex(hex)).toString('utf8');
    if (type === 'bytes' || type === 'hexbytes') return decodeHex(hex);
    throw new CodecError(`got a hex string arg, but expected '${goKind(type)}'`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new CodecError(goJsonSyntaxError(text));
  }
  if ((type === 'bytes' || type === 'hexbytes') && typeof json === 'string') {
    return Uint8Array.from(Buffer.from(json, 'utf8'));
  }
  if (isInt && typeof json === 'string') {
    if (!INTEGER.test(json)) throw new CodecError(`strconv.ParseInt: parsing ${JSON.stringify(json)}: invalid syntax`);
    return parseInteger(json, type, json);
  }
  if (isInt && typeof json === 'number') {
    throw new CodecError(`invalid ${type === 'int64' ? '64-bit ' : ''}integer encoding "${text}", expected string`);
  }
  if (type === 'string' && typeof json === 'number') {
    throw new CodecError('json: cannot unmarshal number into Go value of type string');
  }
  return fromJsonValue(json, type);
}

/** Go's encoding/json wording for the first invalid character of a value. */
function goJsonSyntaxError(text: string): string {
  const ch = text.trimStart()[0];
  return ch === undefined ? 'unexpected end of JSON input' : `invalid character '${ch}' looking for beginning of value`;
}
