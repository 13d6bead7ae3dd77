/**
 * When tracing starts, and how it samples: off without an endpoint (the hooks then make nothing), off
 * when the standard environment disables the SDK, on by the key or by OTEL_EXPORTER_OTLP_ENDPOINT
 * alone; new traces recorded at `trace_sample_ratio`, a client's sampled flag followed.
 */
import { propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { CONFIG_TABLES } from '../../../src/config/config-tables';
import { traceLogFields, traceWork, tracingOn } from '../../../src/tracing/spans';
import type { InstrumentationConfig } from '../../../src/config/config.types';
import { startTracing, type Tracing } from '../../../src/tracing/tracing-sdk';

const DEFAULTS = CONFIG_TABLES.instrumentation.defaults;
// Nothing listens there; no span is ended while these tests export, bar the ones sampled in.
const ENDPOINT = 'http://127.0.0.1:9/v1/traces';

/** Whether a span made now under `parent` records (the SDK's sampler decides). */
function recordsUnder(parent = ROOT_CONTEXT): boolean {
  return trace.getTracer('test').startSpan('work', {}, parent).isRecording();
}

/** Starts tracing with `env` added to the process's environment (which the SDK reads itself). */
function start(config: InstrumentationConfig, env: Record<string, string> = {}): Promise<Tracing> {
  Object.assign(process.env, env);
  return startTracing(config);
}

describe('startTracing', () => {
  const saved = { ...process.env };
  let tracing: Tracing | undefined;

  beforeEach(() => {
    for (const key of Object.keys(process.env)) if (key.startsWith('OTEL_')) delete process.env[key];
  });

  afterEach(async () => {
    await tracing?.stop();
    tracing = undefined;
    process.env = { ...saved };
  });

  it('stays off without an endpoint: the hooks only run the work', async () => {
    tracing = await start(DEFAULTS);
    expect(tracing.on).toBe(false);
    expect(tracingOn()).toBe(false);
    await expect(traceWork('work', {}, async () => trace.getActiveSpan())).resolves.toBeUndefined();
  });

  it('stays off when OTEL_SDK_DISABLED is true', async () => {
    tracing = await start({ ...DEFAULTS, otlp_traces_endpoint: ENDPOINT }, { OTEL_SDK_DISABLED: 'true' });
    expect(tracing.on).toBe(false);
  });

  it('starts on OTEL_EXPORTER_OTLP_ENDPOINT alone, and stops', async () => {
    tracing = await start(DEFAULTS, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(tracing.on).toBe(true);
    expect(recordsUnder()).toBe(true);
    await tracing.stop();
    expect(tracingOn()).toBe(false);
  });

  it('records no new trace at ratio 0, but follows a client that sampled its trace', async () => {
    tracing = await start({ ...DEFAULTS, otlp_traces_endpoint: ENDPOINT, trace_sample_ratio: 0 });
    expect(tracing.on).toBe(true);
    expect(recordsUnder()).toBe(false);
    const sampled = propagation.extract(ROOT_CONTEXT, { traceparent: `00-${'ab'.repeat(16)}-${'cd'.repeat(8)}-01` });
    expect(recordsUnder(sampled)).toBe(true);
  });

  it('puts the active span ids into log lines', async () => {
    tracing = await start({ ...DEFAULTS, otlp_traces_endpoint: ENDPOINT });
    const fields = await traceWork('work', {}, async () => ({ ids: trace.getActiveSpan()!.spanContext(), fields: traceLogFields() }));
    expect(fields.fields).toEqual({ trace_id: fields.ids.traceId, span_id: fields.ids.spanId });
    expect(traceLogFields()).toEqual({});
  });
});
