import { typeError, type GoField } from './go-json';
import { checkHexDigits, dataDigits, HexError } from './hex';

/** Unformatted data (hexutil.Bytes): 0x-hex, two digits per byte; returned lower-case. */
export function decodeData(value: unknown, field?: GoField): string {
  if (typeof value !== 'string') throw typeError('non-string', 'hexutil.Bytes', field);
  try {
    const digits = dataDigits(value);
    checkHexDigits(digits);
    return '0x' + digits.toLowerCase();
  } catch (err) {
    if (err instanceof HexError) throw typeError(err.message, 'hexutil.Bytes', field);
    throw err;
  }
}
