/**
 * The devnet's chain seen as an EVM chain: block parameters resolved to heights (Evmos's rules:
 * `latest`, `safe`, `finalized` and `pending` are the head, `earliest` the first block; a number is that
 * block), each height's node block, EVM record and state, and the executed transactions found by hash.
 * Below the first node block is the EVM genesis block (number 0 on a chain starting at height 1): the
 * genesis state, and the first block's parent hash.
 */
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import type { TypedTransaction } from '@ethereumjs/tx';
import { ApplicationError } from '../../../rpc/errors';
import type { BlockRef } from '../../../evm-rpc/evm-types';
import type { EvmApplication } from '../../../devnet/app/evm/evm-application';
import { decodeEthTx } from '../../../devnet/app/evm/eth-tx';
import type { BlockEnv } from '../../../devnet/app/evm/execution-context';
import type { Block } from '../../../devnet/chain/types';
import type { Devnet } from '../../../devnet/devnet';
import type { EvmBlockRecord, EvmTxRecord } from '../../../devnet/evm-state/evm-chain-store';
import { evmGenesisBlock, type EvmGenesisBlock } from '../../../devnet/evm-state/genesis-block';
import { equalsBytes } from '@ethereumjs/util';
import { fromHex } from '../../../devnet/app/evm/hex';

/** A block of the EVM chain: a committed node block's EVM face, or the genesis block. */
export interface EvmBlock {
  record: EvmBlockRecord;
  hash: Uint8Array;
  parentHash: Uint8Array;
  timestamp: bigint;
  miner: Uint8Array;
  /** Bytes: the node block's protobuf size, or the genesis block's RLP size. */
  size: number;
}

/** An executed Ethereum transaction and where it is. */
export interface ExecutedTx {
  block: EvmBlock;
  /** EVM transaction index in the block. */
  index: number;
  record: EvmTxRecord;
  tx: TypedTransaction;
}

/** The context the block's transactions ran in. */
export function blockEnvOf({ record, timestamp, miner }: EvmBlock): BlockEnv {
  return { height: record.height, timestamp, gasLimit: record.gasLimit, baseFee: record.baseFee, coinbase: miner };
}

const ZERO_HASH_BYTES = new Uint8Array(32);
const ZERO_ADDRESS_BYTES = new Uint8Array(20);

export const HEADER_NOT_FOUND = 'header not found';
export const HASH_NOT_FOUND = 'header for hash not found';

export class EvmChainView {
  private genesisBlock: Promise<EvmGenesisBlock | undefined> | undefined;

  constructor(
    readonly devnet: Devnet,
    readonly evm: EvmApplication,
  ) {}

  get head(): bigint {
    return this.devnet.latestHeight;
  }

  get firstHeight(): bigint {
    return this.devnet.state.initialHeight;
  }

  /** The EVM genesis block's number: just below the first node block. */
  get genesisHeight(): bigint {
    return this.firstHeight - 1n;
  }

  /** The EVM genesis block, once InitChain has stored the genesis state. */
  genesis(): Promise<EvmGenesisBlock | undefined> {
    this.genesisBlock ??= this.loadGenesisBlock();
    return this.genesisBlock;
  }

  private async loadGenesisBlock(): Promise<EvmGenesisBlock | undefined> {
    const head = await this.evm.chain.loadGenesis();
    if (head === undefined) {
      this.genesisBlock = undefined;
      return undefined;
    }
    const { genesis } = this.devnet.identity;
    return evmGenesisBlock(
      {
        number: this.genesisHeight,
        stateRoot: head.stateRoot,
        timestamp: genesis.genesisTime.seconds,
        gasLimit: this.evm.blockGasLimit,
        baseFee: this.evm.params.initialBaseFee,
      },
      this.evm.common,
    );
  }

  /** The height a block parameter names, if that block exists. */
  async heightOf(ref: BlockRef): Promise<bigint | undefined> {
    const head = this.head;
    if (head === 0n) return undefined;
    switch (ref.kind) {
      case 'tag':
        return ref.tag === 'earliest' ? this.firstHeight : head;
      case 'number':
        if (ref.number === this.genesisHeight) return (await this.genesis()) === undefined ? undefined : ref.number;
        return ref.number >= this.firstHeight && ref.number <= head ? ref.number : undefined;
      case 'hash': {
        const hash = fromHex(ref.hash);
        const genesis = await this.genesis();
        if (genesis !== undefined && equalsBytes(genesis.hash, hash)) return this.genesisHeight;
        return this.devnet.store.heightOfHash(hash);
      }
    }
  }

  /** The hash of the block at `height` (the node block's, or the genesis block's). */
  async hashAt(height: bigint): Promise<Uint8Array | undefined> {
    if (height === this.genesisHeight) return (await this.genesis())?.hash;
    return (await this.devnet.store.loadMeta(height))?.blockId.hash;
  }

  /** As heightOf, failing with go-ethereum's texts when there is no such block. */
  async requireHeight(ref: BlockRef): Promise<bigint> {
    const height = await this.heightOf(ref);
    if (height === undefined) throw new ApplicationError(ref.kind === 'hash' ? HASH_NOT_FOUND : HEADER_NOT_FOUND);
    return height;
  }

  async block(height: bigint): Promise<EvmBlock | undefined> {
    if (height === this.genesisHeight) {
      const genesis = await this.genesis();
      if (genesis === undefined) return undefined;
      const { record, hash, timestamp, size } = genesis;
      return { record, hash, parentHash: ZERO_HASH_BYTES, timestamp, miner: ZERO_ADDRESS_BYTES, size };
    }
    const [meta, record] = await Promise.all([this.devnet.store.loadMeta(height), this.evm.chain.loadBlock(height)]);
    if (meta === undefined || record === undefined) return undefined;
    // The first node block has no last block id: its EVM parent is the genesis block.
    let parentHash = meta.header.lastBlockId.hash;
    if (parentHash.length === 0) parentHash = (await this.genesis())?.hash ?? ZERO_HASH_BYTES;
    return {
      record,
      hash: meta.blockId.hash,
      parentHash,
      timestamp: meta.header.time.seconds,
      miner: meta.header.proposerAddress,
      size: meta.blockSize,
    };
  }

  async requireBlock(height: bigint): Promise<EvmBlock> {
    const block = await this.block(height);
    if (block === undefined) throw new ApplicationError(HEADER_NOT_FOUND);
    return block;
  }

  async nodeBlock(height: bigint): Promise<Block> {
    const block = await this.devnet.store.loadBlock(height);
    if (block === undefined) throw new ApplicationError(HEADER_NOT_FOUND);
    return block;
  }

  /** The Ethereum txs a block executed, decoded from its `data.txs`, in EVM order. */
  async transactionsOf(block: EvmBlock): Promise<TypedTransaction[]> {
    if (block.record.txs.length === 0) return [];
    const node = await this.nodeBlock(block.record.height);
    return block.record.txs.map((record) => this.decode(node.txs[record.position]));
  }

  async executedTx(hash: Uint8Array): Promise<ExecutedTx | undefined> {
    const location = await this.evm.chain.locate(hash);
    if (location === undefined || location.height > this.head) return undefined;
    const block = await this.block(location.height);
    if (block === undefined) return undefined;
    const record = block.record.txs[location.index];
    const node = await this.nodeBlock(location.height);
    return { block, index: location.index, record, tx: this.decode(node.txs[record.position]) };
  }

  /** The state after the block at `height`. */
  async stateAfter(height: bigint): Promise<MerkleStateManager> {
    return this.evm.stateAt((await this.requireBlock(height)).record.stateRoot);
  }

  /** The state the block at `height` started from. */
  async stateBefore(height: bigint): Promise<MerkleStateManager> {
    if (height <= this.genesisHeight) throw new ApplicationError('genesis is not traceable');
    if (height === this.firstHeight) {
      const genesis = await this.evm.chain.loadGenesis();
      if (genesis === undefined) throw new ApplicationError('genesis state not found');
      return this.evm.stateAt(genesis.stateRoot);
    }
    return this.stateAfter(height - 1n);
  }

  async stateAt(ref: BlockRef): Promise<MerkleStateManager> {
    return this.stateAfter(await this.requireHeight(ref));
  }

  /** Decodes stored tx bytes, which were executed and so are valid. */
  decode(bytes: Uint8Array): TypedTransaction {
    const decoded = decodeEthTx(bytes, this.evm.common);
    if (decoded.kind !== 'tx') throw new Error('a stored Ethereum transaction no longer decodes');
    return decoded.tx;
  }
}
