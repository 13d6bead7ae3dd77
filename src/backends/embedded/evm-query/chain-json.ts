/** Blocks, mined transactions and receipts of the devnet as EVM RPC JSON. */
import type { JsonObject } from '../../../rpc/json';
import { blockJson } from './block-json';
import type { EvmBlock, EvmChainView, ExecutedTx } from './chain-view';
import { hexData } from '../../../devnet/app/evm/hex';
import { firstLogIndexes, receiptJson, type ReceiptPlacement } from './receipt-json';
import { txJson } from './tx-json';

export class ChainJson {
  constructor(private readonly chain: EvmChainView) {}

  async block(block: EvmBlock, fullTransactions: boolean): Promise<JsonObject> {
    if (!fullTransactions) return blockJson(block, block.record.txs.map((tx) => hexData(tx.hash)));
    const txs = await this.chain.transactionsOf(block);
    return blockJson(
      block,
      txs.map((tx, index) => this.transaction({ block, index, record: block.record.txs[index], tx })),
    );
  }

  transaction({ block, index, record, tx }: ExecutedTx): JsonObject {
    return txJson(tx, record.from, this.chain.evm.params.chainId, {
      blockHash: block.hash,
      blockNumber: block.record.height,
      index,
      baseFee: block.record.baseFee,
      timestamp: block.timestamp,
    });
  }

  receipt(block: EvmBlock, index: number): JsonObject {
    return receiptJson(block.record.txs[index], this.placement(block, index));
  }

  receipts(block: EvmBlock): JsonObject[] {
    return block.record.txs.map((_, index) => this.receipt(block, index));
  }

  placement(block: EvmBlock, index: number): ReceiptPlacement {
    return {
      blockHash: block.hash,
      blockNumber: block.record.height,
      index,
      firstLogIndex: firstLogIndexes(block.record.txs)[index],
    };
  }
}
