import { Counter, Gauge, Histogram, type CounterConfiguration, type LabelValues, type Registry } from 'prom-client';

/** The `interface` label: which public RPC surface a series is about. */
export type Surface = 'node' | 'evm';

/** Seconds; from a cached status answer to a slow broadcast_tx_commit. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const BATCH_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];
const BLOCK_INTERVAL_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60];

/**
 * Every metric family of the gateway, declared once on one registry, each name after `prefix` (the
 * `[instrumentation] namespace` and `_`). Label sets are bounded: a method label only ever holds a
 * registered method name or `other`, an outcome `ok` or a JSON-RPC error code, an upstream label a
 * configured upstream's name. Families that other modules feed (upstream pools, the response cache,
 * the broadcast queue) are declared here too, so that their names and labels are fixed in one place.
 */
export function declareFamilies(registry: Registry, prefix: string) {
  const registers = [registry];
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    sampled((collect) => new Counter<L>({ name: prefix + name, help, labelNames, registers, collect }));
  const hotCounter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    cellCounter<L>({ name: prefix + name, help, labelNames, registers });
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    sampled((collect) => new Gauge<L>({ name: prefix + name, help, labelNames, registers, collect }));
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]) =>
    sampled((collect) => new Histogram<L>({ name: prefix + name, help, labelNames, buckets, registers, collect }));

  const call = ['interface', 'transport', 'method', 'outcome'] as const;
  const upstream = ['interface', 'upstream'] as const;
  const cache = ['interface'] as const;
  const cacheTier = ['interface', 'tier'] as const;
  return {
    rpc: {
      requests: hotCounter('requests_total', 'RPC calls answered, by interface, transport, method and outcome (ok or the JSON-RPC error code).', call),
      duration: histogram('request_duration_seconds', 'Time from dispatch to answer of an RPC call.', call, LATENCY_BUCKETS),
      inFlight: gauge('in_flight_requests', 'RPC calls being dispatched right now.', ['interface']),
      batchSize: histogram('batch_size', 'Calls per JSON-RPC batch request.', ['interface'], BATCH_BUCKETS),
      requestBytes: hotCounter('request_bytes_total', 'Bytes of RPC requests received: HTTP bodies, WebSocket messages, URI request targets.', [
        'interface',
        'transport',
      ]),
      responseBytes: hotCounter('response_bytes_total', 'Bytes of RPC answers sent (subscription events not included).', ['interface', 'transport']),
      connections: gauge('open_connections', 'Open client connections: plain HTTP sockets and WebSockets (http + ws = what max_open_connections counts).', [
        'interface',
        'protocol',
      ]),
      subscriptions: gauge('subscriptions', 'Live event subscriptions, by kind (node: the tm.event of the query; evm: newHeads, logs, …).', ['interface', 'kind']),
      filters: gauge('filters', 'Installed EVM polling filters, by kind (block, logs, pendingTransactions).', ['kind']),
      refusals: counter('refusals_total', 'Calls or connections refused: by a guard (unsafe, websocket_only, namespace_disabled) or at a limit.', [
        'interface',
        'reason',
        'limit',
      ]),
    },
    devnet: {
      height: gauge('devnet_block_height', 'Height of the latest block of the embedded devnet.'),
      lastBlockTime: gauge('devnet_last_block_timestamp_seconds', 'Header time of the latest devnet block, in Unix seconds.'),
      blockInterval: histogram('devnet_block_interval_seconds', 'Time between consecutive devnet block headers.', [], BLOCK_INTERVAL_BUCKETS),
      txs: counter('devnet_txs_total', 'Transactions included in devnet blocks.'),
      mempoolTxs: gauge('devnet_mempool_txs', 'Transactions waiting in the devnet mempool.'),
      mempoolBytes: gauge('devnet_mempool_bytes', 'Bytes of the transactions waiting in the devnet mempool.'),
    },
    upstream: {
      up: gauge('upstream_up', 'Health of an upstream node: 1 when it passes its health check, else 0.', upstream),
      latestHeight: gauge('upstream_latest_height', 'Latest block height an upstream node reports.', upstream),
      lag: gauge('upstream_lag_blocks', 'Blocks an upstream node is behind the best of its pool.', upstream),
      duration: histogram('upstream_request_duration_seconds', 'Latency of the requests an upstream node answered (JSON-RPC error answers included).', upstream, LATENCY_BUCKETS),
      errors: counter(
        'upstream_errors_total',
        'Requests to an upstream node that failed, by kind: timeout, connection (refused or lost), http (a bad status or body), rpc (a JSON-RPC error answer).',
        [...upstream, 'kind'],
      ),
      retries: counter('upstream_retries_total', 'Idempotent reads retried on an upstream node after another failed.', upstream),
      hedges: counter('upstream_hedges_total', 'Hedged requests sent to an upstream node while a slower one was pending.', upstream),
      batched: counter('upstream_batched_requests_total', 'Requests sent to an upstream node inside a JSON-RPC batch of several (see [upstream] batch_max_size).', upstream),
      breakerState: gauge('upstream_breaker_state', 'Circuit breaker of an upstream node: 0 closed, 1 half-open, 2 open.', upstream),
      wrongChain: gauge('upstream_wrong_chain', "1 while an upstream node is quarantined for reporting another chain than its pool's, else 0.", upstream),
      chainChanges: counter('upstream_chain_changes_total', 'Times a pool moved to another chain (a reload to nodes of another chain); its cache is dropped each time.', ['interface']),
    },
    cache: {
      hits: counter('cache_hits_total', 'Answers served from the response cache, by tier (memory, redis).', cacheTier),
      misses: counter('cache_misses_total', 'Cacheable calls a tier of the response cache (memory, redis) did not hold.', cacheTier),
      bytes: gauge('cache_bytes', 'Bytes held by the response cache.', cache),
      entries: gauge('cache_entries', 'Entries held by the response cache.', cache),
      evictions: counter('cache_evictions_total', 'Entries evicted from the response cache to stay under max_bytes.', cache),
      redisUp: gauge('cache_redis_up', 'The Redis tier of the response cache: 1 answering, 0 not; absent without [cache] redis_url.'),
      redisErrors: counter('cache_redis_errors_total', 'Redis lookups and writes of the response cache that Redis did not serve.', cache),
    },
    queue: {
      depth: gauge('queue_jobs', 'Broadcast queue jobs, by state (waiting, active, delayed, failed).', ['state']),
      jobs: counter('queue_jobs_total', 'Broadcast queue jobs finished, by outcome (delivered, rejected by the node, failed after every attempt, deduplicated).', ['outcome']),
      retries: counter('queue_retries_total', 'Broadcast queue delivery attempts retried after a failure.'),
      duration: histogram('queue_job_duration_seconds', 'Time from enqueue to delivery of a broadcast.', [], LATENCY_BUCKETS),
    },
    plugins: {
      errors: counter('plugin_errors_total', 'Plugin method calls that failed with an unexpected error (the caller got an internal error).', ['plugin']),
      blocks: counter(
        'plugin_event_loop_blocks_total',
        'Plugin method calls whose handler held the event loop past the blocking threshold (100 ms) in one synchronous stretch: every other call waited meanwhile.',
        ['plugin', 'method'],
      ),
      outOfService: gauge('plugin_methods_out_of_service', 'Plugin methods taken out of service until restart for holding the event loop ([plugins] blocking_quarantine): 1 each.', ['plugin', 'method']),
    },
  };
}

export type MetricFamilies = ReturnType<typeof declareFamilies>;

/** A counter of the request path: a plain number, added to its counter series at scrape time. */
export class CounterCell {
  value = 0;
  flushed = 0;

  inc(amount = 1): void {
    this.value += amount;
  }
}

/**
 * A counter whose hot series are CounterCells: incrementing one is an addition (no label hashing, no
 * allocation); each scrape adds what accrued to the series through prom-client's own API.
 */
export type CellCounter<L extends string> = Counter<L> & {
  /** The cell of one label set; use one cell (or labels()) per label set, not both. */
  cell(labels: LabelValues<L>): CounterCell;
};

function cellCounter<L extends string>(config: CounterConfiguration<L>): CellCounter<L> {
  const cells: Array<{ readonly cell: CounterCell; readonly series: Counter.Internal }> = [];
  const counter = new Counter<L>({
    ...config,
    collect() {
      for (const { cell, series } of cells) {
        const value = cell.value;
        if (value === cell.flushed) continue;
        series.inc(value - cell.flushed);
        cell.flushed = value;
      }
    },
  });
  return Object.assign(counter, {
    cell(labels: LabelValues<L>): CounterCell {
      const cell = new CounterCell();
      cells.push({ cell, series: counter.labels(labels) });
      return cell;
    },
  });
}

/** Runs on every scrape before its family is read: sets the values it samples, drops series of things gone; may be async. */
export type Sampler<M> = (metric: M) => void | Promise<void>;

/** A family that can also be read at scrape time from whatever owns the values (nothing on the hot path). */
export type Sampled<M> = M & {
  /** Adds a sampler, run on every scrape; returns its removal. */
  sample(sampler: Sampler<M>): () => void;
};

export type SampledGauge<L extends string> = Sampled<Gauge<L>>;

/** A family rebuilt on each scrape: a gauge, or a counter whose totals are kept elsewhere. */
export type Rebuilt<L extends string> = Sampled<Pick<Gauge<L>, 'reset' | 'inc'>>;

/** Replaces every series of a family with `rows` (after a reset, `inc` sets a gauge or a counter's total). */
export function rebuild<L extends string>(family: Pick<Gauge<L>, 'reset' | 'inc'>, rows: ReadonlyArray<readonly [LabelValues<L>, number]>): void {
  family.reset();
  for (const [labels, value] of rows) family.inc(labels, value);
}

/** `create` builds the family around the collect callback that runs its samplers. */
function sampled<M extends object>(create: (collect: () => Promise<void>) => M): Sampled<M> {
  const samplers = new Set<Sampler<M>>();
  const metric = create(async () => {
    if (samplers.size > 0) await Promise.all([...samplers].map((s) => s(metric)));
  });
  return Object.assign(metric, {
    sample(sampler: Sampler<M>): () => void {
      samplers.add(sampler);
      return () => samplers.delete(sampler);
    },
  });
}
