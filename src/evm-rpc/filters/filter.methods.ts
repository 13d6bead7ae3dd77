import { Injectable } from '@nestjs/common';
import { defineMethod, param, type AnyMethod } from '../../rpc/method';
import type { MethodSource } from '../../rpc/registration';
import * as c from '../codec/codecs';
import { eth_getLogs } from './get-logs';
import { ConfiguredFilters } from './configured-filters';

/** eth's filter API: polling filters (per replica, or shared through Redis) and eth_getLogs. */
@Injectable()
export class FilterMethods implements MethodSource {
  constructor(private readonly filters: ConfiguredFilters) {}

  methods(): AnyMethod[] {
    const f = this.filters.store;
    const group = 'eth';
    const id = [param('id', c.id)] as const;
    return [
      defineMethod({ group, name: 'eth_newFilter', params: [param('criteria', c.filterCriteria)], handler: (a, ctx) => f.create('logs', a.criteria, ctx.caller?.ip) }),
      defineMethod({ group, name: 'eth_newBlockFilter', params: [], handler: (_a, ctx) => f.create('blocks', {}, ctx.caller?.ip) }),
      defineMethod({ group, name: 'eth_newPendingTransactionFilter', params: [], handler: (_a, ctx) => f.create('pendingTransactions', {}, ctx.caller?.ip) }),
      defineMethod({ group, name: 'eth_getFilterChanges', params: id, handler: (a) => f.changes(a.id) }),
      defineMethod({ group, name: 'eth_getFilterLogs', params: id, handler: (a) => f.logs(a.id) }),
      defineMethod({ group, name: 'eth_uninstallFilter', params: id, handler: (a) => f.uninstall(a.id) }),
      eth_getLogs,
    ];
  }
}
