/** go-ethereum's JSON encodings: quantities (`0x` + hex without leading zeros), data (`0x` + even hex), addresses. */
import { getAddress } from 'ethers';

export function quantity(value: bigint | number): string {
  return '0x' + value.toString(16);
}

export function hexData(bytes: Uint8Array): string {
  return '0x' + Buffer.from(bytes).toString('hex');
}

/** 0x-hex (either case, even length) to bytes. */
export function fromHex(text: string): Uint8Array {
  const body = text.startsWith('0x') || text.startsWith('0X') ? text.slice(2) : text;
  return new Uint8Array(Buffer.from(body.length % 2 === 1 ? '0' + body : body, 'hex'));
}

/** EIP-55 mixed-case address. */
export function toChecksumAddress(address: Uint8Array): string {
  return getAddress(hexData(address));
}

/** A 32-byte word as 0x-hex. */
export function word(value: bigint): string {
  return '0x' + value.toString(16).padStart(64, '0');
}

export const ZERO_HASH = '0x' + '00'.repeat(32);
export const ZERO_ADDRESS = '0x' + '00'.repeat(20);
