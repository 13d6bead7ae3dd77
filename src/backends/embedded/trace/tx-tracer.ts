/**
 * A tracer of one transaction or call: attached to the VM for the execution, then asked for its
 * result. The struct logger is the default; `callTracer` is the only named tracer the devnet has.
 */
import type { RunTxResult, VM } from '@ethereumjs/vm';
import { ApplicationError } from '../../../rpc/errors';
import type { TraceConfig } from '../../evm-backend';
import type { Json } from '../../node-backend';
import { CallTracer } from './call-tracer';
import { StructLogger } from './struct-logger';

export interface TxTracer {
  /** Starts recording; returns the function that stops. */
  attach(vm: VM): () => void;
  result(run: RunTxResult, gasLimit: bigint): Json;
}

export function tracerFor(config: TraceConfig): TxTracer {
  if (config.tracer === undefined || config.tracer === '') return new StructLogger(config);
  if (config.tracer === 'callTracer') return new CallTracer(config.tracerConfig ?? {});
  throw new ApplicationError(`tracer ${JSON.stringify(config.tracer)} is not supported: use the struct logger (no tracer) or callTracer`);
}
