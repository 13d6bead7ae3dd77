/**
 * Fetches what a follower needs to replay one block from its leader, in three concurrent calls: the
 * block (its txs, last commit, proposer and id), the leader's commit for it, and the app hash its
 * results committed to.
 */
import type { BlockId, BlockIdFlag, Commit } from '../chain/types';
import type { BlockIdJson, BlockJson, CommitJson } from '../chain/wire';
import { parseTimestamp } from '../time';
import type { LeaderConnection } from './leader-connection';

export interface LeaderBlock {
  height: bigint;
  /** The id the leader's block hashes to. */
  blockId: BlockId;
  txs: Uint8Array[];
  lastCommit: Commit;
  proposerAddress: Uint8Array;
  /** The leader's commit for this block. */
  commit: Commit;
  /** The app hash after executing this block (block_results, where it is base64). */
  appHash: Uint8Array;
}

export class BlockFetcher {
  constructor(private readonly leader: LeaderConnection) {}

  async fetch(height: bigint): Promise<LeaderBlock> {
    const params = { height: height.toString() };
    const [blockAnswer, commitAnswer, resultsAnswer] = await Promise.all([
      this.leader.call('block', params),
      this.leader.call('commit', params),
      this.leader.call('block_results', params),
    ]);
    const { block, block_id: blockId } = blockAnswer as unknown as { block: BlockJson; block_id: BlockIdJson };
    const { signed_header: signed } = commitAnswer as unknown as { signed_header: { commit: CommitJson } };
    const { app_hash: appHash } = resultsAnswer as { app_hash?: string };
    if (block?.header?.height !== height.toString() || signed?.commit === undefined || typeof appHash !== 'string') {
      throw new Error(`the leader's answers for block ${height} are incomplete`);
    }
    return {
      height,
      blockId: blockIdOf(blockId),
      txs: (block.data.txs ?? []).map((tx) => new Uint8Array(Buffer.from(tx, 'base64'))),
      lastCommit: commitOf(block.last_commit),
      proposerAddress: hex(block.header.proposer_address),
      commit: commitOf(signed.commit),
      appHash: new Uint8Array(Buffer.from(appHash, 'base64')),
    };
  }
}

function hex(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'hex'));
}

function blockIdOf(json: BlockIdJson): BlockId {
  return { hash: hex(json.hash), partSetHeader: { total: json.parts.total, hash: hex(json.parts.hash) } };
}

function commitOf(json: CommitJson): Commit {
  return {
    height: BigInt(json.height),
    round: json.round,
    blockId: blockIdOf(json.block_id),
    signatures: json.signatures.map((s) => {
      const timestamp = parseTimestamp(s.timestamp);
      if (timestamp === undefined) throw new Error(`the leader's commit ${json.height} has a bad timestamp ${s.timestamp}`);
      return {
        blockIdFlag: s.block_id_flag as BlockIdFlag,
        validatorAddress: hex(s.validator_address),
        timestamp,
        signature: new Uint8Array(Buffer.from(s.signature ?? '', 'base64')),
      };
    }),
  };
}
