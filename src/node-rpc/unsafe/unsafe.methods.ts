import { Inject, Injectable } from '@nestjs/common';
import { NODE_BACKEND, type NodeBackend } from '../../backends/node-backend';
import { defineMethod, param, type AnyMethod } from '../../rpc/method';
import type { MethodSource } from '../../rpc/registration';
import { bool, strings } from '../params/codecs';

/** Unsafe methods: served only with `[rpc] unsafe = true`. */
@Injectable()
export class UnsafeMethods implements MethodSource {
  constructor(@Inject(NODE_BACKEND) private readonly b: NodeBackend) {}

  methods(): AnyMethod[] {
    const b = this.b;
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
}
