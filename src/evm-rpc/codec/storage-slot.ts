import { ApplicationError } from '../../rpc/errors';

/**
 * A storage slot of eth_getStorageAt / eth_getProof, decoded as go-ethereum's decodeHash: optional
 * 0x, odd lengths padded, at most 32 bytes; failures are call errors (-32000), not param errors.
 */
export function decodeStorageSlot(text: string): string {
  let digits = /^0[xX]/.test(text) ? text.slice(2) : text;
  if (digits.length % 2 === 1) digits = '0' + digits;
  if (!/^[0-9a-fA-F]*$/.test(digits)) throw new ApplicationError('hex string invalid');
  if (digits.length > 64) throw new ApplicationError('hex string too long, want at most 32 bytes');
  return '0x' + digits.toLowerCase().padStart(64, '0');
}
