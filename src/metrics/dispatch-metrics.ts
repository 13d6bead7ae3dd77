import type { Histogram } from 'prom-client';
import type { CallContext, Transport } from '../rpc/call-context';
import type { RpcRequest } from '../rpc/dialect';
import type { CallObserver, Outcome } from '../rpc/engine';
import type { RpcError } from '../rpc/errors';
import type { AnyMethod } from '../rpc/method';
import { errorOutcome, OK_OUTCOME, OTHER_METHOD, refusalOf } from './label-values';
import type { CounterCell, MetricFamilies, Surface } from './metric-families';

type CallLabel = 'interface' | 'transport' | 'method' | 'outcome';

/** The pre-bound children of one (interface, transport, method, outcome) series. */
interface Cells {
  readonly requests: CounterCell;
  readonly duration: Histogram.Internal<CallLabel>;
}

/** The series of one method over one transport: `ok` bound up front, error outcomes on first use. */
class MethodSeries {
  readonly ok: Cells;
  private readonly errors = new Map<string, Cells>();

  constructor(
    private readonly families: MetricFamilies,
    private readonly labels: { interface: Surface; transport: Transport; method: string },
  ) {
    this.ok = this.bind(OK_OUTCOME);
  }

  failed(code: number): Cells {
    const outcome = errorOutcome(code);
    let cells = this.errors.get(outcome);
    if (cells === undefined) this.errors.set(outcome, (cells = this.bind(outcome)));
    return cells;
  }

  private bind(outcome: string): Cells {
    const labels = { ...this.labels, outcome };
    return { requests: this.families.rpc.requests.cell(labels), duration: this.families.rpc.duration.labels(labels) };
  }
}

/**
 * Counts and times every call an engine answers, for one surface. Label children are bound once
 * per method and transport and looked up by the method's definition object, so a call costs two map reads,
 * an addition (the counter is a cell, flushed at scrape time) and a histogram observation.
 */
export class DispatchMetrics implements CallObserver {
  private readonly series = new Map<AnyMethod | undefined, Partial<Record<Transport, MethodSeries>>>();

  constructor(
    private readonly families: MetricFamilies,
    private readonly surface: Surface,
    private readonly refuse: (reason: string, limit?: string) => void,
  ) {}

  onCall(_request: RpcRequest, ctx: CallContext, outcome: Outcome, startedAt: bigint): void {
    const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
    const series = this.seriesOf(outcome.method, ctx.transport);
    const cells = outcome.ok ? series.ok : series.failed(outcome.error.code);
    cells.requests.inc();
    cells.duration.observe(seconds);
    if (!outcome.ok) this.noteRefusal(outcome.error);
  }

  /** A call that failed before it could be dispatched (unparsable JSON): counted, not timed. */
  rejected(transport: Transport, code: number): void {
    this.seriesOf(undefined, transport).failed(code).requests.inc();
  }

  private seriesOf(method: AnyMethod | undefined, transport: Transport): MethodSeries {
    let byTransport = this.series.get(method);
    if (byTransport === undefined) this.series.set(method, (byTransport = {}));
    let series = byTransport[transport];
    if (series === undefined) {
      byTransport[transport] = series = new MethodSeries(this.families, {
        interface: this.surface,
        transport,
        method: method?.name ?? OTHER_METHOD,
      });
    }
    return series;
  }

  private noteRefusal(error: RpcError): void {
    const refusal = refusalOf(error);
    if (refusal === undefined) return;
    if (refusal.reason === 'limit') this.refuse('limit', refusal.limit);
    else this.refuse(refusal.reason);
  }
}
