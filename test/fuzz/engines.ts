/**
 * An engine of each interface with a few methods whose params cover every codec kind, shared by the
 * property tests (test/unit/fuzz) and the coverage-guided targets (test/fuzz/targets). Handlers answer
 * with what they decoded, bigints as text, so decoding is exercised end to end; one handler crashes.
 */
import { Logger } from '@nestjs/common';
import * as evm from '../../src/evm-rpc/codec/codecs';
import { EvmDialect } from '../../src/evm-rpc/evm-dialect';
import { NotificationsNotSupportedError } from '../../src/evm-rpc/evm-errors';
import { NodeDialect } from '../../src/node-rpc/node-dialect';
import * as node from '../../src/node-rpc/params/codecs';
import type { Dialect } from '../../src/rpc/dialect';
import { RpcEngine } from '../../src/rpc/engine';
import { MethodNotFoundError } from '../../src/rpc/errors';
import { defineMethod, optional, param, type AnyMethod } from '../../src/rpc/method';
import { MethodRegistry } from '../../src/rpc/method-registry';

const echo = (a: Record<string, unknown>) => JSON.parse(JSON.stringify(a, (_, v) => (typeof v === 'bigint' ? String(v) : v)) ?? 'null');

export const EVM_METHODS: readonly AnyMethod[] = [
  defineMethod({ name: 'eth_getBalance', group: 'eth', params: [param('address', evm.address), param('block', evm.blockNumberOrHash)], handler: echo }),
  defineMethod({ name: 'eth_getLogs', group: 'eth', params: [param('filter', evm.filterCriteria)], handler: echo }),
  defineMethod({ name: 'eth_call', group: 'eth', params: [param('tx', evm.transactionArgs), optional('block', evm.blockNumberOrHash)], handler: echo }),
  defineMethod({ name: 'eth_feeHistory', group: 'eth', params: [param('count', evm.decimalOrHex), param('last', evm.blockNumber), optional('p', evm.floats)], handler: echo }),
  defineMethod({ name: 'test_crash', group: 'test', params: [], handler: () => { throw new TypeError('boom'); } }),
];
export const NODE_METHODS: readonly AnyMethod[] = [
  defineMethod({ name: 'block', group: 'info', params: [optional('height', node.int64)], handler: echo }),
  defineMethod({ name: 'tx_search', group: 'info', params: [param('query', node.string), param('prove', node.bool), optional('page', node.int), optional('per_page', node.int)], handler: echo }),
  defineMethod({ name: 'broadcast_tx_sync', group: 'tx', params: [param('tx', node.bytes)], handler: echo }),
  defineMethod({ name: 'check', group: 'tx', params: [param('h', node.hexbytes), param('s', node.strings), optional('e', node.evidence), optional('c', node.uint)], handler: echo }),
  defineMethod({ name: 'crash', group: 'info', params: [], handler: () => { throw new TypeError('boom'); } }),
];

/** An engine of `dialect` serving `methods`, with a batch limit of `batch` calls (0: none). */
export function engineOf(dialect: Dialect, methods: readonly AnyMethod[], batch: number): RpcEngine {
  const registry = new MethodRegistry();
  registry.registerAll(methods);
  return new RpcEngine(
    dialect,
    registry,
    { unsafeEnabled: () => false, groupEnabled: () => true, websocketOnlyRefusal: () => (dialect.name === 'node' ? new MethodNotFoundError('websocket-only') : new NotificationsNotSupportedError()) },
    () => ({ requests: { max: batch, key: 'batch-request-limit' }, responseBytes: { max: 0, key: 'batch-response-max-size' } }),
  );
}

/** The node RPC engine and the EVM engine, each over its own methods. */
export const ENGINES = [
  ['EVM', new EvmDialect(), EVM_METHODS],
  ['node', new NodeDialect(), NODE_METHODS],
] as const;

const CRASH = /^(test_)?crash failed: TypeError: boom/;
const untyped: string[] = [];

/**
 * Routes the engines' log to `checkLogged`: a dialect logs every exception that is not a typed error
 * before answering it as an internal error, so a logged one (but the crash handlers') is a defect the
 * answer alone would hide.
 */
export function watchLog(): void {
  const ignore = () => undefined;
  Logger.overrideLogger({ log: ignore, warn: ignore, error: (message: unknown) => void (CRASH.test(String(message)) || untyped.push(String(message))) });
}

/** Throws the first untyped exception logged since the last check. */
export function checkLogged(): void {
  const first = untyped[0];
  untyped.length = 0;
  if (first !== undefined) throw new Error(`untyped exception: ${first}`);
}
