/** The spans of the upstream pools: one per request to an upstream; the cache tier that answered a call. */
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { upstreamErrorKind } from '../backends/upstream/upstream-observer';
import { activeTracer } from './spans';

/** Which cache tier answered the call under way (the call's span says so); nothing while tracing is off. */
export function noteCacheHit(tier: 'memory' | 'redis'): void {
  if (activeTracer()) trace.getActiveSpan()?.setAttribute('rpcgw.cache', tier);
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
  const tracer = activeTracer();
  if (!tracer) return undefined;
  const active = context.active();
  const span = tracer.startSpan(`upstream ${method}`, { kind: SpanKind.CLIENT, attributes: { 'rpc.method': method, 'rpcgw.upstream': upstream, 'rpcgw.attempt': role } }, active);
  const headers: Record<string, string> = {};
  propagation.inject(trace.setSpan(active, span), headers);
  return {
    headers,
    end(error?: unknown) {
      // A hedge leg cut off because the other one answered first has no error kind: it is 'aborted'.
      const status = error === undefined ? 'ok' : (upstreamErrorKind(error) ?? 'aborted');
      span.setAttribute('rpcgw.upstream.status', status);
      if (status !== 'ok' && status !== 'aborted') span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      span.end();
    },
  };
}
