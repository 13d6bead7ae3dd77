import { Logger } from '@nestjs/common';
import type { AccessService } from '../../access/access.service';
import type { MetricsService } from '../../metrics/metrics.service';
import { ApplicationError } from '../../rpc/errors';
import type { Invoker } from '../../rpc/invoker';
import type { Json } from '../../rpc/json';
import * as c from '../codec/codecs';
import { eth_getBlockByNumber } from '../eth/blocks.methods';
import { eth_blockNumber } from '../eth/chain.methods';
import type { LogFilter, RpcLog } from '../evm-types';
import { CAP_ERRORS, takeFilterPlace, METRIC_KINDS, notFound, notLogs, type FilterKind, type FilterStore } from './filter-kinds';
import { eth_getLogs } from './get-logs';
import { checkLiveRange } from './log-match';
import type { RedisFilterStore, StoredFilter } from './redis-filter-store';
import { newRpcId } from './rpc-id';

export interface SharedFiltersOptions {
  /** `[json-rpc] filter-cap`: live filters over every replica. */
  readonly cap: () => number;
  /** Most blocks one poll reads (the rest come with the next poll). */
  readonly maxStep?: number;
  /** How often this replica checks which of the filters it created still exist (their per-IP places, the gauge). */
  readonly sweepMs?: number;
}

const MAX_STEP = 500;
const MAX_PENDING = 10_000;
/** Reads of blocks at once while catching up. */
const READ_AHEAD = 16;
/** Polls that lost a race re-read the cursor this many times before answering nothing new. */
const RACE_RETRIES = 3;
const NOT_COUNTED = (): void => undefined;

/**
 * Polling filters every replica shares through Redis. A block or log filter keeps a cursor, the last
 * height it delivered: a poll reads (cursor, head] through `invoke` and then moves the cursor with a
 * compare-and-set, so two polls of one filter on two replicas never both deliver a block, and a poll
 * that fails delivers nothing and moves nothing. A pending-transaction filter's cursor is an id in a
 * shared stream of transaction hashes, which the polling replica first brings up to the head; taking
 * the hashes after the cursor and moving it is one step in Redis. Expiry is the filter key's TTL,
 * renewed by polls; filter-cap counts leases in Redis that end with the filter.
 */
export class SharedFilters implements FilterStore {
  private readonly logger = new Logger('EvmFilters');
  /** Filters created here: what ends their per-IP place and their count in the gauge. */
  private readonly local = new Map<string, () => void>();
  private sweeper: NodeJS.Timeout | undefined;
  private down = false;

  constructor(
    private readonly store: RedisFilterStore,
    private readonly evm: Invoker,
    private readonly options: SharedFiltersOptions,
    private readonly metrics?: MetricsService,
    private readonly access?: AccessService,
  ) {}

  /** Caps of the call are taken before the first await: the per-IP place here, filter-cap in Redis. */
  async create(kind: FilterKind, criteria: LogFilter = {}, ip?: string): Promise<string> {
    if (kind === 'logs') checkLiveRange(criteria);
    const place = takeFilterPlace(this.access, kind, ip);
    const id = newRpcId();
    try {
      const head = await this.head();
      const installed = await this.redis(() => this.store.create(id, kind, JSON.stringify(c.filterCriteria.encode?.(criteria) ?? {}), head, this.options.cap(), head));
      if (!installed) throw new ApplicationError(CAP_ERRORS[kind]);
    } catch (err) {
      place();
      throw err;
    }
    const counted = this.metrics?.filterInstalled(METRIC_KINDS[kind]) ?? NOT_COUNTED;
    this.local.set(id, () => {
      counted();
      place();
    });
    this.sweep();
    return id;
  }

  async changes(id: string): Promise<Json[]> {
    for (let attempt = 0; attempt <= RACE_RETRIES; attempt++) {
      const filter = await this.get(id);
      if (filter.kind === 'pendingTransactions') return this.pending(id);
      const cursor = BigInt(filter.cursor);
      const head = await this.head();
      const to = head < cursor + this.maxStep ? head : cursor + this.maxStep;
      const read = to > cursor ? await this.read(filter, cursor + 1n, to) : { items: [], last: cursor };
      const moved = await this.redis(() => this.store.advance(id, filter.cursor, read.last.toString()));
      if (moved === 'advanced') return read.items;
      if (moved === 'missing') throw new ApplicationError(notFound(id));
    }
    return [];
  }

  async logs(id: string): Promise<RpcLog[]> {
    const filter = await this.get(id);
    if (filter.kind !== 'logs') throw new ApplicationError(notLogs(id, filter.kind));
    return this.evm.invoke(eth_getLogs, { criteria: criteriaOf(filter) });
  }

  async uninstall(id: string): Promise<boolean> {
    const removed = await this.redis(() => this.store.remove(id));
    this.local.get(id)?.();
    this.local.delete(id);
    return removed;
  }

  /** This replica's counts end; the filters stay in Redis for the others. */
  close(): void {
    for (const ended of this.local.values()) ended();
    this.local.clear();
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  private get maxStep(): bigint {
    return BigInt(this.options.maxStep ?? MAX_STEP);
  }

  private async get(id: string): Promise<StoredFilter> {
    const filter = await this.redis(() => this.store.get(id));
    if (!filter) throw new ApplicationError(notFound(id));
    return filter;
  }

  private async head(): Promise<bigint> {
    return BigInt(await this.evm.invoke(eth_blockNumber, {}));
  }

  /** A block or log filter's items in [from, to], and the last height they cover. */
  private async read(filter: StoredFilter, from: bigint, to: bigint): Promise<{ items: Json[]; last: bigint }> {
    if (filter.kind === 'logs') return { items: await this.logsBetween(criteriaOf(filter), from, to), last: to };
    const blocks = await this.blocks(from, to);
    return { items: blocks.map((b) => b.hash), last: from + BigInt(blocks.length) - 1n };
  }

  /** New logs of [from, to] that match: the filter's own bounds narrow the range. */
  private async logsBetween(criteria: LogFilter, from: bigint, to: bigint): Promise<RpcLog[]> {
    const lo = criteria.fromBlock?.kind === 'number' && criteria.fromBlock.number > from ? criteria.fromBlock.number : from;
    const hi = criteria.toBlock?.kind === 'number' && criteria.toBlock.number < to ? criteria.toBlock.number : to;
    if (lo > hi) return [];
    const { address, topics } = criteria;
    if (criteria.blockHash !== undefined) {
      const logs = await this.evm.invoke(eth_getLogs, { criteria: { blockHash: criteria.blockHash, address, topics } });
      return logs.filter((log) => BigInt(log.blockNumber as string) >= lo && BigInt(log.blockNumber as string) <= hi);
    }
    const range: LogFilter = { address, topics, fromBlock: { kind: 'number', number: lo }, toBlock: { kind: 'number', number: hi } };
    return this.evm.invoke(eth_getLogs, { criteria: range });
  }

  /** The blocks of [from, to] in order, up to the first one the backend does not have yet. */
  private async blocks(from: bigint, to: bigint): Promise<Array<{ hash: string; transactions: string[] }>> {
    const out: Array<{ hash: string; transactions: string[] }> = [];
    for (let start = from; start <= to; start += BigInt(READ_AHEAD)) {
      const heights: bigint[] = [];
      for (let h = start; h <= to && h < start + BigInt(READ_AHEAD); h++) heights.push(h);
      const blocks = await Promise.all(heights.map((number) => this.evm.invoke(eth_getBlockByNumber, { block: { kind: 'number', number }, fullTransactions: false })));
      for (const block of blocks) {
        if (!block || typeof block.hash !== 'string') return out;
        out.push({ hash: block.hash, transactions: (block.transactions as string[] | undefined) ?? [] });
      }
    }
    return out;
  }

  /** Brings the shared stream up to the head, then takes what follows this filter's cursor. */
  private async pending(id: string): Promise<Json[]> {
    const [published, head] = await Promise.all([this.redis(() => this.store.publishedHeight()), this.head()]);
    if (published === undefined || head - published > this.maxStep) {
      await this.redis(() => this.store.skipTo(published === undefined ? head : head - this.maxStep));
    }
    const from = (published === undefined ? head : published > head - this.maxStep ? published : head - this.maxStep) + 1n;
    if (from <= head) {
      const blocks = await this.blocks(from, head);
      for (const [i, block] of blocks.entries()) {
        if (!(await this.redis(() => this.store.publish(from + BigInt(i), block.transactions)))) break;
      }
    }
    const hashes = await this.redis(() => this.store.claimPending(id, MAX_PENDING));
    if (!hashes) throw new ApplicationError(notFound(id));
    return hashes;
  }

  /** Ends the counts of the filters created here that expired or were uninstalled on another replica. */
  private sweep(): void {
    if (this.sweeper || this.local.size === 0) return;
    this.sweeper = setInterval(() => void this.sweepOnce(), this.options.sweepMs ?? 30_000);
    this.sweeper.unref();
  }

  private async sweepOnce(): Promise<void> {
    const ids = [...this.local.keys()];
    let alive: boolean[];
    try {
      alive = await this.store.existing(ids);
    } catch {
      return;
    }
    ids.forEach((id, i) => {
      if (alive[i]) return;
      this.local.get(id)?.();
      this.local.delete(id);
    });
    if (this.local.size > 0) return;
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  /** A Redis step; a failure is the client's clear error, and one warning per outage. */
  private async redis<T>(step: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await step();
    } catch (err) {
      if (!this.down) this.logger.warn(`filters: Redis cannot be reached (${(err as Error).message}); filter calls fail until it answers`);
      this.down = true;
      throw new ApplicationError('filters unavailable: their store cannot be reached');
    }
    if (this.down) this.logger.log('filters: Redis answers again');
    this.down = false;
    return result;
  }
}

function criteriaOf(filter: StoredFilter): LogFilter {
  return c.filterCriteria.decode(JSON.parse(filter.criteria));
}
