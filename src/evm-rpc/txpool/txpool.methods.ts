import type { EvmBackend } from '../../backends/evm-backend';
import { defineMethod, param, type AnyMethod } from '../../rpc/method';
import * as c from '../codec/codecs';

/** txpool: the backend's mempool, in go-ethereum's pending/queued shapes. */
export function txpoolMethods(b: EvmBackend): AnyMethod[] {
  const read = { group: 'txpool', idempotent: true, forward: true } as const;
  return [
    defineMethod({ ...read, name: 'txpool_content', params: [], handler: () => b.txpoolContent() }),
    defineMethod({ ...read, name: 'txpool_contentFrom', params: [param('address', c.address)], handler: (a) => b.txpoolContentFrom(a.address) }),
    defineMethod({ ...read, name: 'txpool_inspect', params: [], handler: () => b.txpoolInspect() }),
    defineMethod({ ...read, name: 'txpool_status', params: [], handler: () => b.txpoolStatus() }),
  ];
}
