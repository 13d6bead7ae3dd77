/**
 * Replays a leader's block on the follower: the block is rebuilt from the follower's own state with
 * the leader's txs, last commit and proposer, so that it hashes to the leader's block id only when
 * both nodes agree on everything the header commits to (validators, params, last results, app hash);
 * then it is executed by the same application and committed the way the validator commits its own.
 */
import { hexJson } from '../chain/wire';
import type { BlockId } from '../chain/types';
import { identify, type BlockCommitter } from '../producer/block-committer';
import { makeBlock, nextHeight } from '../producer/chain-transitions';
import type { LeaderBlock } from './block-fetcher';

/** The follower's replay of a block disagrees with the leader's. */
export class DivergenceError extends Error {
  override readonly name = 'DivergenceError';

  constructor(
    readonly height: bigint,
    what: 'block hash' | 'app hash',
    ours: Uint8Array,
    leaders: Uint8Array,
  ) {
    super(`block ${height} diverges from the leader: ${what} ${hexJson(ours)} here, ${hexJson(leaders)} on the leader`);
  }
}

export class BlockApplier {
  constructor(private readonly committer: BlockCommitter) {}

  async apply(fetched: LeaderBlock): Promise<void> {
    const state = this.committer.state;
    const height = nextHeight(state);
    if (fetched.height !== height) throw new Error(`block ${fetched.height} fetched, but the next height is ${height}`);
    const block = identify(makeBlock(state, fetched.txs, fetched.lastCommit, fetched.proposerAddress));
    if (!sameBlockId(block.blockId, fetched.blockId)) {
      throw new DivergenceError(height, 'block hash', block.blockId.hash, fetched.blockId.hash);
    }
    const results = await this.committer.execute(block);
    if (!Buffer.from(results.appHash).equals(fetched.appHash)) {
      throw new DivergenceError(height, 'app hash', results.appHash, fetched.appHash);
    }
    await this.committer.commit(block, results, fetched.commit, []);
  }
}

function sameBlockId(a: BlockId, b: BlockId): boolean {
  return (
    Buffer.from(a.hash).equals(b.hash) &&
    a.partSetHeader.total === b.partSetHeader.total &&
    Buffer.from(a.partSetHeader.hash).equals(b.partSetHeader.hash)
  );
}
