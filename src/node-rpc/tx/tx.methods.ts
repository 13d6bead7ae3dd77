import type { NodeBackend } from '../../backends/node-backend';
import type { MethodSpec } from '../../rpc/method-spec';
import { param } from '../node-method';
import type { DecodedArgs as A } from '../../rpc/method-spec';

/** The Tx category: check and broadcast transactions. */
export function txMethods(b: NodeBackend): MethodSpec[] {
  const group = 'tx';
  const tx = [param('tx', 'bytes')];
  return [
    { group, name: 'check_tx', params: tx, idempotent: true, handler: (a: A) => b.checkTx(a.tx) },
    { group, name: 'broadcast_tx_async', params: tx, handler: (a: A) => b.broadcastTxAsync(a.tx) },
    { group, name: 'broadcast_tx_sync', params: tx, handler: (a: A) => b.broadcastTxSync(a.tx) },
    { group, name: 'broadcast_tx_commit', params: tx, handler: (a: A) => b.broadcastTxCommit(a.tx) },
  ];
}
