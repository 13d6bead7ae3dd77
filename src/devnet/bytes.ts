/** Byte helpers shared by the devnet's modules. */

/** Lower-case hex, the devnet's key form for hashes and public keys. */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

export function utf8(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('utf8');
}

/** Go's hex.DecodeString: the bytes, or Go's error text for invalid input. */
export function decodeGoHex(text: string): Uint8Array | { error: string } {
  const bytes = Buffer.from(text, 'latin1');
  const isHex = (b: number): boolean => (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);
  const pairs = bytes.length - (bytes.length % 2);
  const bad = bytes.subarray(0, pairs).findIndex((b) => !isHex(b));
  if (bad >= 0) return { error: invalidByte(bytes[bad]) };
  if (bytes.length % 2 === 1) {
    const last = bytes[bytes.length - 1];
    return { error: isHex(last) ? 'encoding/hex: odd length hex string' : invalidByte(last) };
  }
  return new Uint8Array(Buffer.from(text, 'hex'));
}

/** InvalidByteError: `%#U` of the byte, quoted when printable. */
function invalidByte(b: number): string {
  const code = `U+${b.toString(16).toUpperCase().padStart(4, '0')}`;
  const printable = (b >= 0x20 && b < 0x7f) || b >= 0xa1;
  return `encoding/hex: invalid byte: ${printable ? `${code} '${String.fromCharCode(b)}'` : code}`;
}
