/**
 * The devnet's precommits. Its validator signs every block; any other validator a validator-update
 * tx added has no node behind it, so its slot in the commit is absent.
 */
import { sign, ValidatorKey } from '../chain/keys';
import type { BlockId, Commit, CommitSig, Timestamp } from '../chain/types';
import { precommitSignBytes } from '../chain/vote';
import { ZERO_TIME } from '../time';
import type { ValidatorSet } from './validator-set';

/** The last commit of the first block: height 0, no block, no signatures. */
export function emptyCommit(): Commit {
  return { height: 0n, round: 0, blockId: zeroBlockId(), signatures: [] };
}

export function zeroBlockId(): BlockId {
  return { hash: new Uint8Array(0), partSetHeader: { total: 0, hash: new Uint8Array(0) } };
}

/** A round-0 commit for `blockId`: one CommitSig per validator of `set`, in the set's order. */
export function signCommitFor(
  key: ValidatorKey,
  chainId: string,
  height: bigint,
  blockId: BlockId,
  set: ValidatorSet,
  timestamp: Timestamp,
): Commit {
  const signatures = set.validators.map((v): CommitSig => {
    if (!Buffer.from(v.address).equals(key.address)) {
      return { blockIdFlag: 1, validatorAddress: new Uint8Array(0), timestamp: ZERO_TIME, signature: new Uint8Array(0) };
    }
    const signature = sign(key, precommitSignBytes(chainId, height, 0, blockId, timestamp));
    return { blockIdFlag: 2, validatorAddress: key.address, timestamp, signature };
  });
  return { height, round: 0, blockId, signatures };
}
