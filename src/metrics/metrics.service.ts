import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Registry, type Counter, type Gauge } from 'prom-client';
import { GatewayConfigService } from '../config/gateway-config.service';
import type { Transport } from '../rpc/call-context';
import type { EngineMeters, RpcEngine } from '../rpc/engine';
import { DispatchMetrics } from './dispatch-metrics';
import { GUARD_REASONS } from './label-values';
import { declareFamilies, type MetricFamilies, type Surface } from './metric-families';

/** What a transport increments per request: label children bound once, at construction. */
interface TransportMeter {
  readonly requestBytes: Pick<Counter.Internal, 'inc'>;
  readonly responseBytes: Pick<Counter.Internal, 'inc'>;
}


/**
 * The gateway's one prom-client registry and every metric family on it (see metric-families.ts), each
 * of the gateway's own names prefixed with `[instrumentation] namespace` and `_`; prom-client's
 * standard process and Node.js runtime families (`process_cpu_seconds_total`, `nodejs_heap_size_used_bytes`,
 * …) keep their standard names, which the usual dashboards query. Any module injects it to feed its own
 * families (`families.queue…`). With `[instrumentation] prometheus = false` nothing is served and the
 * request path is left uninstrumented: meters and observers handed out are no-ops.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly families: MetricFamilies;
  readonly enabled: boolean;
  /** `[instrumentation] namespace` and `_`: the start of every family of the gateway's own. */
  readonly prefix: string;
  private readonly dispatchMetrics = new Map<Surface, DispatchMetrics>();
  private readonly refusalCells = new Map<string, Pick<Counter.Internal, 'inc'>>();
  private readonly meters = new Map<string, TransportMeter>();

  constructor(config: GatewayConfigService) {
    const prefix = `${config.instrumentation.namespace}_`;
    this.prefix = prefix;
    this.families = declareFamilies(this.registry, prefix);
    this.enabled = config.instrumentation.prometheus;
    if (this.enabled) collectDefaultMetrics({ register: this.registry });
  }

  /**
   * Counts and times every call of an interface's engine, its request and response bytes, batch sizes
   * and refusals, and samples its in-flight calls.
   */
  instrument(surface: Surface, engine: RpcEngine): void {
    if (!this.enabled || this.dispatchMetrics.has(surface)) return;
    const observer = new DispatchMetrics(this.families, surface, (reason, limit) => this.refuse(surface, reason, limit));
    this.dispatchMetrics.set(surface, observer);
    engine.addObserver(observer);
    engine.useMeters(this.engineMeters(surface, observer));
    this.families.rpc.inFlight.sample((gauge) => gauge.set({ interface: surface }, engine.inFlight));
    // Refusals start at zero, so that rate() and increase() see the first one.
    for (const reason of GUARD_REASONS) this.families.rpc.refusals.labels({ interface: surface, reason }).inc(0);
  }

  private engineMeters(surface: Surface, calls: DispatchMetrics): EngineMeters {
    const batchSize = this.families.rpc.batchSize.labels({ interface: surface });
    return {
      received: (transport, bytes) => this.meter(surface, transport).requestBytes.inc(bytes),
      answered: (transport, bytes) => this.meter(surface, transport).responseBytes.inc(bytes),
      batch: (size) => batchSize.observe(size),
      refused: (limit) => this.refuse(surface, 'limit', limit),
      rejected: (transport, code) => calls.rejected(transport, code),
    };
  }

  /** Byte counters of one transport of a surface. */
  private meter(surface: Surface, transport: Transport): TransportMeter {
    const key = `${surface}/${transport}`;
    let meter = this.meters.get(key);
    if (meter === undefined) {
      const labels = { interface: surface, transport };
      meter = { requestBytes: this.families.rpc.requestBytes.cell(labels), responseBytes: this.families.rpc.responseBytes.cell(labels) };
      this.meters.set(key, meter);
    }
    return meter;
  }

  /**
   * Counts a refusal: a guard's (`unsafe`, `websocket_only`, `namespace_disabled`)
   * or, with reason `limit`, the limit's config key (`max_open_connections`, `batch-request-limit`, …).
   */
  refuse(surface: Surface, reason: string, limit?: string): void {
    if (!this.enabled) return;
    const key = `${surface}\0${reason}\0${limit ?? ''}`;
    let cell = this.refusalCells.get(key);
    if (cell === undefined) {
      cell = this.families.rpc.refusals.labels(limit === undefined ? { interface: surface, reason } : { interface: surface, reason, limit });
      this.refusalCells.set(key, cell);
    }
    cell.inc();
  }

  /** Open connections of a surface, read at scrape time: plain HTTP sockets and WebSockets. */
  sampleConnections(surface: Surface, connections: () => { http: number; ws: number }): void {
    if (!this.enabled) return;
    this.families.rpc.connections.sample((gauge) => {
      const open = connections();
      gauge.set({ interface: surface, protocol: 'ws' }, open.ws);
      gauge.set({ interface: surface, protocol: 'http' }, open.http);
    });
  }

  /** Counts a live subscription of a kind; the returned function (idempotent) ends it. */
  subscriptionOpened(surface: Surface, kind: string): () => void {
    return this.enabled ? once(this.families.rpc.subscriptions.labels({ interface: surface, kind })) : NOOP_END;
  }

  /** Counts an installed EVM filter of a kind; the returned function (idempotent) removes it. */
  filterInstalled(kind: string): () => void {
    return this.enabled ? once(this.families.rpc.filters.labels({ kind })) : NOOP_END;
  }

  /** The exposition text of every family. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }
}

const NOOP_END = (): void => undefined;

function once(gauge: Pick<Gauge.Internal<string>, 'inc' | 'dec'>): () => void {
  gauge.inc();
  let open = true;
  return () => {
    if (!open) return;
    open = false;
    gauge.dec();
  };
}
