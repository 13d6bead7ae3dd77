import { Inject, Injectable } from '@nestjs/common';
import { EVM_BACKEND, type EvmBackend } from '../../backends/evm-backend';
import { defineMethod, param, type AnyMethod } from '../../rpc/method';
import type { MethodSource } from '../../rpc/registration';
import * as c from '../codec/codecs';

/** txpool: the backend's mempool, in go-ethereum's pending/queued shapes. */
@Injectable()
export class TxpoolMethods implements MethodSource {
  constructor(@Inject(EVM_BACKEND) private readonly b: EvmBackend) {}

  methods(): AnyMethod[] {
    const read = { group: 'txpool', idempotent: true, forward: true } as const;
    return [
      defineMethod({ ...read, name: 'txpool_content', params: [], handler: () => this.b.txpoolContent() }),
      defineMethod({ ...read, name: 'txpool_contentFrom', params: [param('address', c.address)], handler: (a) => this.b.txpoolContentFrom(a.address) }),
      defineMethod({ ...read, name: 'txpool_inspect', params: [], handler: () => this.b.txpoolInspect() }),
      defineMethod({ ...read, name: 'txpool_status', params: [], handler: () => this.b.txpoolStatus() }),
    ];
  }
}
