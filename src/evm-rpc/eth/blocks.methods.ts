import { Inject, Injectable } from '@nestjs/common';
import type { Invoker } from '../../rpc/invoker';
import type { Json } from '../../rpc/json';
import { defineMethod, param, returns, type AnyMethod } from '../../rpc/method';
import { INVOKER, type MethodSource } from '../../rpc/registration';
import { blockNumberOf, FOUND, foundAt, heightAt, MINED } from '../block-rules';
import * as c from '../codec/codecs';
import type { BlockRef, Quantity, RpcBlock, RpcLog, RpcReceipt, RpcTransaction } from '../evm-types';
import { txpool_content } from '../txpool/txpool.methods';

const read = { group: 'eth', idempotent: true } as const;
/** A found block (or what is in it) at the call's `block`: kept once found at a fixed block. */
const foundAtBlock = {
  cache: (a: { readonly block: BlockRef }) => foundAt(a.block),
  height: (a: { readonly block: BlockRef }) => heightAt(a.block),
};
/** A found block (or what is in it) by hash. */
const foundByHash = { cache: () => FOUND };

export const eth_getBlockByNumber = defineMethod({
  ...read,
  ...foundAtBlock,
  name: 'eth_getBlockByNumber',
  params: [param('block', c.blockNumber), param('fullTransactions', c.bool)],
  result: returns<RpcBlock | null>(),
});
export const eth_getBlockByHash = defineMethod({
  ...read,
  ...foundByHash,
  name: 'eth_getBlockByHash',
  params: [param('hash', c.hash), param('fullTransactions', c.bool)],
  result: returns<RpcBlock | null>(),
});
export const eth_getBlockTransactionCountByNumber = defineMethod({
  ...read,
  ...foundAtBlock,
  name: 'eth_getBlockTransactionCountByNumber',
  params: [param('block', c.blockNumber)],
  result: returns<Quantity | null>(),
});
export const eth_getBlockTransactionCountByHash = defineMethod({
  ...read,
  ...foundByHash,
  name: 'eth_getBlockTransactionCountByHash',
  params: [param('hash', c.hash)],
  result: returns<Quantity | null>(),
});
export const eth_getTransactionByHash = defineMethod({
  ...read,
  name: 'eth_getTransactionByHash',
  params: [param('hash', c.hash)],
  cache: () => MINED,
  result: returns<RpcTransaction | null>(),
});
export const eth_getTransactionByBlockNumberAndIndex = defineMethod({
  ...read,
  ...foundAtBlock,
  name: 'eth_getTransactionByBlockNumberAndIndex',
  params: [param('block', c.blockNumber), param('index', c.uint)],
  result: returns<RpcTransaction | null>(),
});
export const eth_getTransactionByBlockHashAndIndex = defineMethod({
  ...read,
  ...foundByHash,
  name: 'eth_getTransactionByBlockHashAndIndex',
  params: [param('hash', c.hash), param('index', c.uint)],
  result: returns<RpcTransaction | null>(),
});
export const eth_getTransactionReceipt = defineMethod({
  ...read,
  ...foundByHash,
  name: 'eth_getTransactionReceipt',
  params: [param('hash', c.hash)],
  revealsHeight: blockNumberOf,
  result: returns<RpcReceipt | null>(),
});
export const eth_getBlockReceipts = defineMethod({
  ...read,
  ...foundAtBlock,
  name: 'eth_getBlockReceipts',
  params: [param('block', c.blockNumberOrHash)],
  result: returns<RpcReceipt[] | null>(),
});

/** The block of the first log of a transaction's logs (a receipt's logs all carry it). */
const firstLogBlock = (result: Json): bigint | undefined => (Array.isArray(result) && result.length > 0 ? blockNumberOf(result[0]) : undefined);

/** Blocks, transactions, receipts and transaction logs. */
@Injectable()
export class EthBlockMethods implements MethodSource {
  constructor(@Inject(INVOKER.evm) private readonly evm: Invoker) {}

  methods(): AnyMethod[] {
    const evm = this.evm;
    return [
      eth_getBlockByNumber,
      eth_getBlockByHash,
      eth_getBlockTransactionCountByNumber,
      eth_getBlockTransactionCountByHash,
      eth_getTransactionByHash,
      eth_getTransactionByBlockNumberAndIndex,
      eth_getTransactionByBlockHashAndIndex,
      eth_getTransactionReceipt,
      eth_getBlockReceipts,
      // From the receipt (not every node serves it): null for an unknown or failed transaction, as Evmos answers.
      defineMethod({
        ...read,
        ...foundByHash,
        name: 'eth_getTransactionLogs',
        params: [param('hash', c.hash)],
        revealsHeight: firstLogBlock,
        handler: async (a, ctx): Promise<RpcLog[] | null> => {
          const receipt = await evm.invoke(eth_getTransactionReceipt, { hash: a.hash }, ctx);
          return receipt === null || receipt.status === '0x0' ? null : receipt.logs;
        },
      }),
      // The mempool's transactions: txpool content's pending part, by sender then nonce.
      defineMethod({
        group: 'eth',
        name: 'eth_getPendingTransactions',
        params: [],
        handler: async (_a, ctx) => Object.values((await evm.invoke(txpool_content, {}, ctx)).pending).flatMap((byNonce) => Object.values(byNonce)),
      }),
    ];
  }
}
