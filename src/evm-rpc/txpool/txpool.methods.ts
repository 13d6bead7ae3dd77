import { Inject, Injectable } from '@nestjs/common';
import { EVM_BACKEND, type EvmBackend } from '../../backends/evm-backend';
import type { MethodSpec } from '../../rpc/method-spec';
import { param, type MethodTable } from '../core/evm-method';
import type { DecodedArgs as A } from '../../rpc/method-spec';

/** txpool: the backend's mempool, in go-ethereum's pending/queued shapes. */
@Injectable()
export class TxpoolMethods implements MethodTable {
  constructor(@Inject(EVM_BACKEND) private readonly b: EvmBackend) {}

  methods(): MethodSpec[] {
    const read = { group: 'txpool', idempotent: true };
    return [
      { ...read, name: 'txpool_content', params: [], handler: () => this.b.txpoolContent() },
      { ...read, name: 'txpool_contentFrom', params: [param('address', 'address')], handler: (a: A) => this.b.txpoolContentFrom(a.address) },
      { ...read, name: 'txpool_inspect', params: [], handler: () => this.b.txpoolInspect() },
      { ...read, name: 'txpool_status', params: [], handler: () => this.b.txpoolStatus() },
    ];
  }
}
