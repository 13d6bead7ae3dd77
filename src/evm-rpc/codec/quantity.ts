import { typeError, type GoField } from './go-json';
import { UINT64_MAX } from '../../rpc/int-bounds';
import { decodeUint64Text, HexError, HexMessage, quantityDigits } from './hex';

/** The hexutil quantity types of go-ethereum's signatures. */
export interface QuantityType {
  readonly goType: string;
  readonly maxDigits: number;
  readonly rangeMessage: string;
}

export const UINT64: QuantityType = { goType: 'hexutil.Uint64', maxDigits: 16, rangeMessage: HexMessage.uint64Range };
export const UINT: QuantityType = { goType: 'hexutil.Uint', maxDigits: 16, rangeMessage: HexMessage.uint64Range };
export const BIG: QuantityType = { goType: '*hexutil.Big', maxDigits: 64, rangeMessage: HexMessage.big256Range };

/** A quantity: 0x-hex, no leading zeros, `0x0` for zero (`""` too, as hexutil allows). */
export function decodeQuantity(value: unknown, type: QuantityType, field?: GoField): bigint {
  if (typeof value !== 'string') throw typeError('non-string', type.goType, field);
  try {
    const digits = quantityDigits(value, type.maxDigits, type.rangeMessage);
    return digits === null ? 0n : BigInt('0x' + digits);
  } catch (err) {
    if (err instanceof HexError) throw typeError(err.message, type.goType, field);
    throw err;
  }
}

/** rpc.DecimalOrHex (eth_feeHistory's blockCount): a decimal or hex uint64, quoted or not. */
export function decodeDecimalOrHex(value: unknown): bigint {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (/^[0-9]+$/.test(text) && BigInt(text) <= UINT64_MAX) return BigInt(text);
  return decodeUint64Text(text);
}
