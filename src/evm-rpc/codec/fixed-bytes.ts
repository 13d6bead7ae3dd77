import { CodecError } from './codec-error';
import { typeError, type GoField } from './go-json';
import { checkHexDigits, dataDigits, HexError } from './hex';

/** A fixed-length byte type of go-ethereum (common.Address, common.Hash). */
export interface FixedType {
  readonly goType: string;
  readonly bytes: number;
}

export const ADDRESS: FixedType = { goType: 'common.Address', bytes: 20 };
export const HASH: FixedType = { goType: 'common.Hash', bytes: 32 };

/**
 * hexutil.UnmarshalFixedText: 0x-hex of exactly the type's length. The length error is not wrapped
 * in a JSON type error, as in go-ethereum. Returned lower-case.
 */
export function fixedText(text: string, type: FixedType): string {
  const digits = dataDigits(text);
  if (digits.length / 2 !== type.bytes) {
    throw new CodecError(`hex string has length ${digits.length}, want ${type.bytes * 2} for ${type.goType}`);
  }
  checkHexDigits(digits);
  return '0x' + digits.toLowerCase();
}

/** The JSON form (UnmarshalFixedJSON): a string, hexutil errors wrapped in a JSON type error. */
export function decodeFixed(value: unknown, type: FixedType, field?: GoField): string {
  if (typeof value !== 'string') throw typeError('non-string', type.goType, field);
  try {
    return fixedText(value, type);
  } catch (err) {
    if (err instanceof HexError) throw typeError(err.message, type.goType, field);
    throw err;
  }
}

export const decodeAddress = (value: unknown, field?: GoField): string => decodeFixed(value, ADDRESS, field);
export const decodeHash = (value: unknown, field?: GoField): string => decodeFixed(value, HASH, field);
