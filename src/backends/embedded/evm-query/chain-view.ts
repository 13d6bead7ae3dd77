/**
 * The devnet's chain seen as an EVM chain: block parameters resolved to heights (Evmos's rules:
 * `latest`, `safe`, `finalized` and `pending` are the head, `earliest` and 0 the first block), each
 * height's node block, EVM record and state, and the executed transactions found by hash.
 */
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import type { TypedTransaction } from '@ethereumjs/tx';
import { ApplicationError } from '../../../rpc/errors';
import type { BlockRef } from '../../evm-backend';
import type { EvmApplication } from '../../../devnet/app/evm/evm-application';
import { decodeEthTx } from '../../../devnet/app/evm/eth-tx';
import type { BlockEnv } from '../../../devnet/app/evm/execution-context';
import type { Block } from '../../../devnet/chain/types';
import type { Devnet } from '../../../devnet/devnet';
import type { EvmBlockRecord, EvmTxRecord } from '../../../devnet/evm-state/evm-chain-store';
import type { BlockMeta } from '../../../devnet/producer/chain-state';
import { fromHex } from '../../../devnet/app/evm/hex';

/** A committed block with both of its faces. */
export interface EvmBlock {
  meta: BlockMeta;
  record: EvmBlockRecord;
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
export function blockEnvOf({ meta, record }: EvmBlock): BlockEnv {
  return {
    height: record.height,
    timestamp: meta.header.time.seconds,
    gasLimit: record.gasLimit,
    baseFee: record.baseFee,
    coinbase: meta.header.proposerAddress,
  };
}

export const HEADER_NOT_FOUND = 'header not found';
export const HASH_NOT_FOUND = 'header for hash not found';

export class EvmChainView {
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

  /** The height a block parameter names, if that block exists. */
  async heightOf(ref: BlockRef): Promise<bigint | undefined> {
    const head = this.head;
    if (head === 0n) return undefined;
    switch (ref.kind) {
      case 'tag':
        return ref.tag === 'earliest' ? this.firstHeight : head;
      case 'number': {
        const height = ref.number === 0n ? this.firstHeight : ref.number;
        return height >= this.firstHeight && height <= head ? height : undefined;
      }
      case 'hash':
        return this.devnet.store.heightOfHash(fromHex(ref.hash));
    }
  }

  /** As heightOf, failing with go-ethereum's texts when there is no such block. */
  async requireHeight(ref: BlockRef): Promise<bigint> {
    const height = await this.heightOf(ref);
    if (height === undefined) throw new ApplicationError(ref.kind === 'hash' ? HASH_NOT_FOUND : HEADER_NOT_FOUND);
    return height;
  }

  async block(height: bigint): Promise<EvmBlock | undefined> {
    const [meta, record] = await Promise.all([this.devnet.store.loadMeta(height), this.evm.chain.loadBlock(height)]);
    return meta === undefined || record === undefined ? undefined : { meta, record };
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
