import { CodecError } from './codec-error';
import { UINT64_MAX } from '../../rpc/int-bounds';

/** go-ethereum's hexutil error texts. */
export const HexMessage = {
  empty: 'empty hex string',
  syntax: 'invalid hex string',
  missingPrefix: 'hex string without 0x prefix',
  oddLength: 'hex string of odd length',
  emptyNumber: 'hex string "0x"',
  leadingZero: 'hex number with leading zero digits',
  uint64Range: 'hex number > 64 bits',
  big256Range: 'hex number > 256 bits',
} as const;

/** A hexutil decoding failure; JSON types wrap it as `json: cannot unmarshal <text> into …`. */
export class HexError extends CodecError {}

const HEX_DIGITS = /^[0-9a-fA-F]*$/;

export function has0xPrefix(text: string): boolean {
  return text.length >= 2 && text[0] === '0' && (text[1] === 'x' || text[1] === 'X');
}

/** hexutil checkNumberText: the digits of a JSON quantity; `""` is zero (null digits). */
export function quantityDigits(text: string, maxDigits: number, rangeMessage: string): string | null {
  if (text.length === 0) return null;
  if (!has0xPrefix(text)) throw new HexError(HexMessage.missingPrefix);
  const digits = text.slice(2);
  if (digits.length === 0) throw new HexError(HexMessage.emptyNumber);
  if (digits.length > 1 && digits[0] === '0') throw new HexError(HexMessage.leadingZero);
  if (digits.length > maxDigits) throw new HexError(rangeMessage);
  if (!HEX_DIGITS.test(digits)) throw new HexError(HexMessage.syntax);
  return digits;
}

/** hexutil.DecodeUint64, used by block numbers: an empty string is an error here. */
export function decodeUint64Text(text: string): bigint {
  if (text.length === 0) throw new HexError(HexMessage.empty);
  if (!has0xPrefix(text)) throw new HexError(HexMessage.missingPrefix);
  const digits = text.slice(2);
  if (digits.length === 0) throw new HexError(HexMessage.emptyNumber);
  if (digits.length > 1 && digits[0] === '0') throw new HexError(HexMessage.leadingZero);
  if (!HEX_DIGITS.test(digits)) throw new HexError(HexMessage.syntax);
  // Validated digits under the prefix: BigInt reads the text as it is.
  const value = BigInt(text);
  if (value > UINT64_MAX) throw new HexError(HexMessage.uint64Range);
  return value;
}

/** hexutil checkText with the prefix required: the digits of unformatted data (`""` is empty data). */
export function dataDigits(text: string): string {
  if (text.length === 0) return '';
  if (!has0xPrefix(text)) throw new HexError(HexMessage.missingPrefix);
  const digits = text.slice(2);
  if (digits.length % 2 !== 0) throw new HexError(HexMessage.oddLength);
  return digits;
}

export function checkHexDigits(digits: string): void {
  if (!HEX_DIGITS.test(digits)) throw new HexError(HexMessage.syntax);
}

/** The quantity encoding of the EVM RPC: 0x-hex, most compact, `0x0` for zero. */
export function toQuantity(value: bigint | number): string {
  return '0x' + value.toString(16);
}
