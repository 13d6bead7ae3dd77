/**
 * Whether the process traces, and what every span hook shares (call-spans.ts for the engine,
 * upstream-spans.ts for the pools, traceWork here for the queue and the devnet). While tracing is off
 * (the default) a hook's caller tests `tracingOn()` first, or the hook returns at once: no span object,
 * no context switch, nothing allocated per call. While it is on, a span is made active (AsyncLocalStorage,
 * as the SDK registers it) for the work it covers, so that what that work starts (an upstream attempt,
 * a log line) finds its parent without being handed it.
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';

let tracer: Tracer | undefined;

/** Set once the SDK is registered (see tracing-sdk.ts); undefined turns every hook off. */
export function useTracer(t: Tracer | undefined): void {
  tracer = t;
}

export function tracingOn(): boolean {
  return tracer !== undefined;
}

/** The tracer, while tracing is on. */
export function activeTracer(): Tracer | undefined {
  return tracer;
}

/** Runs `run` with `span` active under `parent`; the span ends when it settles (with the error, if it throws). */
export function within<T>(span: Span, parent: Context, run: () => Promise<T>): Promise<T> {
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
