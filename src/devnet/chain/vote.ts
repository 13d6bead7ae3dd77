/**
 * Vote sign bytes (types.VoteSignBytes) and the single-validator commit the devnet produces.
 *
 * The signed message is a CanonicalVote, varint-length-prefixed (protoio.MarshalDelimited):
 *   1 type (varint), 2 height (sfixed64), 3 round (sfixed64), 4 block_id (CanonicalBlockID, left out for
 *   a zero BlockID), 5 timestamp (always present, even when empty), 6 chain_id.
 * Proto3 rules apply otherwise: zero type/height/round and an empty chain id are left out.
 */
import { BinaryWriter } from 'cosmjs-types/binary';
import { Timestamp as TimestampProto } from 'cosmjs-types/google/protobuf/timestamp';
import { sign, ValidatorKey } from './keys';
import { BlockId, Commit, Timestamp } from './types';

const PRECOMMIT_TYPE = 2;

/** `type` is the SignedMsgType: 1 prevote, 2 precommit. */
export function voteSignBytes(
  type: number,
  chainId: string,
  height: bigint,
  round: number,
  blockId: BlockId,
  timestamp: Timestamp,
): Uint8Array {
  const w = BinaryWriter.create();
  if (type !== 0) w.uint32(8).int32(type);
  if (height !== 0n) w.uint32(17).sfixed64(height);
  if (round !== 0) w.uint32(25).sfixed64(BigInt(round));
  if (blockId.hash.length !== 0 || blockId.partSetHeader.total !== 0 || blockId.partSetHeader.hash.length !== 0) {
    w.uint32(34).fork();
    if (blockId.hash.length !== 0) w.uint32(10).bytes(blockId.hash);
    // CanonicalPartSetHeader is non-nullable: always written, even when empty.
    w.uint32(18).fork();
    if (blockId.partSetHeader.total !== 0) w.uint32(8).uint32(blockId.partSetHeader.total);
    if (blockId.partSetHeader.hash.length !== 0) w.uint32(18).bytes(blockId.partSetHeader.hash);
    w.ldelim().ldelim();
  }
  TimestampProto.encode(timestamp, w.uint32(42).fork()).ldelim();
  if (chainId !== '') w.uint32(50).string(chainId);
  return BinaryWriter.create().bytes(w.finish()).finish();
}

export function precommitSignBytes(chainId: string, height: bigint, round: number, blockId: BlockId, timestamp: Timestamp): Uint8Array {
  return voteSignBytes(PRECOMMIT_TYPE, chainId, height, round, blockId, timestamp);
}

/** The commit for `blockId` signed by the devnet's only validator: one CommitSig with BlockIDFlagCommit. */
export function signCommit(
  key: ValidatorKey,
  chainId: string,
  height: bigint,
  round: number,
  blockId: BlockId,
  timestamp: Timestamp,
): Commit {
  return {
    height,
    round,
    blockId,
    signatures: [
      {
        blockIdFlag: 2,
        validatorAddress: key.address,
        timestamp,
        signature: sign(key, precommitSignBytes(chainId, height, round, blockId, timestamp)),
      },
    ],
  };
}
