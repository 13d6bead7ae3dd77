/**
 * Telling Ethereum transactions apart from other devnet txs, and decoding them. A tx is an Ethereum
 * transaction when its bytes are an Ethereum envelope: an RLP list of the 9 legacy fields, or a type
 * byte 0x01–0x04 followed by an RLP list. Everything else belongs to the kvstore.
 *
 * Envelopes the devnet refuses (blob and set-code types, another chain id, bad signature values) decode
 * to a rejection with go-ethereum's text.
 */
import { RLP } from '@ethereumjs/rlp';
import type { Common } from '@ethereumjs/common';
import { createTxFromRLP, TransactionType, type TypedTransaction } from '@ethereumjs/tx';
import { bytesToBigInt } from '@ethereumjs/util';

export type EthTxDecoding =
  | { kind: 'tx'; tx: TypedTransaction; protected: boolean }
  | { kind: 'refused'; reason: string }
  | { kind: 'foreign' };

const LEGACY_FIELD_COUNT = 9;
const V_FIELD = 6;
const SUPPORTED_TYPES: readonly number[] = [TransactionType.AccessListEIP2930, TransactionType.FeeMarketEIP1559];
const KNOWN_TYPES: readonly number[] = [...SUPPORTED_TYPES, TransactionType.BlobEIP4844, TransactionType.EOACodeEIP7702];

export const NOT_SUPPORTED = 'transaction type not supported';
export const BAD_SIGNATURE_VALUES = 'invalid sender: invalid transaction v, r, s values';
export const TIP_ABOVE_FEE_CAP = 'max priority fee per gas higher than max fee per gas';

export function decodeEthTx(bytes: Uint8Array, common: Common): EthTxDecoding {
  const fields = envelopeFields(bytes);
  if (fields === undefined) return { kind: 'foreign' };
  const type = bytes[0] >= 0xc0 ? TransactionType.Legacy : bytes[0];
  if (type !== TransactionType.Legacy && !SUPPORTED_TYPES.includes(type)) return { kind: 'refused', reason: NOT_SUPPORTED };
  const signed = signedChainId(type, fields);
  if (signed === 'invalid') return { kind: 'refused', reason: BAD_SIGNATURE_VALUES };
  if (signed !== undefined && signed !== common.chainId()) {
    return { kind: 'refused', reason: `invalid sender: invalid chain id for signer: have ${signed} want ${common.chainId()}` };
  }
  try {
    return { kind: 'tx', tx: createTxFromRLP(bytes, { common }), protected: signed !== undefined };
  } catch (err) {
    return { kind: 'refused', reason: constructionFailure((err as Error).message) };
  }
}

/** True for the bytes the EVM application handles (refused envelopes included). */
export function isEthTxEnvelope(bytes: Uint8Array): boolean {
  return envelopeFields(bytes) !== undefined;
}

/**
 * Why bytes that are not an Ethereum envelope cannot be sent as a raw transaction, in the words of
 * go-ethereum's decoder.
 */
export function undecodableReason(bytes: Uint8Array): string {
  if (bytes.length === 0 || (bytes[0] <= 0x7f && bytes.length === 1)) return 'typed transaction too short';
  if (bytes[0] <= 0x7f && !KNOWN_TYPES.includes(bytes[0])) return NOT_SUPPORTED;
  const typeName = bytes[0] > 0x7f ? 'types.LegacyTx' : bytes[0] === 1 ? 'types.AccessListTx' : 'types.DynamicFeeTx';
  let decoded: unknown;
  try {
    decoded = RLP.decode(bytes[0] > 0x7f ? bytes : bytes.subarray(1));
  } catch (err) {
    return `rlp: ${(err as Error).message}`;
  }
  if (!Array.isArray(decoded)) return `rlp: expected input list for ${typeName}`;
  if (decoded.length === LEGACY_FIELD_COUNT) return `rlp: expected input string or bytes for ${typeName}`;
  return decoded.length < LEGACY_FIELD_COUNT ? `rlp: too few elements for ${typeName}` : `rlp: input list has too many elements for ${typeName}`;
}

/** The RLP fields of an Ethereum envelope, or undefined when the bytes are not one. */
function envelopeFields(bytes: Uint8Array): Uint8Array[] | undefined {
  if (bytes.length === 0) return undefined;
  const legacy = bytes[0] >= 0xc0;
  if (!legacy && !KNOWN_TYPES.includes(bytes[0])) return undefined;
  let decoded: unknown;
  try {
    decoded = RLP.decode(legacy ? bytes : bytes.subarray(1));
  } catch {
    return undefined;
  }
  if (!Array.isArray(decoded)) return undefined;
  if (legacy && (decoded.length !== LEGACY_FIELD_COUNT || !decoded.every((f) => f instanceof Uint8Array))) return undefined;
  return decoded as Uint8Array[];
}

/** The chain id the signature commits to; undefined for a legacy tx signed without one (v = 27/28). */
function signedChainId(type: number, fields: Uint8Array[]): bigint | undefined | 'invalid' {
  if (type !== TransactionType.Legacy) return fields[0] instanceof Uint8Array ? bytesToBigInt(fields[0]) : 'invalid';
  const v = bytesToBigInt(fields[V_FIELD]);
  if (v === 27n || v === 28n) return undefined;
  if (v < 35n) return 'invalid';
  return (v - 35n) / 2n;
}

function constructionFailure(message: string): string {
  if (message.includes('maxFeePerGas cannot be less than maxPriorityFeePerGas')) return TIP_ABOVE_FEE_CAP;
  if (/signature|s-value|v value|\bv\b|invalid s\b|invalid r\b/i.test(message)) return BAD_SIGNATURE_VALUES;
  return `invalid transaction: ${message.replace(/ \(tx type=.*$/, '')}`;
}
