/**
 * Otterscan's block pages, made from the backend's block and receipts:
 *
 * - ots_getBlockDetails / ots_getBlockDetailsByHash: `{block, issuance, totalFees}`: the block
 *   without its transaction list, with `transactionCount` and `logsBloom: null`; the issuance (no
 *   block or uncle reward on this chain: all `0x0`); the fees its senders paid (gas used × effective
 *   gas price, base fee included);
 * - ots_getBlockTransactions: `{fullblock, receipts}`: one page of the block's transactions (pages
 *   count from the last transaction back) with their input cut to the 4-byte selector, and their
 *   receipts without logs and bloom.
 *
 * Objects are written with their keys sorted, as erigon's maps are. An unknown block is null.
 */
import {
  defineMethod,
  evmCodecs,
  evmMethods,
  FOUND,
  foundAt,
  heightAt,
  param,
  type AnyMethod,
  type BlockRef,
  type CallContext,
  type Json,
  type JsonObject,
  type PluginInvoker,
  type RpcBlock,
  type RpcTransaction,
} from 'rpc-gateway/plugin-api';
import { blockNumber, uint8 } from './params';

const byHash = (hash: string): BlockRef => ({ kind: 'hash', hash, requireCanonical: false });
const SELECTOR_HEX = 2 + 8;

export function blockMethods(evm: PluginInvoker): AnyMethod[] {
  const read = { group: 'ots', idempotent: true, forward: true } as const;
  const atBlock = { cache: (a: { readonly number: BlockRef }) => foundAt(a.number), height: (a: { readonly number: BlockRef }) => heightAt(a.number) };
  return [
    defineMethod({
      ...read,
      ...atBlock,
      name: 'ots_getBlockDetails',
      params: [param('number', blockNumber)],
      handler: (a, ctx) => blockDetails(evm, a.number, ctx),
    }),
    defineMethod({
      ...read,
      name: 'ots_getBlockDetailsByHash',
      params: [param('hash', evmCodecs.hash)],
      cache: () => FOUND,
      handler: (a, ctx) => blockDetails(evm, byHash(a.hash), ctx),
    }),
    defineMethod({
      ...read,
      ...atBlock,
      name: 'ots_getBlockTransactions',
      params: [param('number', blockNumber), param('pageNumber', uint8), param('pageSize', uint8)],
      handler: (a, ctx) => blockTransactions(evm, a.number, a.pageNumber, a.pageSize, ctx),
    }),
  ];
}

/** The block at `ref` (a number, a tag, or a hash), or null. */
function blockAt(evm: PluginInvoker, ref: BlockRef, fullTransactions: boolean, ctx: CallContext): Promise<RpcBlock | null> {
  return ref.kind === 'hash'
    ? evm.invoke(evmMethods.eth_getBlockByHash, { hash: ref.hash, fullTransactions }, ctx)
    : evm.invoke(evmMethods.eth_getBlockByNumber, { block: ref, fullTransactions }, ctx);
}

async function blockDetails(evm: PluginInvoker, ref: BlockRef, ctx: CallContext): Promise<JsonObject | null> {
  const block = await blockAt(evm, ref, false, ctx);
  if (block === null) return null;
  const receipts = (await evm.invoke(evmMethods.eth_getBlockReceipts, { block: byHash(block.hash) }, ctx)) ?? [];
  const { transactions, ...header } = block;
  const totalFees = receipts.reduce((sum, r) => sum + BigInt(String(r.gasUsed)) * BigInt(String(r.effectiveGasPrice)), 0n);
  return {
    block: sorted({ ...header, logsBloom: null, transactionCount: Array.isArray(transactions) ? transactions.length : 0 }),
    issuance: { blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' },
    totalFees: `0x${totalFees.toString(16)}`,
  };
}

async function blockTransactions(evm: PluginInvoker, ref: BlockRef, pageNumber: number, pageSize: number, ctx: CallContext): Promise<JsonObject | null> {
  const block = await blockAt(evm, ref, true, ctx);
  if (block === null) return null;
  const transactions = Array.isArray(block.transactions) ? (block.transactions as RpcTransaction[]) : [];
  const receipts = (await evm.invoke(evmMethods.eth_getBlockReceipts, { block: byHash(block.hash) }, ctx)) ?? [];
  const end = Math.max(transactions.length - pageNumber * pageSize, 0);
  const start = Math.max(end - pageSize, 0);
  const page = transactions.slice(start, end).map((tx) => ({ ...tx, input: selectorOf(tx.input) }));
  return {
    fullblock: sorted({ ...block, logsBloom: null, transactionCount: transactions.length, transactions: page }),
    receipts: receipts.slice(start, end).map((r) => sorted({ ...r, logs: null, logsBloom: null })),
  };
}

/** The first 4 bytes of the call data (all of it when shorter). */
function selectorOf(input: Json | undefined): Json {
  return typeof input === 'string' && input.length > SELECTOR_HEX ? input.slice(0, SELECTOR_HEX) : (input ?? '0x');
}

/** The object with its keys in byte order, as Go writes a map. */
export function sorted(object: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(object).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
