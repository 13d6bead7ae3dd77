/**
 * Starts the OpenTelemetry SDK for the process when tracing is asked for: by `[instrumentation]
 * otlp_traces_endpoint`, or by the standard environment alone (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). The SDK reads every other standard OTEL_* variable itself
 * (exporter headers, timeout, compression and certificates, batch processor, span limits, propagators,
 * resource attributes, OTEL_SDK_DISABLED …); the config keys fill in only what the environment leaves
 * unset. Off, nothing of the SDK is even loaded.
 */
import { context, isSpanContextValid, propagation, trace } from '@opentelemetry/api';
import type { NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import type { InstrumentationConfig } from '../config/config.types';
import { useTracer } from './spans';

export interface Tracing {
  /** Spans are recorded and exported. */
  readonly on: boolean;
  /** Exports the spans still buffered (waiting at most `STOP_WAIT_MS`) and stops tracing. */
  stop(): Promise<void>;
}

/** How long a shutdown waits for the last spans to reach the collector: an unreachable one never holds it longer. */
const STOP_WAIT_MS = 5_000;

const OFF: Tracing = { on: false, stop: async () => undefined };

/** The process's one SDK: a second gateway in the same process (tests) shares it and does not stop it. */
let running = false;

export async function startTracing(config: InstrumentationConfig): Promise<Tracing> {
  const env = process.env;
  const fromEnv = Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (running || (config.otlp_traces_endpoint === '' && !fromEnv)) return OFF;
  const { NodeSDK, tracing } = await import('@opentelemetry/sdk-node');
  const serviceNamed = env.OTEL_SERVICE_NAME !== undefined || /(^|,)\s*service\.name=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const sdk = new NodeSDK({
    // A standard endpoint variable wins over the key (as the environment does over every file): the SDK
    // then builds the exporter from the OTEL_EXPORTER_OTLP_* variables.
    traceExporter: fromEnv ? undefined : await exporterOf(config),
    sampler: env.OTEL_TRACES_SAMPLER ? undefined : new tracing.ParentBasedSampler({ root: new tracing.TraceIdRatioBasedSampler(config.trace_sample_ratio) }),
    serviceName: serviceNamed ? undefined : config.trace_service_name,
    // Traces only: metrics are Prometheus's, logs are pino's.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  const tracer = trace.getTracer('rpc-gateway');
  // OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none leave the API's no-op tracer, whose spans have no trace id.
  const probe = tracer.startSpan('probe');
  if (!isSpanContextValid(probe.spanContext())) {
    await sdk.shutdown();
    return OFF;
  }
  running = true;
  useTracer(tracer);
  let stopping: Promise<void> | undefined;
  return {
    on: true,
    stop() {
      stopping ??= (async () => {
        useTracer(undefined);
        let timer: NodeJS.Timeout | undefined;
        const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS)));
        await Promise.race([sdk.shutdown().catch(() => undefined), waited]);
        clearTimeout(timer);
        trace.disable();
        context.disable();
        propagation.disable();
        running = false;
      })();
      return stopping;
    },
  };
}

/** The exporter `[instrumentation]` names; loaded only for the protocol used. */
async function exporterOf(config: InstrumentationConfig): Promise<NodeSDKConfiguration['traceExporter']> {
  const url = config.otlp_traces_endpoint;
  switch (config.otlp_protocol) {
    case 'grpc':
      return new (await import('@opentelemetry/exporter-trace-otlp-grpc')).OTLPTraceExporter({ url });
    case 'http/json':
      return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter({ url });
    case 'http/protobuf':
      return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter({ url });
  }
}
