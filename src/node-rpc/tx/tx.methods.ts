import type { NodeBackend } from '../../backends/node-backend';
import { defineMethod, param, type AnyMethod } from '../../rpc/method';
import { bytes } from '../params/codecs';
import { txHeightOf } from '../tx-height';
import type { TxBroadcasts } from './tx-broadcasts';

/** The Tx category: check transactions, and broadcast them through the broadcast queue (never forwarded). */
export function txMethods(b: NodeBackend, broadcasts: TxBroadcasts): AnyMethod[] {
  const base = { group: 'tx', params: [param('tx', bytes)] } as const;
  return [
    defineMethod({ ...base, name: 'check_tx', idempotent: true, forward: true, handler: (a) => b.checkTx(a.tx) }),
    defineMethod({ ...base, name: 'broadcast_tx_async', handler: (a) => broadcasts.async(a.tx) }),
    defineMethod({ ...base, name: 'broadcast_tx_sync', handler: (a) => broadcasts.sync(a.tx) }),
    defineMethod({ ...base, name: 'broadcast_tx_commit', revealsHeight: txHeightOf, handler: (a) => broadcasts.commit(a.tx) }),
  ];
}
