import type { NodeBackend } from '../../backends/node-backend';
import type { MethodSpec } from '../../rpc/method-spec';
import { param } from '../node-method';
import type { DecodedArgs as A } from '../../rpc/method-spec';

/** Unsafe methods: served only with `[rpc] unsafe = true` (UnsafeGuard). */
export function unsafeMethods(b: NodeBackend): MethodSpec[] {
  const group = 'unsafe';
  return [
    { group, unsafe: true, name: 'dial_seeds', params: [param('seeds', 'strings')], handler: (a: A) => b.dialSeeds(a.seeds) },
    {
      group,
      unsafe: true,
      name: 'dial_peers',
      params: [param('peers', 'strings'), param('persistent', 'bool'), param('unconditional', 'bool'), param('private', 'bool')],
      handler: (a: A) => b.dialPeers(a.peers, a.persistent, a.unconditional, a.private),
    },
    { group, unsafe: true, name: 'unsafe_flush_mempool', params: [], handler: () => b.unsafeFlushMempool() },
  ];
}
