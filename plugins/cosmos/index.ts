/**
 * Node RPC routes of category `cosmos` (served when `[plugins] node_api` lists it): what a Cosmos-EVM
 * operator is asked for most, going between a transaction's two hashes.
 *
 * - `tx_by_evm_hash?hash=0x…`: the EVM tx hash (0x-hex) → the node's `tx` answer for the CometBFT tx
 *   that carries it, exactly as `tx` answers it.
 * - `evm_tx_hash?hash=…`: the CometBFT tx hash, as `tx` takes it (base64 in JSON-RPC, 0x-hex in a URI)
 *   → `{ "evm_hash": "0x…", "height": "…", "index": … }`, or an error for a tx that carries no EVM tx.
 *
 * No real node serves these routes, so they are never forwarded: the gateway answers them from its
 * backend's reads (the devnet or the upstream pools); see tx-mapping.ts for how. A found mapping never
 * changes (CometBFT blocks are final), so an answer is immutable; errors are never kept.
 */
import { defineMethod, definePlugin, IMMUTABLE, nodeCodecs, param, type AnyMethod } from 'rpc-gateway/plugin-api';
import { evmHashParam } from './evm-hash-param';
import { TxMapping } from './tx-mapping';

export default definePlugin({
  name: 'cosmos',
  version: '1.0.0',
  apiVersion: 2,
  interface: 'node',
  namespaces: ['cosmos'],
  methods(ctx): readonly AnyMethod[] {
    const mapping = new TxMapping(ctx.node, ctx.evm);
    const lookup = { group: 'cosmos', idempotent: true, cache: () => IMMUTABLE } as const;
    return [
      defineMethod({ ...lookup, name: 'tx_by_evm_hash', params: [param('hash', evmHashParam)], handler: (a, call) => mapping.txByEvmHash(a.hash, call) }),
      defineMethod({ ...lookup, name: 'evm_tx_hash', params: [param('hash', nodeCodecs.bytes)], handler: (a, call) => mapping.evmTxHash(a.hash, call) }),
    ];
  },
});
