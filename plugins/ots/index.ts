/**
 * Otterscan's namespace (`ots_*`, API level 8), so the Otterscan block explorer works against the
 * gateway: served when `[json-rpc] api` lists `ots`. The shapes are those of erigon, the reference
 * implementation (see docs/ots.md for what differs). Otterscan also needs one method of erigon's own
 * namespace, erigon_getHeaderByNumber (served when `[json-rpc] api` lists `erigon`).
 *
 * On the embedded devnet the handlers answer from the backend: blocks and receipts, the callTracer,
 * and the devnet's address index (an address's transactions, senders' nonces, contracts' creators).
 * In upstream mode every method is forwarded as the client sent it, to upstreams that serve ots_*;
 * a pool without them answers their own "method not available".
 *
 * Config, `[plugins.ots]`: `max_page_size` (default 25, erigon's): the largest page the two searches
 * take.
 */
import { defineMethod, definePlugin, heightAt, cacheAt, evmCodecs, evmMethods, IsIntBetween, LATEST, param, pluginConfig, type AnyMethod } from 'rpc-gateway/plugin-api';
import { blockMethods } from './blocks';
import { erigonMethods } from './erigon';
import { historyMethods } from './history';
import { blockNumberOrHash } from './params';
import { traceMethods } from './traces';

/** Erigon's API level of this set of methods. */
export const API_LEVEL = 8;

const config = pluginConfig({
  title: 'Otterscan (ots_*)',
  defaults: { max_page_size: 25 },
  keys: {
    max_page_size: {
      ...IsIntBetween(1, 65535),
      doc: "Largest page ots_searchTransactionsBefore and ots_searchTransactionsAfter take (erigon's --ots.search.max.pagesize).",
    },
  },
});

export type OtsConfig = typeof config.defaults;

export default definePlugin<OtsConfig>({
  name: 'ots',
  version: '1.0.0',
  apiVersion: 2,
  interface: 'evm',
  namespaces: ['ots', 'erigon'],
  config,
  methods(ctx): readonly AnyMethod[] {
    const evm = ctx.evm;
    const read = { group: 'ots', idempotent: true, forward: true } as const;
    return [
      defineMethod({ ...read, name: 'ots_getApiLevel', params: [], cache: () => LATEST, handler: () => API_LEVEL }),
      defineMethod({
        ...read,
        name: 'ots_hasCode',
        params: [param('address', evmCodecs.address), param('block', blockNumberOrHash)],
        cache: (a) => cacheAt(a.block),
        height: (a) => heightAt(a.block),
        handler: async (a, call) => (await evm.invoke(evmMethods.eth_getCode, { address: a.address, block: a.block }, call)) !== '0x',
      }),
      ...blockMethods(evm),
      ...traceMethods(evm),
      ...historyMethods(evm, ctx.addressHistory, ctx.config.max_page_size),
      ...erigonMethods(evm),
    ];
  },
});
