import { defineMethod, param, returns, type AnyMethod } from '../../rpc/method';
import { bytes } from '../params/codecs';
import type { NodeCheckTx } from '../node-types';
import { txHeightOf } from '../tx-height';
import type { TxBroadcasts } from './tx-broadcasts';

const base = { group: 'tx', params: [param('tx', bytes)] } as const;

export const check_tx = defineMethod({ ...base, name: 'check_tx', idempotent: true, result: returns<NodeCheckTx>() });
/**
 * The node's broadcast_tx_sync: how a queued tx reaches the node. Clients' broadcasts go through the
 * broadcast queue (txMethods), never straight to the node.
 */
export const broadcast_tx_sync = defineMethod({ ...base, name: 'broadcast_tx_sync', result: returns<NodeCheckTx & { readonly hash: string }>() });

/** The Tx category: check transactions, and broadcast them through the broadcast queue. */
export function txMethods(broadcasts: TxBroadcasts): AnyMethod[] {
  return [
    check_tx,
    defineMethod({ ...base, name: 'broadcast_tx_async', handler: (a) => broadcasts.async(a.tx) }),
    { ...broadcast_tx_sync, handler: (a: { readonly tx: Uint8Array }) => broadcasts.sync(a.tx) },
    defineMethod({ ...base, name: 'broadcast_tx_commit', revealsHeight: txHeightOf, handler: (a) => broadcasts.commit(a.tx) }),
  ];
}
