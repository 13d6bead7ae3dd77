import type { Gauge, Histogram, LabelValues } from 'prom-client';
import type { Upstream } from '../backends/upstream/upstream';
import { upstreamErrorKind, type PoolSurface, type UpstreamErrorKind, type UpstreamObserver, type UpstreamRequestObserver } from '../backends/upstream/upstream-observer';
import type { UpstreamPool } from '../backends/upstream/upstream-pool';
import { rebuild, type MetricFamilies, type Rebuilt } from './metric-families';

type UpstreamLabel = 'interface' | 'upstream';

const BREAKER_STATE = { closed: 0, 'half-open': 1, open: 2 } as const;
const ERROR_KINDS: readonly UpstreamErrorKind[] = ['timeout', 'connection', 'http', 'rpc'];

/** What the requests to one upstream (one Upstream object) have accrued. */
interface RequestSeries {
  readonly labels: LabelValues<UpstreamLabel>;
  readonly duration: Histogram.Internal<UpstreamLabel>;
  readonly errors: Record<UpstreamErrorKind, number>;
}

/**
 * The upstream families, fed by the pools it watches (their caches' families are cache-metrics.ts's). What
 * a pool already knows or counts (health, heights, breaker states, retries, hedges) is read at scrape time, and those
 * series are rebuilt from the pools' current upstream lists, so that a reload drops the series of the
 * upstreams gone. A request to an upstream costs a map read, a histogram observation or an addition.
 */
export class UpstreamMetrics implements UpstreamObserver {
  private readonly pools: Array<{ readonly pool: UpstreamPool; readonly surface: PoolSurface }> = [];
  private readonly requests = new Map<Upstream, RequestSeries>();

  constructor(private readonly families: MetricFamilies) {
    const { upstream } = families;
    this.perUpstream(upstream.up, (u) => (u.healthy ? 1 : 0));
    this.perUpstream(upstream.latestHeight, (u) => Number(u.latestHeight));
    this.perUpstream(upstream.lag, (u, head) => (head > u.latestHeight ? Number(head - u.latestHeight) : 0));
    this.perUpstream(upstream.breakerState, (u) => BREAKER_STATE[u.breaker.state]);
    this.perUpstream(upstream.retries, (u) => u.counters.retries);
    this.perUpstream(upstream.hedges, (u) => u.counters.hedges);
    this.perUpstream(upstream.batched, (u) => u.client.batches.calls);
    this.perUpstream(upstream.wrongChain, (u) => (!u.healthy && u.downReason === 'wrong-chain' ? 1 : 0));
    upstream.chainChanges.sample((f) => rebuild<'interface'>(f, this.pools.map(({ pool, surface }) => [{ interface: surface }, pool.stats().chain_changes] as const)));
    upstream.errors.sample((family) =>
      rebuild<UpstreamLabel | 'kind'>(
        family,
        [...this.upstreams()].flatMap(({ u, labels }) => ERROR_KINDS.map((kind) => [{ ...labels, kind }, this.requests.get(u)?.errors[kind] ?? 0] as const)),
      ),
    );
    upstream.duration.sample(() => this.dropGone());
  }

  watch(pool: UpstreamPool, surface: PoolSurface): UpstreamRequestObserver {
    this.pools.push({ pool, surface });
    return { requestEnded: (u, ms, error) => this.requestEnded(surface, u, ms, error) };
  }

  private requestEnded(surface: PoolSurface, u: Upstream, ms: number, error: unknown): void {
    let series = this.requests.get(u);
    if (series === undefined) {
      const labels = { interface: surface, upstream: u.name };
      series = { labels, duration: this.families.upstream.duration.labels(labels), errors: { timeout: 0, connection: 0, http: 0, rpc: 0 } };
      this.requests.set(u, series);
    }
    const kind = error === undefined ? undefined : upstreamErrorKind(error);
    if (kind !== undefined) series.errors[kind]++;
    // A JSON-RPC error is an answer: its latency counts.
    if (error === undefined || kind === 'rpc') series.duration.observe(ms / 1000);
  }

  /** Forgets the upstreams no pool holds any more, and the latencies of names no pool has now. */
  private dropGone(): void {
    const current = new Set<Upstream>();
    const names = new Set<string>();
    for (const { u, labels } of this.upstreams()) {
      current.add(u);
      names.add(`${labels.interface}/${labels.upstream}`);
    }
    for (const [u, series] of this.requests) {
      if (current.has(u)) continue;
      this.requests.delete(u);
      if (!names.has(`${series.labels.interface}/${series.labels.upstream}`)) this.families.upstream.duration.remove(series.labels);
    }
  }

  private *upstreams(): Generator<{ readonly u: Upstream; readonly labels: LabelValues<UpstreamLabel>; readonly head: bigint }> {
    for (const { pool, surface } of this.pools) {
      const head = pool.head;
      for (const u of pool.upstreams) yield { u, labels: { interface: surface, upstream: u.name }, head };
    }
  }

  /** A family of one value per upstream, read at scrape time. */
  private perUpstream(family: Rebuilt<UpstreamLabel>, value: (u: Upstream, head: bigint) => number): void {
    family.sample((f) => rebuild(f, [...this.upstreams()].map(({ u, labels, head }) => [labels, value(u, head)] as const)));
  }
}
