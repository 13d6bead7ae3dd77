/** Vote.String() of CometBFT (types/vote.go), which consensus-state dumps and evidence errors show. */
import type { BlockId, Timestamp } from './types';
import { timestampJson } from './wire';

export interface VoteFields {
  /** 1 prevote, 2 precommit. */
  type: number;
  height: bigint;
  round: number;
  blockId: BlockId;
  timestamp: Timestamp;
  validatorAddress: Uint8Array;
  validatorIndex: number;
  signature: Uint8Array;
  extension: Uint8Array;
}

const TYPE_NAMES: Record<number, [string, string]> = {
  1: ['SIGNED_MSG_TYPE_PREVOTE', 'Prevote'],
  2: ['SIGNED_MSG_TYPE_PRECOMMIT', 'Precommit'],
};

/** `Vote{index:ADDR H/RR/TYPE(Name) HASH SIG EXT @ time}` with 6-byte fingerprints. */
export function voteString(v: VoteFields): string {
  const [typeName, name] = TYPE_NAMES[v.type] ?? [String(v.type), 'Unknown'];
  return (
    `Vote{${v.validatorIndex}:${fingerprint(v.validatorAddress)} ${v.height}/${String(v.round).padStart(2, '0')}/${typeName}(${name}) ` +
    `${fingerprint(v.blockId.hash)} ${fingerprint(v.signature)} ${fingerprint(v.extension)} @ ${timestampJson(v.timestamp)}}`
  );
}

/** cmtbytes.Fingerprint: the first 6 bytes, zero-padded, in upper-case hex. */
export function fingerprint(bytes: Uint8Array): string {
  const out = Buffer.alloc(6);
  out.set(bytes.subarray(0, 6));
  return out.toString('hex').toUpperCase();
}
