import { formatDuration, parseDuration } from '../../config/duration';
import { ApplicationError } from '../../rpc/errors';
import type { Json } from '../../rpc/json';
import { defineMethod, IMMUTABLE, optional, param, returns, type MethodEnv } from '../../rpc/method';
import { rawJsonOf } from '../../rpc/result-json';
import { cacheAt, foundAt, heightAt } from '../block-rules';
import * as c from '../codec/codecs';
import { evmTimeout, executable } from '../eth/state.methods';
import { ResponseTooLargeError } from '../evm-errors';
import type { TraceConfig } from '../evm-types';

/** debug_trace*: the backend's tracers over a transaction, a block or a call. */
const read = { group: 'debug', idempotent: true } as const;
const config = optional('config', c.traceConfig);

/** go-ethereum's and cosmos/evm's trace timeout when the client gives none. */
const DEFAULT_TRACE_TIMEOUT_MS = 5_000;
const MAX_BYTES_KEY = 'trace-response-max-size';
/** Upstream mode: how long past evm-timeout the node gets to answer its own `execution timeout`. */
const UPSTREAM_GRACE_MS = 2_000;

/** Upstream mode: a trace's wait for the node, evm-timeout (its trace deadline) plus the grace. */
function traceWait(env: MethodEnv): number | undefined {
  const timeout = evmTimeout(env);
  return timeout === undefined ? undefined : timeout + UPSTREAM_GRACE_MS;
}

/**
 * A client's TraceConfig.timeout capped by `[json-rpc] evm-timeout` (0 = no cap): a longer one, none
 * (`0`, negative), or the 5 s default when evm-timeout is shorter, is written out as evm-timeout. A
 * timeout that is not a duration is left for the backend to refuse. Unchanged, the very same args.
 */
export function capTraceTimeout<A extends { readonly config?: TraceConfig }>(a: A, { config: gateway }: MethodEnv): A {
  const cap = gateway.jsonRpc['evm-timeout'];
  if (cap <= 0) return a;
  const asked = a.config?.timeout === undefined ? DEFAULT_TRACE_TIMEOUT_MS : parseDuration(a.config.timeout);
  if (asked === undefined || (asked > 0 && asked <= cap)) return a;
  return { ...a, config: { ...a.config, timeout: formatDuration(cap) } };
}

/**
 * `[json-rpc] trace-response-max-size` over an upstream's answer (its bytes as they came): go-ethereum's
 * `-32003 response too large` past it. The devnet's tracers stop at the budget themselves.
 */
export function capTraceOutput(result: Json, _args: unknown, { config: gateway }: MethodEnv): Json {
  const max = gateway.jsonRpc[MAX_BYTES_KEY];
  const raw = rawJsonOf(result);
  if (max > 0 && raw !== undefined && raw.length > max) throw new ResponseTooLargeError(MAX_BYTES_KEY);
  return result;
}

/** A trace of something mined, by its hash: final once answered. */
const byHash = { ...read, params: [param('hash', c.hash), config], cache: () => IMMUTABLE, prepare: capTraceTimeout, finish: capTraceOutput, result: returns<Json>() } as const;

export const debug_traceTransaction = defineMethod({ ...byHash, name: 'debug_traceTransaction' });
export const debug_traceBlockByNumber = defineMethod({
  ...read,
  name: 'debug_traceBlockByNumber',
  params: [param('block', c.blockNumber), config],
  cache: (a) => foundAt(a.block),
  height: (a) => heightAt(a.block),
  prepare: (a, env) => {
    const block = a.block;
    if ((block.kind === 'number' && block.number === 0n) || (block.kind === 'tag' && block.tag === 'earliest')) throw new ApplicationError('genesis is not traceable');
    return capTraceTimeout(a, env);
  },
  finish: capTraceOutput,
  result: returns<Json>(),
});
export const debug_traceBlockByHash = defineMethod({ ...byHash, name: 'debug_traceBlockByHash' });
/** The gateway caps the call's gas, as for eth_call, and its trace timeout. */
export const debug_traceCall = defineMethod({
  ...read,
  name: 'debug_traceCall',
  params: [param('args', c.transactionArgs), param('block', c.blockNumberOrHash), config],
  cache: (a) => cacheAt(a.block),
  height: (a) => heightAt(a.block),
  prepare: (a, env) => capTraceTimeout(executable(a, env, false), env),
  finish: capTraceOutput,
  timeoutMs: traceWait,
  result: returns<Json>(),
});

export const debugTraceMethods = [debug_traceTransaction, debug_traceBlockByNumber, debug_traceBlockByHash, debug_traceCall];
