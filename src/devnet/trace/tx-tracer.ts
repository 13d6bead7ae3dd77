/**
 * A tracer of one transaction or call: attached to the VM for the execution, then asked for its
 * result. The struct logger is the default; `callTracer` is the only named tracer the devnet has.
 */
import type { RunTxResult, VM } from '@ethereumjs/vm';
import { DevnetError } from '../devnet-error';
import type { Json, JsonObject } from '../json';
import { CallTracer } from './call-tracer';
import { StructLogger, type StructLoggerConfig } from './struct-logger';
import { TraceBudget } from './trace-budget';

export interface TxTracer {
  /** Starts recording; returns the function that stops. */
  attach(vm: VM): () => void;
  result(run: RunTxResult, gasLimit: bigint): Json;
}

/** Which tracer, and its options (go-ethereum's TraceConfig without the timeout). */
export interface TracerConfig extends StructLoggerConfig {
  readonly tracer?: string;
  readonly tracerConfig?: JsonObject;
}

/** The tracer the config names, counting what it records against `budget`. */
export function tracerFor(config: TracerConfig, budget: TraceBudget = TraceBudget.unlimited()): TxTracer {
  if (config.tracer === undefined || config.tracer === '') return new StructLogger(config, budget);
  if (config.tracer === 'callTracer') return new CallTracer(config.tracerConfig ?? {}, budget);
  throw new DevnetError(`tracer ${JSON.stringify(config.tracer)} is not supported: use the struct logger (no tracer) or callTracer`);
}
