/** The node's block store and state store over the devnet database. */
import type { Block, Commit, ConsensusParams } from '../chain/types';
import type { FinalizeBlockResult } from '../app/application';
import type { BlockMeta, ChainState } from '../producer/chain-state';
import type { ValidatorSet } from '../producer/validator-set';
import { Database, heightKey, Table, WriteBatch } from './database';
import { toHex } from '../bytes';

const STATE_KEY = 'state';
/**
 * Decoded metas and blocks kept in memory: status, block and blockchain read the same few heights over
 * and over, and a committed height never changes.
 */
const RECENT_METAS = 256;
const RECENT_BLOCKS = 64;

/** The last `size` records read, by height; the oldest read goes first. */
class RecentByHeight<T> {
  private readonly records = new Map<bigint, T>();

  constructor(private readonly size: number) {}

  async get(height: bigint, load: () => Promise<T | undefined>): Promise<T | undefined> {
    const recent = this.records.get(height);
    if (recent !== undefined) return recent;
    const record = await load();
    if (record === undefined) return undefined;
    if (this.records.size >= this.size) this.records.delete(this.records.keys().next().value!);
    this.records.set(height, record);
    return record;
  }
}

/** Everything one committed block adds to the store. */
export interface CommittedBlock {
  block: Block;
  meta: BlockMeta;
  /** This node's commit for the block; the canonical one arrives with the next block. */
  seenCommit: Commit;
  results: FinalizeBlockResult;
  /** The state after the block. */
  state: ChainState;
}

export class ChainStore {
  private readonly blocks: Table<Block>;
  private readonly metas: Table<BlockMeta>;
  private readonly heightsByHash: Table<bigint>;
  private readonly seenCommits: Table<Commit>;
  private readonly results: Table<FinalizeBlockResult>;
  private readonly validatorSets: Table<ValidatorSet>;
  private readonly params: Table<ConsensusParams>;
  private readonly states: Table<ChainState>;
  private readonly recentMetas = new RecentByHeight<BlockMeta>(RECENT_METAS);
  private readonly recentBlocks = new RecentByHeight<Block>(RECENT_BLOCKS);

  constructor(db: Database) {
    this.blocks = db.table('blocks');
    this.metas = db.table('block-metas');
    this.heightsByHash = db.table('block-hashes');
    this.seenCommits = db.table('seen-commits');
    this.results = db.table('finalize-block-results');
    this.validatorSets = db.table('validators');
    this.params = db.table('consensus-params');
    this.states = db.table('state');
  }

  loadState(): Promise<ChainState | undefined> {
    return this.states.get(STATE_KEY);
  }

  loadBlock(height: bigint): Promise<Block | undefined> {
    return this.recentBlocks.get(height, () => this.blocks.get(heightKey(height)));
  }

  loadMeta(height: bigint): Promise<BlockMeta | undefined> {
    return this.recentMetas.get(height, () => this.metas.get(heightKey(height)));
  }

  heightOfHash(hash: Uint8Array): Promise<bigint | undefined> {
    return this.heightsByHash.get(toHex(hash));
  }

  loadSeenCommit(height: bigint): Promise<Commit | undefined> {
    return this.seenCommits.get(heightKey(height));
  }

  /** The canonical commit for `height`: the last commit of the block above it. */
  async loadCanonicalCommit(height: bigint): Promise<Commit | undefined> {
    return (await this.loadBlock(height + 1n))?.lastCommit;
  }

  loadResults(height: bigint): Promise<FinalizeBlockResult | undefined> {
    return this.results.get(heightKey(height));
  }

  loadValidators(height: bigint): Promise<ValidatorSet | undefined> {
    return this.validatorSets.get(heightKey(height));
  }

  loadParams(height: bigint): Promise<ConsensusParams | undefined> {
    return this.params.get(heightKey(height));
  }

  /** The state before the first block: the sets for the first two heights and the first params. */
  saveGenesisState(batch: WriteBatch, state: ChainState): void {
    batch.put(this.validatorSets, heightKey(state.initialHeight), state.validators);
    batch.put(this.validatorSets, heightKey(state.initialHeight + 1n), state.nextValidators);
    batch.put(this.params, heightKey(state.initialHeight), state.consensusParams);
    batch.put(this.states, STATE_KEY, state);
  }

  saveBlock(batch: WriteBatch, committed: CommittedBlock): void {
    const { block, meta, seenCommit, results, state } = committed;
    const key = heightKey(block.header.height);
    batch.put(this.blocks, key, block);
    batch.put(this.metas, key, meta);
    batch.put(this.heightsByHash, toHex(meta.blockId.hash), block.header.height);
    batch.put(this.seenCommits, key, seenCommit);
    batch.put(this.results, key, results);
    batch.put(this.validatorSets, heightKey(state.lastBlockHeight + 2n), state.nextValidators);
    batch.put(this.params, heightKey(state.lastBlockHeight + 1n), state.consensusParams);
    batch.put(this.states, STATE_KEY, state);
  }
}
