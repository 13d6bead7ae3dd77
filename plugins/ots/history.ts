/**
 * An address's history, from the devnet's address index (`ctx.addressHistory`) and the EVM methods:
 *
 * - ots_searchTransactionsBefore / ots_searchTransactionsAfter(address, blockNumber, pageSize): the
 *   mined transactions the address took part in (sender, recipient, created contract, or inside an
 *   internal call) in blocks before / after `blockNumber` (0: from the latest block / from the first),
 *   as `{txs, receipts, firstPage, lastPage}`: the transactions latest first, each receipt with its
 *   block's `timestamp` (a number). A page has at least `pageSize` transactions when there are that
 *   many, and every other one of the last block reached; `pageSize` may not exceed `max_page_size`.
 * - ots_getTransactionBySenderAndNonce(sender, nonce): the mined transaction's hash, or null;
 * - ots_getContractCreator(address): `{hash, creator}` of the contract's creation, or null for an
 *   address without code.
 *
 * Searches and creators can change as blocks are added: they are kept for at most one block.
 */
import {
  ApplicationError,
  defineMethod,
  evmCodecs,
  evmMethods,
  FOUND,
  LATEST,
  param,
  type AddressHistoryIndex,
  type AnyMethod,
  type CallContext,
  type JsonObject,
  type PluginInvoker,
  type RpcTransaction,
  type SearchDirection,
} from 'rpc-gateway/plugin-api';
import { sorted } from './blocks';
import { uint16, uint64 } from './params';

/**
 * `index` is the devnet's address index; without one (upstream mode) these methods are forwarded to the
 * nodes, and a handler that runs anyway answers as a node without them does.
 */
export function historyMethods(evm: PluginInvoker, index: AddressHistoryIndex | undefined, maxPageSize: number): AnyMethod[] {
  const read = { group: 'ots', idempotent: true, forward: true } as const;
  const indexFor = (method: string): AddressHistoryIndex => {
    if (index === undefined) throw new ApplicationError(`the method ${method} does not exist/is not available`, -32601);
    return index;
  };
  const searchParams = [param('address', evmCodecs.address), param('blockNumber', uint64), param('pageSize', uint16)] as const;
  const search =
    (direction: SearchDirection, method: string) =>
    async (a: { readonly address: string; readonly blockNumber: number; readonly pageSize: number }, ctx: CallContext): Promise<JsonObject> => {
      if (a.pageSize > maxPageSize) throw new ApplicationError(`max allowed page size: ${maxPageSize}`);
      const page = await indexFor(method).transactions(a.address, BigInt(a.blockNumber), direction, a.pageSize);
      return withReceipts(evm, page.hashes, page.firstPage, page.lastPage, ctx);
    };
  return [
    defineMethod({ ...read, name: 'ots_searchTransactionsBefore', params: searchParams, cache: () => LATEST, handler: search('before', 'ots_searchTransactionsBefore') }),
    defineMethod({ ...read, name: 'ots_searchTransactionsAfter', params: searchParams, cache: () => LATEST, handler: search('after', 'ots_searchTransactionsAfter') }),
    defineMethod({
      ...read,
      name: 'ots_getTransactionBySenderAndNonce',
      params: [param('sender', evmCodecs.address), param('nonce', uint64)],
      cache: () => FOUND,
      handler: (a) => indexFor('ots_getTransactionBySenderAndNonce').bySenderAndNonce(a.sender, BigInt(a.nonce)),
    }),
    defineMethod({
      ...read,
      name: 'ots_getContractCreator',
      params: [param('address', evmCodecs.address)],
      cache: () => LATEST,
      handler: async (a) => {
        const found = await indexFor('ots_getContractCreator').contractCreator(a.address);
        return found === null ? null : { hash: found.hash, creator: found.creator };
      },
    }),
  ];
}

/** Each transaction with its receipt, the receipt carrying its block's timestamp as erigon adds it. */
async function withReceipts(evm: PluginInvoker, hashes: readonly string[], firstPage: boolean, lastPage: boolean, ctx: CallContext): Promise<JsonObject> {
  const timestamps = new Map<string, Promise<number>>();
  const timestampOf = (blockNumber: string): Promise<number> => {
    let found = timestamps.get(blockNumber);
    if (found === undefined) {
      found = evm
        .invoke(evmMethods.eth_getBlockByNumber, { block: { kind: 'number', number: BigInt(blockNumber) }, fullTransactions: false }, ctx)
        .then((b) => Number(b?.timestamp ?? 0));
      timestamps.set(blockNumber, found);
    }
    return found;
  };
  const found = await Promise.all(
    hashes.map(async (hash) => {
      const [tx, receipt] = await Promise.all([evm.invoke(evmMethods.eth_getTransactionByHash, { hash }, ctx), evm.invoke(evmMethods.eth_getTransactionReceipt, { hash }, ctx)]);
      if (tx === null || receipt === null) return undefined;
      return { tx, receipt: sorted({ ...receipt, timestamp: await timestampOf(String(receipt.blockNumber)) }) };
    }),
  );
  const mined = found.filter((f): f is { tx: RpcTransaction; receipt: JsonObject } => f !== undefined);
  return { txs: mined.map((m) => m.tx), receipts: mined.map((m) => m.receipt), firstPage, lastPage };
}
