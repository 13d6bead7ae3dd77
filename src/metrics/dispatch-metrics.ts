import type { Histogram } from 'prom-client';
import type { CallContext, Transport } from '../rpc/call-context';
import type { DispatchObserver, DispatchOutcome, RpcRequest } from '../rpc/dispatcher';
import type { RpcError } from '../rpc/errors';
import type { MethodSpec } from '../rpc/method-spec';
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
 * Counts and times every call a Dispatcher answers, for one surface. Label children are bound once
 * per method and transport and looked up by the method's spec object, so a call costs two map reads,
 * an addition (the counter is a cell, flushed at scrape time) and a histogram observation.
 */
export class DispatchMetrics implements DispatchObserver {
  private readonly series = new Map<MethodSpec | undefined, Partial<Record<Transport, MethodSeries>>>();

  constructor(
    private readonly families: MetricFamilies,
    private readonly surface: Surface,
    private readonly refuse: (reason: string, limit?: string) => void,
  ) {}

  onDispatched(_request: RpcRequest, ctx: CallContext, outcome: DispatchOutcome, startedAt: bigint): void {
    const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
    const series = this.seriesOf(outcome.spec, ctx.transport);
    const cells = outcome.ok ? series.ok : series.failed(outcome.error.code);
    cells.requests.inc();
    cells.duration.observe(seconds);
    if (!outcome.ok) this.noteRefusal(outcome.error);
  }

  /** A call that failed before it could be dispatched (unparsable JSON): counted, not timed. */
  rejected(transport: Transport, code: number): void {
    this.seriesOf(undefined, transport).failed(code).requests.inc();
  }

  private seriesOf(spec: MethodSpec | undefined, transport: Transport): MethodSeries {
    let byTransport = this.series.get(spec);
    if (byTransport === undefined) this.series.set(spec, (byTransport = {}));
    let series = byTransport[transport];
    if (series === undefined) {
      byTransport[transport] = series = new MethodSeries(this.families, {
        interface: this.surface,
        transport,
        method: spec?.name ?? OTHER_METHOD,
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
