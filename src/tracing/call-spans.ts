/** The spans of the engine: one per client call, one per batch (call these only while tracingOn()). */
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { CallContext } from '../rpc/call-context';
import type { Origin, Outcome } from '../rpc/engine';
import { activeTracer, within } from './spans';

/** What a call's span is named when its method is not registered (the client's name is never used). */
const UNKNOWN_METHOD = '_OTHER';

/**
 * The span of one client call: a child of the batch it is a member of, else of the trace context the
 * client sent in its HTTP headers (W3C `traceparent`), else a new trace.
 */
export function traceCall(iface: 'node' | 'evm', ctx: CallContext, run: () => Outcome | Promise<Outcome>): Promise<Outcome> {
  const active = context.active();
  const inBatch = trace.getSpan(active) !== undefined;
  const parent = inBatch || ctx.traceHeaders === undefined ? active : propagation.extract(active, ctx.traceHeaders);
  const attributes = { 'rpc.system': 'jsonrpc', 'rpc.jsonrpc.version': '2.0', 'rpcgw.interface': iface, 'rpcgw.transport': ctx.transport };
  const span = activeTracer()!.startSpan(UNKNOWN_METHOD, { kind: inBatch ? SpanKind.INTERNAL : SpanKind.SERVER, attributes }, parent);
  return Promise.resolve(context.with(trace.setSpan(parent, span), run)).then((outcome) => {
    const method = outcome.method?.name ?? UNKNOWN_METHOD;
    span.updateName(method);
    span.setAttribute('rpc.method', method);
    span.setAttribute('rpcgw.outcome', outcome.ok ? 'ok' : 'error');
    if (!outcome.ok) {
      span.setAttribute('rpc.jsonrpc.error_code', outcome.error.code);
      span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error.message });
    }
    span.end();
    return outcome;
  });
}

/** The span of a batch: its members' spans are its children. */
export function traceBatch<T>(iface: 'node' | 'evm', origin: Origin, size: number, run: () => Promise<T>): Promise<T> {
  const active = context.active();
  const parent = origin.traceHeaders === undefined ? active : propagation.extract(active, origin.traceHeaders);
  const attributes = { 'rpc.system': 'jsonrpc', 'rpcgw.interface': iface, 'rpcgw.transport': origin.transport, 'rpcgw.batch.size': size };
  const span = activeTracer()!.startSpan('batch', { kind: SpanKind.SERVER, attributes }, parent);
  return within(span, parent, run);
}
