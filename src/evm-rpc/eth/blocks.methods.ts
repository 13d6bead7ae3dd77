import { Inject, Injectable } from '@nestjs/common';
import { EVM_BACKEND, type BlockRef, type EvmBackend } from '../../backends/evm-backend';
import type { JsonObject } from '../../backends/node-backend';
import type { MethodSpec } from '../../rpc/method-spec';
import { toQuantity } from '../codec/hex';
import { param, type MethodTable } from '../core/evm-method';
import type { DecodedArgs as A } from '../../rpc/method-spec';

const byHash = (hash: string): BlockRef => ({ kind: 'hash', hash, requireCanonical: false });

/** A found answer at an explicit number or hash never changes (CometBFT blocks are final). */
const foundAtFixedBlock = (a: Record<string, unknown>, result: unknown): boolean =>
  result !== null && (a.hash !== undefined || (a.block as BlockRef | undefined)?.kind !== 'tag');
const found = (_a: unknown, result: unknown): boolean => result !== null;
const mined = (_a: unknown, result: unknown): boolean => result !== null && (result as JsonObject).blockHash !== null;

/** Blocks, transactions, receipts and transaction logs. */
@Injectable()
export class EthBlockMethods implements MethodTable {
  constructor(@Inject(EVM_BACKEND) private readonly b: EvmBackend) {}

  methods(): MethodSpec[] {
    const b = this.b;
    const read = { group: 'eth', idempotent: true, immutable: foundAtFixedBlock };
    const count = async (block: BlockRef) => {
      const n = await b.getBlockTransactionCount(block);
      return n === null ? null : toQuantity(n);
    };
    return [
      {
        ...read,
        name: 'eth_getBlockByNumber',
        params: [param('block', 'blockNumber'), param('fullTransactions', 'bool')],
        handler: (a: A) => b.getBlockByNumber(a.block, a.fullTransactions),
      },
      {
        ...read,
        name: 'eth_getBlockByHash',
        params: [param('hash', 'hash'), param('fullTransactions', 'bool')],
        handler: (a: A) => b.getBlockByHash(a.hash, a.fullTransactions),
      },
      { ...read, name: 'eth_getBlockTransactionCountByNumber', params: [param('block', 'blockNumber')], handler: (a: A) => count(a.block) },
      { ...read, name: 'eth_getBlockTransactionCountByHash', params: [param('hash', 'hash')], handler: (a: A) => count(byHash(a.hash)) },
      { ...read, name: 'eth_getTransactionByHash', params: [param('hash', 'hash')], immutable: mined, handler: (a: A) => b.getTransactionByHash(a.hash) },
      {
        ...read,
        name: 'eth_getTransactionByBlockNumberAndIndex',
        params: [param('block', 'blockNumber'), param('index', 'uint')],
        handler: (a: A) => b.getTransactionByBlockAndIndex(a.block, a.index),
      },
      {
        ...read,
        name: 'eth_getTransactionByBlockHashAndIndex',
        params: [param('hash', 'hash'), param('index', 'uint')],
        handler: (a: A) => b.getTransactionByBlockAndIndex(byHash(a.hash), a.index),
      },
      { ...read, name: 'eth_getTransactionReceipt', params: [param('hash', 'hash')], immutable: found, handler: (a: A) => b.getTransactionReceipt(a.hash) },
      { ...read, name: 'eth_getBlockReceipts', params: [param('block', 'blockNumberOrHash')], handler: (a: A) => b.getBlockReceipts(a.block) },
      { ...read, name: 'eth_getTransactionLogs', params: [param('hash', 'hash')], immutable: found, handler: (a: A) => b.getTransactionLogs(a.hash) },
      { group: 'eth', name: 'eth_getPendingTransactions', params: [], handler: () => this.pendingTransactions() },
    ];
  }

  /** The mempool's transactions (txpool content's pending part, by sender then nonce). */
  private async pendingTransactions(): Promise<JsonObject[]> {
    const pending = ((await this.b.txpoolContent()).pending ?? {}) as Record<string, Record<string, JsonObject>>;
    return Object.values(pending).flatMap((byNonce) => Object.values(byNonce));
  }
}
