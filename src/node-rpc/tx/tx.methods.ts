import type { NodeBackend } from '../../backends/node-backend';
import { defineMethod, param, type AnyMethod } from '../../rpc/method';
import { bytes } from '../params/codecs';
import { txHeightOf } from '../tx-height';

/** The Tx category: check and broadcast transactions. */
export function txMethods(b: NodeBackend): AnyMethod[] {
  const base = { group: 'tx', params: [param('tx', bytes)] } as const;
  return [
    defineMethod({ ...base, name: 'check_tx', idempotent: true, forward: true, handler: (a) => b.checkTx(a.tx) }),
    defineMethod({ ...base, name: 'broadcast_tx_async', handler: (a) => b.broadcastTxAsync(a.tx) }),
    defineMethod({ ...base, name: 'broadcast_tx_sync', handler: (a) => b.broadcastTxSync(a.tx) }),
    defineMethod({ ...base, name: 'broadcast_tx_commit', revealsHeight: txHeightOf, handler: (a) => b.broadcastTxCommit(a.tx) }),
  ];
}
