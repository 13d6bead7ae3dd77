import { ApplicationError } from '../../rpc/errors';
import type { Json } from '../../rpc/json';
import { defineMethod, IMMUTABLE, optional, param, returns } from '../../rpc/method';
import { cacheAt, foundAt, heightAt } from '../block-rules';
import * as c from '../codec/codecs';
import { evmTimeout, executable } from '../eth/state.methods';

/** debug_trace*: the backend's tracers over a transaction, a block or a call. */
const read = { group: 'debug', idempotent: true } as const;
const config = optional('config', c.traceConfig);

export const debug_traceTransaction = defineMethod({
  ...read,
  name: 'debug_traceTransaction',
  params: [param('hash', c.hash), config],
  cache: () => IMMUTABLE,
  result: returns<Json>(),
});
export const debug_traceBlockByNumber = defineMethod({
  ...read,
  name: 'debug_traceBlockByNumber',
  params: [param('block', c.blockNumber), config],
  cache: (a) => foundAt(a.block),
  height: (a) => heightAt(a.block),
  prepare: (a) => {
    const block = a.block;
    if ((block.kind === 'number' && block.number === 0n) || (block.kind === 'tag' && block.tag === 'earliest')) throw new ApplicationError('genesis is not traceable');
    return a;
  },
  result: returns<Json>(),
});
export const debug_traceBlockByHash = defineMethod({
  ...read,
  name: 'debug_traceBlockByHash',
  params: [param('hash', c.hash), config],
  cache: () => IMMUTABLE,
  result: returns<Json>(),
});
/** The gateway caps the call's gas and sets its timeout, as for eth_call. */
export const debug_traceCall = defineMethod({
  ...read,
  name: 'debug_traceCall',
  params: [param('args', c.transactionArgs), param('block', c.blockNumberOrHash), config],
  cache: (a) => cacheAt(a.block),
  height: (a) => heightAt(a.block),
  prepare: (a, env) => executable(a, env, false),
  timeoutMs: evmTimeout,
  result: returns<Json>(),
});

export const debugTraceMethods = [debug_traceTransaction, debug_traceBlockByNumber, debug_traceBlockByHash, debug_traceCall];
