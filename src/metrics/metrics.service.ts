import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Registry, type Counter, type Gauge, type Histogram } from 'prom-client';
import { GatewayConfigService } from '../config/gateway-config.service';
import type { Transport } from '../rpc/call-context';
import type { Dispatcher } from '../rpc/dispatcher';
import { DispatchMetrics } from './dispatch-metrics';
import { GUARD_REASONS } from './label-values';
import { declareFamilies, type MetricFamilies, type Surface } from './metric-families';

/** What a transport increments per request: label children bound once, at construction. */
export interface TransportMeter {
  readonly requestBytes: Pick<Counter.Internal, 'inc'>;
  readonly responseBytes: Pick<Counter.Internal, 'inc'>;
}

const NOOP_COUNTER: Pick<Counter.Internal, 'inc'> = { inc: () => undefined };
const NOOP_HISTOGRAM: Pick<Histogram.Internal<string>, 'observe'> = { observe: () => undefined };
const NOOP_METER: TransportMeter = { requestBytes: NOOP_COUNTER, responseBytes: NOOP_COUNTER };

/**
 * The gateway's one prom-client registry and every metric family on it (see metric-families.ts), each
 * name prefixed with `[instrumentation] namespace` and `_`. Any module injects it to feed its own
 * families (`families.queue…`). With `[instrumentation] prometheus = false` nothing is served and the
 * request path is left uninstrumented: meters and observers handed out are no-ops.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly families: MetricFamilies;
  readonly enabled: boolean;
  private readonly dispatchMetrics = new Map<Surface, DispatchMetrics>();
  private readonly refusalCells = new Map<string, Pick<Counter.Internal, 'inc'>>();
  private readonly meters = new Map<string, TransportMeter>();

  constructor(config: GatewayConfigService) {
    const prefix = `${config.instrumentation.namespace}_`;
    this.families = declareFamilies(this.registry, prefix);
    this.enabled = config.instrumentation.prometheus;
    if (this.enabled) collectDefaultMetrics({ register: this.registry, prefix });
  }

  /** Counts and times every call of a surface's dispatcher, and samples its in-flight calls. */
  instrument(surface: Surface, dispatcher: Dispatcher): void {
    if (!this.enabled || this.dispatchMetrics.has(surface)) return;
    const observer = new DispatchMetrics(this.families, surface, (reason, limit) => this.refuse(surface, reason, limit));
    this.dispatchMetrics.set(surface, observer);
    dispatcher.addObserver(observer);
    this.families.rpc.inFlight.sample((gauge) => gauge.set({ interface: surface }, dispatcher.inFlight));
    // Refusals start at zero, so that rate() and increase() see the first one.
    for (const reason of GUARD_REASONS) this.families.rpc.refusals.labels({ interface: surface, reason }).inc(0);
  }

  /** Byte counters of one transport of a surface. */
  meter(surface: Surface, transport: Transport): TransportMeter {
    if (!this.enabled) return NOOP_METER;
    const key = `${surface}/${transport}`;
    let meter = this.meters.get(key);
    if (meter === undefined) {
      const labels = { interface: surface, transport };
      meter = { requestBytes: this.families.rpc.requestBytes.cell(labels), responseBytes: this.families.rpc.responseBytes.cell(labels) };
      this.meters.set(key, meter);
    }
    return meter;
  }

  /** The batch size histogram of a surface. */
  batchSize(surface: Surface): Pick<Histogram.Internal<string>, 'observe'> {
    return this.enabled ? this.families.rpc.batchSize.labels({ interface: surface }) : NOOP_HISTOGRAM;
  }

  /**
   * Counts a refusal: a guard's (`unsafe`, `websocket_only`, `namespace_disabled`, `not_implemented`)
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

  /** A call refused before dispatch (unparsable JSON): counted under `method="other"` with its error code. */
  rejected(surface: Surface, transport: Transport, code: number): void {
    this.dispatchMetrics.get(surface)?.rejected(transport, code);
  }

  /** Open connections of a surface, read at scrape time: plain HTTP sockets and WebSockets. */
  sampleConnections(surface: Surface, sockets: () => number, websockets: () => number): void {
    if (!this.enabled) return;
    this.families.rpc.connections.sample((gauge) => {
      const ws = websockets();
      gauge.set({ interface: surface, protocol: 'ws' }, ws);
      gauge.set({ interface: surface, protocol: 'http' }, Math.max(0, sockets() - ws));
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

/** Everything a surface's transports count, bound once; no-ops when metrics are off or absent. */
export interface SurfaceMeters {
  readonly uri: TransportMeter;
  readonly jsonrpc: TransportMeter;
  readonly ws: TransportMeter;
  readonly batchSize: Pick<Histogram.Internal<string>, 'observe'>;
  /** A limit refused a request or connection (the limit's config key). */
  refuse(limit: string): void;
  /** A request failed before dispatch (unparsable JSON). */
  rejected(transport: Transport, code: number): void;
  /** Counts a request received by `meter`: the bytes of `text` plus `extraBytes`. */
  received(meter: TransportMeter, text: string, extraBytes?: number): void;
  /** Returns `body` after counting its bytes as a response of `meter`. */
  counted(meter: TransportMeter, body: string): string;
}

/** The meters of a surface's transports; `metrics` may be absent (a module used without MetricsModule). */
export function surfaceMeters(metrics: MetricsService | undefined, surface: Surface): SurfaceMeters {
  const on = metrics?.enabled === true;
  return {
    uri: metrics ? metrics.meter(surface, 'uri') : NOOP_METER,
    jsonrpc: metrics ? metrics.meter(surface, 'jsonrpc') : NOOP_METER,
    ws: metrics ? metrics.meter(surface, 'ws') : NOOP_METER,
    batchSize: metrics ? metrics.batchSize(surface) : NOOP_HISTOGRAM,
    refuse: on ? (limit) => metrics.refuse(surface, 'limit', limit) : NOOP_END,
    rejected: on ? (transport, code) => metrics.rejected(surface, transport, code) : NOOP_END,
    received: on ? (meter, text, extraBytes = 0) => meter.requestBytes.inc(Buffer.byteLength(text) + extraBytes) : NOOP_END,
    counted: on
      ? (meter, body) => {
          meter.responseBytes.inc(Buffer.byteLength(body));
          return body;
        }
      : (_meter, body) => body,
  };
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
