/**
 * The spans the gateway makes, as hooks for the engine, the upstream pools, the queue and the devnet.
 * While tracing is off (the default) the caller tests `tracingOn()` first, or the hook returns at once:
 * no span object, no context switch, nothing allocated per call. While it is on, a span is made active
 * (AsyncLocalStorage, as the SDK registers it) for the work it covers, so that what that work starts
 * (an upstream attempt, a log line) finds its parent without being handed it.
 */
import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { upstreamErrorKind } from '../backends/upstream/upstream-observer';
import type { CallContext } from '../rpc/call-context';
import type { Origin, Outcome } from '../rpc/engine';

/** Attribute names of the gateway's own (the rest are OpenTelemetry's RPC conventions). */
const ATTR = {
  interface: 'rpcgw.interface',
  transport: 'rpcgw.transport',
  outcome: 'rpcgw.outcome',
  cache: 'rpcgw.cache',
  batchSize: 'rpcgw.batch.size',
  upstream: 'rpcgw.upstream',
  attempt: 'rpcgw.attempt',
  status: 'rpcgw.upstream.status',
} as const;

/** What a call's span is named when its method is not registered (the client's name is never used). */
const UNKNOWN_METHOD = '_OTHER';

let tracer: Tracer | undefined;

/** Set once the SDK is registered (see tracing-sdk.ts); undefined turns every hook off. */
export function useTracer(t: Tracer | undefined): void {
  tracer = t;
}

export function tracingOn(): boolean {
  return tracer !== undefined;
}

/** Runs `run` with `span` active under `parent`; the span ends when it settles (with the error, if it throws). */
function within<T>(span: Span, parent: Context, run: () => Promise<T>): Promise<T> {
  return context.with(trace.setSpan(parent, span), run).then(
    (value) => {
      span.end();
      return value;
    },
    (err: unknown) => {
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      span.end();
      throw err;
    },
  );
}

/**
 * The span of one client call (call only while tracingOn()): a child of the batch it is a member of,
 * else of the trace context the client sent in its HTTP headers (W3C `traceparent`), else a new trace.
 */
export function traceCall(iface: 'node' | 'evm', ctx: CallContext, run: () => Outcome | Promise<Outcome>): Promise<Outcome> {
  const active = context.active();
  const inBatch = trace.getSpan(active) !== undefined;
  const parent = inBatch || ctx.traceHeaders === undefined ? active : propagation.extract(active, ctx.traceHeaders);
  const attributes = { 'rpc.system': 'jsonrpc', 'rpc.jsonrpc.version': '2.0', [ATTR.interface]: iface, [ATTR.transport]: ctx.transport };
  const span = tracer!.startSpan(UNKNOWN_METHOD, { kind: inBatch ? SpanKind.INTERNAL : SpanKind.SERVER, attributes }, parent);
  return Promise.resolve(context.with(trace.setSpan(parent, span), run)).then((outcome) => {
    const method = outcome.method?.name ?? UNKNOWN_METHOD;
    span.updateName(method);
    span.setAttribute('rpc.method', method);
    span.setAttribute(ATTR.outcome, outcome.ok ? 'ok' : 'error');
    if (!outcome.ok) {
      span.setAttribute('rpc.jsonrpc.error_code', outcome.error.code);
      span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error.message });
    }
    span.end();
    return outcome;
  });
}

/** The span of a batch (call only while tracingOn()): its members' spans are its children. */
export function traceBatch<T>(iface: 'node' | 'evm', origin: Origin, size: number, run: () => Promise<T>): Promise<T> {
  const active = context.active();
  const parent = origin.traceHeaders === undefined ? active : propagation.extract(active, origin.traceHeaders);
  const attributes = { 'rpc.system': 'jsonrpc', [ATTR.interface]: iface, [ATTR.transport]: origin.transport, [ATTR.batchSize]: size };
  const span = tracer!.startSpan('batch', { kind: SpanKind.SERVER, attributes }, parent);
  return within(span, parent, run);
}

/** Which cache tier answered the call under way (the call's span says so); nothing while tracing is off. */
export function noteCacheHit(tier: 'memory' | 'redis'): void {
  if (tracer) trace.getActiveSpan()?.setAttribute(ATTR.cache, tier);
}

/** Why an upstream was asked: the first try, a hedge beside a slow one, or a retry after a failure. */
export type AttemptRole = 'first' | 'hedge' | 'retry';

/** An attempt's span, and the headers that carry it to the upstream. */
export interface AttemptSpan {
  readonly headers: Record<string, string>;
  /** Ends the span: without `error` the upstream answered. */
  end(error?: unknown): void;
}

/** The span of one request to an upstream, a child of the call under way; undefined while tracing is off. */
export function startAttempt(upstream: string, method: string, role: AttemptRole): AttemptSpan | undefined {
  if (!tracer) return undefined;
  const active = context.active();
  const span = tracer.startSpan(`upstream ${method}`, { kind: SpanKind.CLIENT, attributes: { 'rpc.method': method, [ATTR.upstream]: upstream, [ATTR.attempt]: role } }, active);
  const headers: Record<string, string> = {};
  propagation.inject(trace.setSpan(active, span), headers);
  return {
    headers,
    end(error?: unknown) {
      // A hedge leg cut off because the other one answered first has no error kind: it is 'aborted'.
      const status = error === undefined ? 'ok' : (upstreamErrorKind(error) ?? 'aborted');
      span.setAttribute(ATTR.status, status);
      if (status !== 'ok' && status !== 'aborted') span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      span.end();
    },
  };
}

/**
 * Background work in a span of its own trace (a queue delivery, a devnet block): `run` gets a function
 * that adds attributes to it. Only `run` while tracing is off.
 */
export function traceWork<T>(name: string, attributes: Attributes, run: (note: (more: Attributes) => void) => Promise<T>): Promise<T> {
  if (!tracer) return run(ignore);
  const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes, root: true });
  return within(span, context.active(), () => run((more) => span.setAttributes(more)));
}

function ignore(): void {}

/** The fields of a log line written while a span is active: its trace and span ids (pino's mixin, which adds to the object). */
export function traceLogFields(): object {
  const span = trace.getActiveSpan()?.spanContext();
  return span === undefined ? {} : { trace_id: span.traceId, span_id: span.spanId };
}
