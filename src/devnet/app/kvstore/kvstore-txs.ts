/**
 * The kvstore's transaction formats (abci/example/kvstore, v0.38):
 * - `key=value` or `key:value`: exactly one separator, not first or last, and none of the other kind;
 *   a proposal rewrites `:` to `=`;
 * - `val=<key type>!<base64 public key>!<power>`: a validator update (power 0 removes).
 */

export const VALIDATOR_PREFIX = 'val=';

export interface ValidatorTx {
  keyType: string;
  pubKey: Uint8Array;
  power: bigint;
}

const EQUALS = 0x3d;
const COLON = 0x3a;
const MAX_INT64 = (1n << 63n) - 1n;

export function isValidatorTx(tx: Uint8Array): boolean {
  return Buffer.from(tx).toString('latin1').startsWith(VALIDATOR_PREFIX);
}

/** The key/value format check of the kvstore's CheckTx. */
export function isKeyValueTx(tx: Uint8Array): boolean {
  const count = (byte: number): number => tx.reduce((n, b) => (b === byte ? n + 1 : n), 0);
  const framed = (byte: number): boolean => tx[0] !== byte && tx[tx.length - 1] !== byte;
  if (count(COLON) === 1 && count(EQUALS) === 0) return framed(COLON);
  if (count(EQUALS) === 1 && count(COLON) === 0) return framed(EQUALS);
  return false;
}

/** PrepareProposal's rewrite of the first `:` to `=`. */
export function normalizeKeyValueTx(tx: Uint8Array): Uint8Array {
  const i = tx.indexOf(COLON);
  if (i < 0) return tx;
  const out = Uint8Array.from(tx);
  out[i] = EQUALS;
  return out;
}

/**
 * The key and value FinalizeBlock sees in a tx: the two halves of `k=v`, otherwise the whole tx twice
 * (as for a validator tx, whose base64 key holds more `=`).
 */
export function keyValueOf(tx: Uint8Array): { key: Uint8Array; value: Uint8Array } {
  const parts = splitBytes(tx, EQUALS);
  return parts.length === 2 ? { key: parts[0], value: parts[1] } : { key: tx, value: tx };
}

/** parseValidatorTx: the update, or the reason the tx is malformed. */
export function parseValidatorTx(tx: Uint8Array): ValidatorTx | string {
  const fields = Buffer.from(tx.subarray(VALIDATOR_PREFIX.length)).toString('utf8').split('!');
  if (fields.length !== 3) return `expected 'pubkeytype!pubkey!power'. Got [${fields.join(' ')}]`;
  const [keyType, pubKeyText, powerText] = fields;
  const pubKey = decodeStdBase64(pubKeyText);
  if (pubKey === undefined) return `pubkey (${pubKeyText}) is invalid base64`;
  if (!/^[+-]?\d+$/.test(powerText) || BigInt(powerText) > MAX_INT64 || BigInt(powerText) < -MAX_INT64 - 1n) {
    return `power (${powerText}) is not an int`;
  }
  const power = BigInt(powerText);
  if (power < 0n) return `power can not be less than 0, got ${power}`;
  return { keyType, pubKey, power };
}

/** Go's base64.StdEncoding.DecodeString: standard alphabet, padded. */
function decodeStdBase64(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  return new Uint8Array(Buffer.from(text, 'base64'));
}

function splitBytes(bytes: Uint8Array, separator: number): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === separator) {
      parts.push(bytes.subarray(start, i));
      start = i + 1;
    }
  }
  return parts;
}
