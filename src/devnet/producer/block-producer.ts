/**
 * Consensus for a one-validator devnet: every `block_time` (and at once on start) the next block is
 * proposed from the mempool, signed and committed (BlockCommitter). Blocks come even when the mempool
 * is empty, as with create_empty_blocks.
 */
import { Logger } from '@nestjs/common';
import type { Attributes } from '@opentelemetry/api';
import type { Application } from '../app/application';
import type { ValidatorKey } from '../chain/keys';
import type { Timestamp } from '../chain/types';
import type { Mempool } from '../mempool/mempool';
import type { ChainStore } from '../store/chain-store';
import { traceWork } from '../../tracing/spans';
import { addMillis, compareTimestamps, now } from '../time';
import { identify, type BlockCommitter } from './block-committer';
import { makeBlock, maxDataBytes, nextHeight } from './chain-transitions';
import { emptyCommit, signCommitFor } from './commit-signer';

export interface ProducerParts {
  store: ChainStore;
  app: Application;
  mempool: Mempool;
  committer: BlockCommitter;
  key: ValidatorKey;
}

export class BlockProducer {
  private readonly logger = new Logger('EmbeddedDevnet');
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private running = false;

  constructor(
    private readonly parts: ProducerParts,
    private readonly blockTimeMs: number,
  ) {}

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

  /** Makes, stores and announces the next block (a `devnet.block` span while tracing is on). */
  produceBlock(): Promise<void> {
    return traceWork('devnet.block', {}, (note) => this.makeBlock(note));
  }

  private async makeBlock(note: (attributes: Attributes) => void): Promise<void> {
    const { app, mempool, key, store, committer } = this.parts;
    const state = committer.state;
    const height = nextHeight(state);
    const lastCommit = height === state.initialHeight ? emptyCommit() : await store.loadSeenCommit(state.lastBlockHeight);
    if (lastCommit === undefined) throw new Error(`no commit stored for height ${state.lastBlockHeight}`);

    const maxReapBytes = state.consensusParams.block.maxBytes === -1n ? -1 : maxDataBytes(state);
    const reaped = mempool.reap(maxReapBytes, state.consensusParams.block.maxGas);
    note({ 'rpcgw.devnet.height': Number(height), 'rpcgw.devnet.txs': reaped.length });
    const block = identify(makeBlock(state, await app.prepareProposal(reaped), lastCommit, key.address));
    const results = await committer.execute(block);
    const seenCommit = signCommitFor(key, state.chainId, height, block.blockId, state.validators, voteTime(block.block.header.time));
    await committer.commit(block, results, seenCommit, reaped);
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.inFlight = this.produceBlock()
        .catch((err: unknown) => {
          // A half-applied block must not be followed by another: the devnet halts, as a node would.
          this.running = false;
          this.logger.error(`block ${nextHeight(this.parts.committer.state)} failed, block production stopped: ${String(err)}`);
        })
        .finally(() => {
          this.inFlight = undefined;
          if (this.running) this.schedule(this.blockTimeMs);
        });
    }, delayMs);
  }
}

/** voteTime: now, but always at least 1 ms after the block's time. */
function voteTime(blockTime: Timestamp): Timestamp {
  const earliest = addMillis(blockTime, 1);
  const current = now();
  return compareTimestamps(current, earliest) > 0 ? current : earliest;
}
