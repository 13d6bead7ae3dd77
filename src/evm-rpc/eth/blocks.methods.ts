import { Inject, Injectable } from '@nestjs/common';
import { EVM_BACKEND, type BlockRef, type EvmBackend } from '../../backends/evm-backend';
import type { Json, JsonObject } from '../../rpc/json';
import { defineMethod, param, type AnyMethod } from '../../rpc/method';
import type { MethodSource } from '../../rpc/registration';
import { blockNumberOf, FOUND, foundAt, heightAt, MINED } from '../block-rules';
import * as c from '../codec/codecs';
import { toQuantity } from '../codec/hex';

const byHash = (hash: string): BlockRef => ({ kind: 'hash', hash, requireCanonical: false });

/** A found block (or what is in it) at the call's `block`: kept once found at a fixed block. */
const foundAtBlock = {
  cache: (a: { readonly block: BlockRef }) => foundAt(a.block),
  height: (a: { readonly block: BlockRef }) => heightAt(a.block),
};
/** A found block (or what is in it) by hash. */
const foundByHash = { cache: () => FOUND };

/** The block of the first log of a transaction's logs (a receipt's logs all carry it). */
const firstLogBlock = (result: Json): bigint | undefined => (Array.isArray(result) && result.length > 0 ? blockNumberOf(result[0]) : undefined);

/** Blocks, transactions, receipts and transaction logs. */
@Injectable()
export class EthBlockMethods implements MethodSource {
  constructor(@Inject(EVM_BACKEND) private readonly b: EvmBackend) {}

  methods(): AnyMethod[] {
    const b = this.b;
    const read = { group: 'eth', idempotent: true, forward: true } as const;
    const count = async (block: BlockRef) => {
      const n = await b.getBlockTransactionCount(block);
      return n === null ? null : toQuantity(n);
    };
    return [
      defineMethod({
        ...read,
        ...foundAtBlock,
        name: 'eth_getBlockByNumber',
        params: [param('block', c.blockNumber), param('fullTransactions', c.bool)],
        handler: (a) => b.getBlockByNumber(a.block, a.fullTransactions),
      }),
      defineMethod({
        ...read,
        ...foundByHash,
        name: 'eth_getBlockByHash',
        params: [param('hash', c.hash), param('fullTransactions', c.bool)],
        handler: (a) => b.getBlockByHash(a.hash, a.fullTransactions),
      }),
      defineMethod({ ...read, ...foundAtBlock, name: 'eth_getBlockTransactionCountByNumber', params: [param('block', c.blockNumber)], handler: (a) => count(a.block) }),
      defineMethod({ ...read, ...foundByHash, name: 'eth_getBlockTransactionCountByHash', params: [param('hash', c.hash)], handler: (a) => count(byHash(a.hash)) }),
      defineMethod({ ...read, name: 'eth_getTransactionByHash', params: [param('hash', c.hash)], cache: () => MINED, handler: (a) => b.getTransactionByHash(a.hash) }),
      defineMethod({
        ...read,
        ...foundAtBlock,
        name: 'eth_getTransactionByBlockNumberAndIndex',
        params: [param('block', c.blockNumber), param('index', c.uint)],
        handler: (a) => b.getTransactionByBlockAndIndex(a.block, a.index),
      }),
      defineMethod({
        ...read,
        ...foundByHash,
        name: 'eth_getTransactionByBlockHashAndIndex',
        params: [param('hash', c.hash), param('index', c.uint)],
        handler: (a) => b.getTransactionByBlockAndIndex(byHash(a.hash), a.index),
      }),
      defineMethod({
        ...read,
        ...foundByHash,
        name: 'eth_getTransactionReceipt',
        params: [param('hash', c.hash)],
        revealsHeight: blockNumberOf,
        handler: (a) => b.getTransactionReceipt(a.hash),
      }),
      defineMethod({ ...read, ...foundAtBlock, name: 'eth_getBlockReceipts', params: [param('block', c.blockNumberOrHash)], handler: (a) => b.getBlockReceipts(a.block) }),
      // Not forwarded: the upstream backend reads it from the receipt (not every node serves it).
      defineMethod({
        ...read,
        ...foundByHash,
        forward: false,
        name: 'eth_getTransactionLogs',
        params: [param('hash', c.hash)],
        revealsHeight: firstLogBlock,
        handler: (a) => b.getTransactionLogs(a.hash),
      }),
      defineMethod({ group: 'eth', name: 'eth_getPendingTransactions', params: [], handler: () => this.pendingTransactions() }),
    ];
  }

  /** The mempool's transactions (txpool content's pending part, by sender then nonce). */
  private async pendingTransactions(): Promise<JsonObject[]> {
    const pending = ((await this.b.txpoolContent()).pending ?? {}) as Record<string, Record<string, JsonObject>>;
    return Object.values(pending).flatMap((byNonce) => Object.values(byNonce));
  }
}
