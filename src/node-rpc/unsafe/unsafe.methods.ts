import type { NodeBackend } from '../../backends/node-backend';
import { defineMethod, param, type AnyMethod } from '../../rpc/method';
import { bool, strings } from '../params/codecs';

/** Unsafe methods: served only with `[rpc] unsafe = true`. */
export function unsafeMethods(b: NodeBackend): AnyMethod[] {
  const base = { group: 'unsafe', unsafe: true, forward: true } as const;
  return [
    defineMethod({ ...base, name: 'dial_seeds', params: [param('seeds', strings)], handler: (a) => b.dialSeeds(a.seeds) }),
    defineMethod({
      ...base,
      name: 'dial_peers',
      params: [param('peers', strings), param('persistent', bool), param('unconditional', bool), param('private', bool)],
      handler: (a) => b.dialPeers(a.peers, a.persistent, a.unconditional, a.private),
    }),
    defineMethod({ ...base, name: 'unsafe_flush_mempool', params: [], handler: () => b.unsafeFlushMempool() }),
  ];
}
