/**
 * A call's deadline reaches its handler: the context's signal fires when the client is answered
 * `request timed out`, so the work stops; a call without a deadline has no signal.
 */
import { EvmDialect } from '../../../src/evm-rpc/evm-dialect';
import { RpcEngine } from '../../../src/rpc/engine';
import { MethodNotFoundError } from '../../../src/rpc/errors';
import { defineMethod } from '../../../src/rpc/method';
import { MethodRegistry } from '../../../src/rpc/method-registry';

function engineWith(handler: (signal: AbortSignal | undefined) => Promise<unknown>): RpcEngine {
  const registry = new MethodRegistry();
  registry.register(defineMethod({ group: 'test', name: 'test_work', params: [], handler: (_a, ctx) => handler(ctx.signal) }));
  return new RpcEngine(
    new EvmDialect(),
    registry,
    { unsafeEnabled: () => false, groupEnabled: () => true, websocketOnlyRefusal: () => new MethodNotFoundError('websocket-only') },
    () => ({ requests: { max: 0, key: 'batch-request-limit' }, responseBytes: { max: 0, key: 'batch-response-max-size' } }),
  );
}

const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'test_work', params: [] });

it('fires the signal when the deadline passes, and the client gets the timeout error', async () => {
  let seen: AbortSignal | undefined;
  let stoppedAfterAbort = false;
  const engine = engineWith(async (signal) => {
    seen = signal;
    // Long work that checks the signal between steps, as the devnet's scans do.
    while (!signal?.aborted) await new Promise((resolve) => setTimeout(resolve, 5));
    stoppedAfterAbort = true;
    return 'late';
  });
  const reply = await engine.handle(body, { transport: 'jsonrpc', remote: '127.0.0.1:1', bytes: body.length, deadline: Date.now() + 50 });
  expect(JSON.parse(reply.body!).error).toEqual({ code: -32002, message: 'request timed out' });
  expect(seen?.aborted).toBe(true);
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(stoppedAfterAbort).toBe(true);
});

it('gives no signal to a call without a deadline', async () => {
  let seen: AbortSignal | undefined = new AbortController().signal;
  const engine = engineWith(async (signal) => {
    seen = signal;
    return 'done';
  });
  const reply = await engine.handle(body, { transport: 'jsonrpc', remote: '127.0.0.1:1', bytes: body.length });
  expect(JSON.parse(reply.body!).result).toBe('done');
  expect(seen).toBeUndefined();
});
