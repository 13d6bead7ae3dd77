import { Inject, Injectable } from '@nestjs/common';
import { EVM_BACKEND, type EvmBackend, type LogFilter } from '../../backends/evm-backend';
import { defineMethod, IMMUTABLE, LATEST, param, type AnyMethod, type CacheRule } from '../../rpc/method';
import type { MethodSource } from '../../rpc/registration';
import * as c from '../codec/codecs';
import { PollingFilters } from './polling-filters';

/** A log query at a block hash or over a range of block numbers never changes; one reaching a tag lives a block. */
function logsCache(criteria: LogFilter): CacheRule {
  return criteria.blockHash !== undefined || isFixedRange(criteria) ? IMMUTABLE : LATEST;
}

/** A range of block numbers needs its last block. */
function logsHeight(criteria: LogFilter): bigint | undefined {
  const to = criteria.toBlock;
  return criteria.blockHash === undefined && criteria.fromBlock?.kind === 'number' && to?.kind === 'number' ? to.number : undefined;
}

function isFixedRange(criteria: LogFilter): boolean {
  return criteria.fromBlock?.kind === 'number' && criteria.toBlock?.kind === 'number';
}

/** eth's filter API: polling filters and eth_getLogs. */
@Injectable()
export class FilterMethods implements MethodSource {
  constructor(
    private readonly filters: PollingFilters,
    @Inject(EVM_BACKEND) private readonly b: EvmBackend,
  ) {}

  methods(): AnyMethod[] {
    const f = this.filters;
    const group = 'eth';
    const id = [param('id', c.id)] as const;
    return [
      defineMethod({ group, name: 'eth_newFilter', params: [param('criteria', c.filterCriteria)], handler: (a, ctx) => f.create('logs', a.criteria, ctx.caller?.ip) }),
      defineMethod({ group, name: 'eth_newBlockFilter', params: [], handler: (_a, ctx) => f.create('blocks', {}, ctx.caller?.ip) }),
      defineMethod({ group, name: 'eth_newPendingTransactionFilter', params: [], handler: (_a, ctx) => f.create('pendingTransactions', {}, ctx.caller?.ip) }),
      defineMethod({ group, name: 'eth_getFilterChanges', params: id, handler: (a) => f.changes(a.id) }),
      defineMethod({ group, name: 'eth_getFilterLogs', params: id, handler: (a) => f.logs(a.id) }),
      defineMethod({ group, name: 'eth_uninstallFilter', params: id, handler: (a) => f.uninstall(a.id) }),
      // Not forwarded: a long range is split over the upstream pool, and the gateway's caps apply.
      defineMethod({
        group,
        name: 'eth_getLogs',
        params: [param('criteria', c.filterCriteria)],
        idempotent: true,
        cache: (a) => logsCache(a.criteria),
        height: (a) => logsHeight(a.criteria),
        handler: (a) => this.b.getLogs(a.criteria, f.logCaps()),
      }),
    ];
  }
}
