/**
 * The commit path every block takes, whether this node proposed it or a follower fetched it: the
 * application executes it, then the block, its commit, results and index entries are stored with the
 * application's state in one atomic write, and only then is it announced to the commit listener, so
 * that whoever hears of a block can read it.
 */
import { Logger } from '@nestjs/common';
import type { Application, FinalizeBlockResult } from '../app/application';
import { headerHash, makePartSet } from '../chain/hashing';
import type { Block, BlockId, Commit } from '../chain/types';
import type { BlockIndexer } from '../indexer/block-indexer';
import { ReservedKeyError } from '../indexer/event-index';
import type { TxIndexer } from '../indexer/tx-indexer';
import type { Mempool } from '../mempool/mempool';
import type { ChainStore } from '../store/chain-store';
import type { Database, WriteBatch } from '../store/database';
import type { ChainState } from './chain-state';
import { maxDataBytes, updateState } from './chain-transitions';

export interface CommitParts {
  db: Database;
  store: ChainStore;
  app: Application;
  mempool: Mempool;
  txIndexer: TxIndexer;
  blockIndexer: BlockIndexer;
  onCommit: CommitListener;
}

/** Hears each block once it is stored and the mempool is updated (the node's events are made from it). */
export type CommitListener = (block: Block, blockId: BlockId, results: FinalizeBlockResult) => void;

/** A block with the id it hashes to and the size of its protobuf encoding. */
export interface IdentifiedBlock {
  block: Block;
  blockId: BlockId;
  blockSize: number;
}

export function identify(block: Block): IdentifiedBlock {
  const { header: partSetHeader, parts } = makePartSet(block);
  return {
    block,
    blockId: { hash: headerHash(block.header), partSetHeader },
    blockSize: parts.reduce((n, part) => n + part.length, 0),
  };
}

export class BlockCommitter {
  private readonly logger = new Logger('EmbeddedDevnet');

  constructor(
    private readonly parts: CommitParts,
    private current: ChainState,
  ) {}

  /** The state after the last committed block. */
  get state(): ChainState {
    return this.current;
  }

  /** FinalizeBlock: the application runs the block's txs; nothing is stored yet. */
  execute({ block, blockId }: IdentifiedBlock): Promise<FinalizeBlockResult> {
    return this.parts.app.finalizeBlock({
      height: block.header.height,
      time: block.header.time,
      txs: block.txs,
      hash: blockId.hash,
      proposerAddress: block.header.proposerAddress,
    });
  }

  /**
   * Stores an executed block with `seenCommit` (this node's commit for it), moves the state on,
   * updates the mempool (`reaped`: the txs this node proposed from it) and announces the block.
   */
  async commit(identified: IdentifiedBlock, results: FinalizeBlockResult, seenCommit: Commit, reaped: Uint8Array[]): Promise<void> {
    const { db, store, app, mempool, onCommit } = this.parts;
    const { block, blockId, blockSize } = identified;
    const next = updateState(this.current, blockId, block.header, results);
    const batch = db.batch();
    store.saveBlock(batch, {
      block,
      meta: { blockId, blockSize, header: block.header, numTxs: block.txs.length },
      seenCommit,
      results,
      state: next,
    });
    this.index(batch, block, results);
    const codes = results.txResults.map((r) => r.code);
    await mempool.commitBlock(
      async () => {
        app.commit(batch);
        await batch.write();
        this.current = next;
      },
      block.txs,
      codes,
      reaped,
      maxDataBytes(next),
    );
    onCommit(block, blockId, results);
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
