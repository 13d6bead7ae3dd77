import { Inject, Injectable } from '@nestjs/common';
import { EVM_BACKEND, type EvmBackend } from '../../backends/evm-backend';
import type { MethodSpec } from '../../rpc/method-spec';
import { param, type MethodTable } from '../core/evm-method';
import { PollingFilters } from './polling-filters';
import type { DecodedArgs as A } from '../../rpc/method-spec';

/** eth's filter API: polling filters and eth_getLogs. */
@Injectable()
export class FilterMethods implements MethodTable {
  constructor(
    private readonly filters: PollingFilters,
    @Inject(EVM_BACKEND) private readonly b: EvmBackend,
  ) {}

  methods(): MethodSpec[] {
    const f = this.filters;
    const group = 'eth';
    const id = [param('id', 'id')];
    return [
      { group, name: 'eth_newFilter', params: [param('criteria', 'filterCriteria')], handler: (a: A) => f.create('logs', a.criteria) },
      { group, name: 'eth_newBlockFilter', params: [], handler: () => f.create('blocks') },
      { group, name: 'eth_newPendingTransactionFilter', params: [], handler: () => f.create('pendingTransactions') },
      { group, name: 'eth_getFilterChanges', params: id, handler: (a: A) => f.changes(a.id) },
      { group, name: 'eth_getFilterLogs', params: id, handler: (a: A) => f.logs(a.id) },
      { group, name: 'eth_uninstallFilter', params: id, handler: (a: A) => f.uninstall(a.id) },
      {
        group,
        name: 'eth_getLogs',
        params: [param('criteria', 'filterCriteria')],
        idempotent: true,
        handler: (a: A) => this.b.getLogs(a.criteria, f.logCaps()),
      },
    ];
  }
}
