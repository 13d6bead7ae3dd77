/**
 * DuplicateVoteEvidence (types/evidence.go, evidence/verify.go): decoding, ValidateBasic and the
 * verification against the chain that the evidence pool runs, with CometBFT's error texts.
 */
import { DuplicateVoteEvidence as DuplicateVoteEvidenceProto } from 'cosmjs-types/tendermint/types/evidence';
import { PartSetHeader as PartSetHeaderProto } from 'cosmjs-types/tendermint/types/types';
import { addressOf, verify } from '../chain/keys';
import { sha256 } from '../chain/merkle';
import type { BlockId, Timestamp, Validator } from '../chain/types';
import { hexJson } from '../chain/wire';
import { voteSignBytes } from '../chain/vote';
import { voteString, VoteFields } from '../chain/vote-string';
import { base64Field, blockIdField, hexField, int32Field, int64Field, JsonFields, objectField, timeField } from './amino-decode';
import { blockIdString } from './go-format';

export interface Vote extends VoteFields {
  extensionSignature: Uint8Array;
}

export interface DuplicateVoteEvidence {
  voteA?: Vote;
  voteB?: Vote;
  totalVotingPower: bigint;
  validatorPower: bigint;
  timestamp: Timestamp;
}

/** What verification needs to know about the chain at the evidence's height. */
export interface EvidenceContext {
  chainId: string;
  validators: Validator[];
}

const HASH_SIZE = 32;
const ADDRESS_SIZE = 20;
const MAX_SIGNATURE_SIZE = 64;
const PREVOTE = 1;
const PRECOMMIT = 2;

export function decodeDuplicateVoteEvidence(value: JsonFields): DuplicateVoteEvidence {
  const vote = (name: string): Vote | undefined => {
    const v = objectField(value, name);
    return v && {
      type: int32Field(v, 'type'),
      height: int64Field(v, 'height'),
      round: int32Field(v, 'round'),
      blockId: blockIdField(v, 'block_id'),
      timestamp: timeField(v, 'timestamp'),
      validatorAddress: hexField(v, 'validator_address'),
      validatorIndex: int32Field(v, 'validator_index'),
      signature: base64Field(v, 'signature'),
      extension: base64Field(v, 'extension'),
      extensionSignature: base64Field(v, 'extension_signature'),
    };
  };
  return {
    voteA: vote('vote_a'),
    voteB: vote('vote_b'),
    totalVotingPower: int64Field(value, 'TotalVotingPower'),
    validatorPower: int64Field(value, 'ValidatorPower'),
    timestamp: timeField(value, 'Timestamp'),
  };
}

/** ValidateBasic: the reason the evidence is malformed, if it is. */
export function validateDuplicateVote(ev: DuplicateVoteEvidence): string | undefined {
  if (ev.voteA === undefined || ev.voteB === undefined) {
    return `one or both of the votes are empty ${describeVote(ev.voteA)}, ${describeVote(ev.voteB)}`;
  }
  const a = validateVote(ev.voteA);
  if (a !== undefined) return `invalid VoteA: ${a}`;
  const b = validateVote(ev.voteB);
  if (b !== undefined) return `invalid VoteB: ${b}`;
  if (Buffer.compare(blockIdKey(ev.voteA.blockId), blockIdKey(ev.voteB.blockId)) >= 0) return 'duplicate votes in invalid order';
  return undefined;
}

/** VerifyDuplicateVote against the validator set at the evidence's height. */
export function verifyDuplicateVote(ev: Required<DuplicateVoteEvidence>, ctx: EvidenceContext): string | undefined {
  const { voteA: a, voteB: b } = ev;
  const validator = ctx.validators.find((v) => Buffer.from(v.address).equals(a.validatorAddress));
  if (validator === undefined) return `address ${hexJson(a.validatorAddress)} was not a validator at height ${a.height}`;
  if (a.height !== b.height || a.round !== b.round || a.type !== b.type) {
    return `h/r/s does not match: ${a.height}/${a.round}/${typeName(a.type)} vs ${b.height}/${b.round}/${typeName(b.type)}`;
  }
  if (!Buffer.from(a.validatorAddress).equals(b.validatorAddress)) {
    return `validator addresses do not match: ${hexJson(a.validatorAddress)} vs ${hexJson(b.validatorAddress)}`;
  }
  if (Buffer.compare(blockIdKey(a.blockId), blockIdKey(b.blockId)) === 0) {
    return `block IDs are the same (${blockIdString(a.blockId)}) - not a real duplicate vote`;
  }
  if (!Buffer.from(addressOf(validator.pubKey)).equals(a.validatorAddress)) {
    const pubKey = hexJson(validator.pubKey);
    return `address (${hexJson(a.validatorAddress)}) doesn't match pubkey (PubKeyEd25519{${pubKey}} - ${hexJson(addressOf(validator.pubKey))})`;
  }
  if (validator.votingPower !== ev.validatorPower) {
    return `validator power from evidence and our validator set does not match (${ev.validatorPower} != ${validator.votingPower})`;
  }
  const total = ctx.validators.reduce((sum, v) => sum + v.votingPower, 0n);
  if (total !== ev.totalVotingPower) {
    return `total voting power from the evidence and our validator set does not match (${ev.totalVotingPower} != ${total})`;
  }
  for (const [name, vote] of [['VoteA', a], ['VoteB', b]] as const) {
    const signBytes = voteSignBytes(vote.type, ctx.chainId, vote.height, vote.round, vote.blockId, vote.timestamp);
    if (!verify(validator.pubKey, signBytes, vote.signature)) return `verifying ${name}: invalid signature`;
  }
  return undefined;
}

/** Evidence.Hash(): sha256 of the protobuf encoding. */
export function duplicateVoteHash(ev: Required<DuplicateVoteEvidence>): Uint8Array {
  return sha256(DuplicateVoteEvidenceProto.encode(ev).finish());
}

/** DuplicateVoteEvidence.String(). */
export function duplicateVoteString(ev: DuplicateVoteEvidence): string {
  return `DuplicateVoteEvidence{VoteA: ${describeVote(ev.voteA)}, VoteB: ${describeVote(ev.voteB)}}`;
}

function validateVote(v: Vote): string | undefined {
  if (v.type !== PREVOTE && v.type !== PRECOMMIT) return 'invalid Type';
  if (v.height <= 0n) return 'negative or zero Height';
  if (v.round < 0) return 'negative Round';
  const hashError = (hash: Uint8Array): string | undefined =>
    hash.length === 0 || hash.length === HASH_SIZE ? undefined : `expected size to be ${HASH_SIZE} bytes, got ${hash.length} bytes`;
  if (hashError(v.blockId.hash) !== undefined) return 'wrong BlockID: wrong Hash';
  const partsError = hashError(v.blockId.partSetHeader.hash);
  if (partsError !== undefined) return `wrong BlockID: wrong PartSetHeader: wrong Hash: ${partsError}`;
  const zero = isZero(v.blockId);
  if (!zero && !isComplete(v.blockId)) return `blockID must be either empty or complete, got: ${blockIdString(v.blockId)}`;
  if (v.validatorAddress.length !== ADDRESS_SIZE) {
    return `expected ValidatorAddress size to be ${ADDRESS_SIZE} bytes, got ${v.validatorAddress.length} bytes`;
  }
  if (v.validatorIndex < 0) return 'negative ValidatorIndex';
  if (v.signature.length === 0) return 'signature is missing';
  if (v.signature.length > MAX_SIGNATURE_SIZE) return `signature is too big (max: ${MAX_SIGNATURE_SIZE})`;
  if (v.type !== PRECOMMIT || zero) {
    if (v.extension.length > 0) return `unexpected vote extension; vote type ${v.type}, isNil ${zero}`;
    if (v.extensionSignature.length > 0) return 'unexpected vote extension signature';
  } else {
    if (v.extensionSignature.length > MAX_SIGNATURE_SIZE) return `vote extension signature is too big (max: ${MAX_SIGNATURE_SIZE})`;
    if (v.extensionSignature.length === 0 && v.extension.length !== 0) return 'vote extension signature absent on vote with extension';
  }
  return undefined;
}

function isZero(id: BlockId): boolean {
  return id.hash.length === 0 && id.partSetHeader.total === 0 && id.partSetHeader.hash.length === 0;
}

function isComplete(id: BlockId): boolean {
  return id.hash.length === HASH_SIZE && id.partSetHeader.total > 0 && id.partSetHeader.hash.length === HASH_SIZE;
}

/** BlockID.Key(): the hash followed by the protobuf PartSetHeader. */
function blockIdKey(id: BlockId): Buffer {
  return Buffer.concat([id.hash, PartSetHeaderProto.encode(id.partSetHeader).finish()]);
}

function describeVote(v: Vote | undefined): string {
  return v === undefined ? 'nil-Vote' : voteString(v);
}

function typeName(type: number): string {
  return type === PREVOTE ? 'SIGNED_MSG_TYPE_PREVOTE' : 'SIGNED_MSG_TYPE_PRECOMMIT';
}
