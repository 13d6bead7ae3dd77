import { InvalidParamsError } from '../../rpc/errors';

/**
 * A storage key of eth_getStorageAt / eth_getProof, decoded as go-ethereum's decodeStorageKey: optional
 * 0x, odd lengths padded, at most 32 bytes. A bad key is an invalid-params error (-32602) with
 * go-ethereum's text and the key quoted.
 */
export function decodeStorageSlot(text: string): string {
  let digits = /^0[xX]/.test(text) ? text.slice(2) : text;
  if (digits.length % 2 === 1) digits = '0' + digits;
  if (digits.length > 64) throw new InvalidParamsError(`storage key too long (want at most 32 bytes): ${JSON.stringify(text)}`);
  if (!/^[0-9a-fA-F]*$/.test(digits)) throw new InvalidParamsError(`invalid hex in storage key: ${JSON.stringify(text)}`);
  return '0x' + digits.toLowerCase().padStart(64, '0');
}
