/**
 * Consensus for a one-validator devnet: every `block_time` (and at once on start) the next block is
 * proposed from the mempool, executed, signed, stored with everything derived from it in one atomic
 * write, and only then announced on the event bus, so that whoever hears of a block can read it.
 * Blocks come even when the mempool is empty, as with create_empty_blocks.
 */
import { Logger } from '@nestjs/common';
import type { EventBus } from '../../../events';
import type { Application, FinalizeBlockResult } from '../app/application';
import { headerHash, makePartSet } from '../chain/hashing';
import type { ValidatorKey } from '../chain/keys';
import type { Block, BlockId, Timestamp } from '../chain/types';
import { blockEvents } from '../events/block-events';
import type { BlockIndexer } from '../indexer/block-indexer';
import { ReservedKeyError } from '../indexer/event-index';
import type { TxIndexer } from '../indexer/tx-indexer';
import type { Mempool } from '../mempool/mempool';
import type { ChainStore } from '../store/chain-store';
import type { Database, WriteBatch } from '../store/database';
import { addMillis, compareTimestamps, now } from '../time';
import type { ChainState } from './chain-state';
import { makeBlock, maxDataBytes, nextHeight, updateState } from './chain-transitions';
import { emptyCommit, signCommitFor } from './commit-signer';

export interface ProducerParts {
  db: Database;
  store: ChainStore;
  app: Application;
  mempool: Mempool;
  txIndexer: TxIndexer;
  blockIndexer: BlockIndexer;
  bus: EventBus;
  key: ValidatorKey;
}

export class BlockProducer {
  private readonly logger = new Logger('EmbeddedDevnet');
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private running = false;

  constructor(
    private readonly parts: ProducerParts,
    private state: ChainState,
    private readonly blockTimeMs: number,
  ) {}

  /** The state after the last committed block. */
  get chainState(): ChainState {
    return this.state;
  }

  /** Produces a block at once, then one every block time. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.inFlight = this.produceBlock();
    try {
      await this.inFlight;
    } catch (err) {
      this.running = false;
      throw err;
    } finally {
      this.inFlight = undefined;
    }
    if (this.running) this.schedule(this.blockTimeMs);
  }

  /** Stops the timer and waits for a block in progress to be stored. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.inFlight;
  }

  /** Makes, stores and announces the next block. */
  async produceBlock(): Promise<void> {
    const { app, mempool, key, db, store } = this.parts;
    const state = this.state;
    const height = nextHeight(state);
    const lastCommit = height === state.initialHeight ? emptyCommit() : await store.loadSeenCommit(state.lastBlockHeight);
    if (lastCommit === undefined) throw new Error(`no commit stored for height ${state.lastBlockHeight}`);

    const maxReapBytes = state.consensusParams.block.maxBytes === -1n ? -1 : maxDataBytes(state);
    const reaped = mempool.reap(maxReapBytes, state.consensusParams.block.maxGas);
    const block = makeBlock(state, await app.prepareProposal(reaped), lastCommit, key.address);
    const { header: partSetHeader, parts } = makePartSet(block);
    const blockId: BlockId = { hash: headerHash(block.header), partSetHeader };
    const results = await app.finalizeBlock({
      height,
      time: block.header.time,
      txs: block.txs,
      hash: blockId.hash,
      proposerAddress: key.address,
    });
    const next = updateState(state, blockId, block.header, results);
    const seenCommit = signCommitFor(key, state.chainId, height, blockId, state.validators, voteTime(block.header.time));

    const batch = db.batch();
    const blockSize = parts.reduce((n, part) => n + part.length, 0);
    store.saveBlock(batch, {
      block,
      meta: { blockId, blockSize, header: block.header, numTxs: block.txs.length },
      seenCommit,
      results,
      state: next,
    });
    this.index(batch, block, results);
    app.commit(batch);
    await batch.write();
    this.state = next;

    await mempool.update(block.txs, results.txResults.map((r) => r.code), reaped, maxDataBytes(next));
    for (const event of blockEvents(block, blockId, results)) this.parts.bus.publish(event);
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.inFlight = this.produceBlock()
        .catch((err: unknown) => {
          // A half-applied block must not be followed by another: the devnet halts, as a node would.
          this.running = false;
          this.logger.error(`block ${nextHeight(this.state)} failed, block production stopped: ${String(err)}`);
        })
        .finally(() => {
          this.inFlight = undefined;
          if (this.running) this.schedule(this.blockTimeMs);
        });
    }, delayMs);
  }

  /** Indexing problems cost the block its index entries, not the block (as CometBFT's IndexerService). */
  private index(batch: WriteBatch, block: Block, results: FinalizeBlockResult): void {
    const { height } = block.header;
    try {
      this.parts.blockIndexer.index(batch, height, results.events);
      this.parts.txIndexer.index(
        batch,
        block.txs.map((tx, index) => ({ height, index, tx, result: results.txResults[index] })),
      );
    } catch (err) {
      if (!(err instanceof ReservedKeyError)) throw err;
      this.logger.error(`failed to index block ${height}: ${err.message}`);
    }
  }
}

/** voteTime: now, but always at least 1 ms after the block's time. */
function voteTime(blockTime: Timestamp): Timestamp {
  const earliest = addMillis(blockTime, 1);
  const current = now();
  return compareTimestamps(current, earliest) > 0 ? current : earliest;
}
