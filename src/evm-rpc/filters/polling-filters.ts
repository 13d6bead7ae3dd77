import { Inject, Injectable, Logger, Optional, type OnModuleDestroy } from '@nestjs/common';
import { AccessService } from '../../access/access.service';
import type { LogFilter, RpcLog } from '../evm-types';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { MetricsService } from '../../metrics/metrics.service';
import { ApplicationError } from '../../rpc/errors';
import type { Invoker } from '../../rpc/invoker';
import type { Json } from '../../rpc/json';
import { INVOKER } from '../../rpc/registration';
import type { BlockEvents } from './block-events';
import { ChainFeed, type BlockListener } from './chain-feed';
import { eth_getLogs } from './get-logs';
import { checkLiveRange, matchesLog } from './log-match';
import { CAP_ERRORS, takeFilterPlace, METRIC_KINDS, notFound, notLogs, type FilterKind, type FilterStore } from './filter-kinds';
import { newRpcId } from './rpc-id';

export type { FilterKind } from './filter-kinds';

interface PollingFilter {
  readonly kind: FilterKind;
  readonly criteria: LogFilter;
  /** Epoch ms after which the sweeper removes it, unless polled first. */
  deadline: number;
  items: Json[];
  /** Ends the filter's count in the metrics and frees its per-IP place (uninstalled or expired). */
  readonly ended: () => void;
}

const MAX_BACKLOG = 1_000;
const NOT_COUNTED = (): void => undefined;

/**
 * The polling filters of all clients (one map, `filter-cap` in total, `[limits] max_filters_per_ip` per
 * client address), fed from the chain feed while any exists. Items accumulate until polled with
 * eth_getFilterChanges. Caps are checked and taken synchronously: filters created back to back (a
 * batch, pipelined WebSocket messages) can never pass them.
 */
@Injectable()
export class PollingFilters implements FilterStore, BlockListener, OnModuleDestroy {
  private readonly logger = new Logger('EvmFilters');
  private readonly filters = new Map<string, PollingFilter>();
  private detach: (() => void) | undefined;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly feed: ChainFeed,
    private readonly config: GatewayConfigService,
    @Inject(INVOKER.evm) private readonly evm: Invoker,
    @Optional() private readonly metrics?: MetricsService,
    @Optional() private readonly access?: AccessService,
  ) {}

  /** A new filter of the client at `ip` (undefined: not capped per address). */
  create(kind: FilterKind, criteria: LogFilter = {}, ip?: string): string {
    if (this.filters.size >= this.config.jsonRpc['filter-cap']) throw new ApplicationError(CAP_ERRORS[kind]);
    if (kind === 'logs') checkLiveRange(criteria);
    const place = takeFilterPlace(this.access, kind, ip);
    const id = newRpcId();
    const counted = this.metrics?.filterInstalled(METRIC_KINDS[kind]) ?? NOT_COUNTED;
    const ended = () => {
      counted();
      place();
    };
    this.filters.set(id, { kind, criteria, deadline: Date.now() + this.config.jsonRpc['filter-timeout'], items: [], ended });
    this.follow();
    return id;
  }

  /** What arrived since the last poll; polling keeps the filter alive. */
  changes(id: string): Json[] {
    const filter = this.get(id);
    filter.deadline = Date.now() + this.config.jsonRpc['filter-timeout'];
    const items = filter.items;
    filter.items = [];
    return items;
  }

  /** A log filter's whole range, queried again (does not keep the filter alive). */
  logs(id: string): Promise<RpcLog[]> {
    const filter = this.get(id);
    if (filter.kind !== 'logs') throw new ApplicationError(notLogs(id, filter.kind));
    return this.evm.invoke(eth_getLogs, { criteria: filter.criteria });
  }

  uninstall(id: string): boolean {
    const filter = this.filters.get(id);
    if (!filter) return false;
    this.filters.delete(id);
    filter.ended();
    this.unfollowIfIdle();
    return true;
  }

  async onBlock(block: BlockEvents): Promise<void> {
    const kinds = new Set([...this.filters.values()].map((f) => f.kind));
    const hash = kinds.has('blocks') ? await block.hash() : null;
    const txHashes = kinds.has('pendingTransactions') ? await block.transactionHashes() : [];
    const logs = kinds.has('logs') ? await block.logs() : [];
    for (const filter of this.filters.values()) {
      if (filter.kind === 'blocks' && hash !== null) filter.items.push(hash);
      else if (filter.kind === 'pendingTransactions') filter.items.push(...txHashes);
      else if (filter.kind === 'logs') filter.items.push(...logs.filter((log) => matchesLog(filter.criteria, log)));
    }
  }

  onOverflow(): void {
    this.logger.warn('polling filters fell behind the chain; following it again from the latest block');
    this.detach = undefined;
    this.follow();
  }

  onModuleDestroy(): void {
    for (const filter of this.filters.values()) filter.ended();
    this.filters.clear();
    this.unfollowIfIdle();
  }


  private get(id: string): PollingFilter {
    const filter = this.filters.get(id);
    if (!filter) throw new ApplicationError(notFound(id));
    return filter;
  }

  private follow(): void {
    this.detach ??= this.feed.attach(this, MAX_BACKLOG);
    if (!this.sweeper) {
      this.sweeper = setInterval(() => this.sweep(), this.config.jsonRpc['filter-cleanup-interval']);
      this.sweeper.unref();
    }
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, filter] of this.filters) {
      if (filter.deadline > now) continue;
      this.filters.delete(id);
      filter.ended();
    }
    this.unfollowIfIdle();
  }

  private unfollowIfIdle(): void {
    if (this.filters.size > 0) return;
    this.detach?.();
    this.detach = undefined;
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}
