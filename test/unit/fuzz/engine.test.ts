/**
 * Property tests of the whole engine, both dialects, on arbitrary bodies: handle() resolves (never
 * rejects), in bounded time, and its body is valid JSON or undefined.
 * Long run: FUZZ_RUNS=100000 npx jest test/unit/fuzz --runInBand --testTimeout=0 (FUZZ_SEED=<n> replays).
 */
import fc from 'fast-check';
import { Logger } from '@nestjs/common';
import * as evm from '../../../src/evm-rpc/codec/codecs';
import { EvmDialect } from '../../../src/evm-rpc/evm-dialect';
import { NotificationsNotSupportedError } from '../../../src/evm-rpc/evm-errors';
import { NodeDialect } from '../../../src/node-rpc/node-dialect';
import * as node from '../../../src/node-rpc/params/codecs';
import type { Dialect } from '../../../src/rpc/dialect';
import { RpcEngine, type Origin } from '../../../src/rpc/engine';
import { MethodNotFoundError } from '../../../src/rpc/errors';
import { defineMethod, optional, param, type AnyMethod } from '../../../src/rpc/method';
import { MethodRegistry } from '../../../src/rpc/method-registry';
import { jsonValue, mutated, numberText, settings, timedAsync, unicode } from './arbitraries';

Logger.overrideLogger(false);

/** Handlers answer with what they decoded, bigints as text, so decoding is exercised end to end. */
const echo = (a: Record<string, unknown>) => JSON.parse(JSON.stringify(a, (_, v) => (typeof v === 'bigint' ? String(v) : v)) ?? 'null');
function engineOf(dialect: Dialect, methods: AnyMethod[], batch: number): RpcEngine {
  const registry = new MethodRegistry();
  registry.registerAll(methods);
  return new RpcEngine(
    dialect,
    registry,
    { unsafeEnabled: () => false, groupEnabled: () => true, websocketOnlyRefusal: () => (dialect.name === 'node' ? new MethodNotFoundError('websocket-only') : new NotificationsNotSupportedError()) },
    () => ({ requests: { max: batch, key: 'batch-request-limit' }, responseBytes: { max: 0, key: 'batch-response-max-size' } }),
  );
}

const EVM_METHODS = [
  defineMethod({ name: 'eth_getBalance', group: 'eth', params: [param('address', evm.address), param('block', evm.blockNumberOrHash)], handler: echo }),
  defineMethod({ name: 'eth_getLogs', group: 'eth', params: [param('filter', evm.filterCriteria)], handler: echo }),
  defineMethod({ name: 'eth_call', group: 'eth', params: [param('tx', evm.transactionArgs), optional('block', evm.blockNumberOrHash)], handler: echo }),
  defineMethod({ name: 'eth_feeHistory', group: 'eth', params: [param('count', evm.decimalOrHex), param('last', evm.blockNumber), optional('p', evm.floats)], handler: echo }),
  defineMethod({ name: 'test_crash', group: 'test', params: [], handler: () => { throw new TypeError('boom'); } }),
];
const NODE_METHODS = [
  defineMethod({ name: 'block', group: 'info', params: [optional('height', node.int64)], handler: echo }),
  defineMethod({ name: 'tx_search', group: 'info', params: [param('query', node.string), param('prove', node.bool), optional('page', node.int), optional('per_page', node.int)], handler: echo }),
  defineMethod({ name: 'broadcast_tx_sync', group: 'tx', params: [param('tx', node.bytes)], handler: echo }),
  defineMethod({ name: 'check', group: 'tx', params: [param('h', node.hexbytes), param('s', node.strings), optional('e', node.evidence), optional('c', node.uint)], handler: echo }),
  defineMethod({ name: 'crash', group: 'info', params: [], handler: () => { throw new TypeError('boom'); } }),
];

function bodies(names: string[]): fc.Arbitrary<string> {
  const method = fc.oneof(fc.constantFrom(...names, 'rpc.nope', ''), unicode);
  const params = fc.oneof(fc.array(jsonValue, { maxLength: 5 }), fc.dictionary(fc.constantFrom('height', 'query', 'prove', 'page', 'tx', 'h', 's', 'e', 'c', 'x'), jsonValue), jsonValue);
  const id = fc.oneof(fc.integer(), numberText.map(Number), unicode, fc.constant(null), jsonValue);
  const call = fc.record({ jsonrpc: fc.oneof(fc.constant('2.0'), jsonValue), id, method, params }, { requiredKeys: ['method'] });
  const envelope = fc.oneof(call, fc.array(fc.oneof(call, jsonValue), { maxLength: 6 }), jsonValue);
  const text = envelope.map((v) => JSON.stringify(v) ?? '');
  return fc.oneof(text, text, mutated(text), unicode);
}

describe.each([
  ['EVM', new EvmDialect(), EVM_METHODS],
  ['node', new NodeDialect(), NODE_METHODS],
] as const)('%s engine', (_, dialect, methods) => {
  const names = methods.map((m) => m.name);
  it.each([['jsonrpc', 0], ['ws', 0], ['jsonrpc', 3]] as const)('answers any body over %s (batch limit %d) with JSON or nothing', async (transport, batch) => {
    const engine = engineOf(dialect, [...methods], batch);
    const origin: Omit<Origin, 'bytes'> = { transport, remote: '127.0.0.1:1' };
    await fc.assert(
      fc.asyncProperty(bodies(names), async (text) => {
        const reply = await timedAsync(() => engine.handle(text, { ...origin, bytes: Buffer.byteLength(text) }));
        if (reply.body !== undefined) expect(() => JSON.parse(reply.body!)).not.toThrow();
      }),
      settings(0.5),
    );
  });
});
