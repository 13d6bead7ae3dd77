/**
 * A call's deadline reaches its handler: the context's signal fires when the client is answered
 * `request timed out`, so the work stops; a call without a deadline has no signal. The interface's call
 * timeout gives every call one, on every transport: HTTP bodies, batch members, WebSocket messages and
 * calls the transport dispatches itself (node RPC URI calls).
 */
import { EvmDialect } from '../../../src/evm-rpc/evm-dialect';
import { RpcEngine } from '../../../src/rpc/engine';
import { MethodNotFoundError } from '../../../src/rpc/errors';
import { defineMethod } from '../../../src/rpc/method';
import { MethodRegistry } from '../../../src/rpc/method-registry';

function engineWith(handler: (signal: AbortSignal | undefined) => Promise<unknown>, timeoutMs = 0): RpcEngine {
  const registry = new MethodRegistry();
  registry.register(defineMethod({ group: 'test', name: 'test_work', params: [], handler: (_a, ctx) => handler(ctx.signal) }));
  return new RpcEngine(
    new EvmDialect(),
    registry,
    { unsafeEnabled: () => false, groupEnabled: () => true, websocketOnlyRefusal: () => new MethodNotFoundError('websocket-only') },
    () => ({ requests: { max: 0, key: 'batch-request-limit' }, responseBytes: { max: 0, key: 'batch-response-max-size' }, timeout: { max: timeoutMs, key: 'http-timeout' } }),
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

describe("the interface's call timeout", () => {
  /** Work that runs until its signal fires; what it saw. */
  const endless = () => {
    const seen: AbortSignal[] = [];
    const handler = async (signal: AbortSignal | undefined) => {
      if (signal) seen.push(signal);
      while (!signal?.aborted) await new Promise((resolve) => setTimeout(resolve, 5));
      return 'late';
    };
    return { seen, handler };
  };

  it('gives a WebSocket message and each member of its batch a deadline', async () => {
    const { seen, handler } = endless();
    const engine = engineWith(handler, 50);
    const ws = { transport: 'ws' as const, remote: '127.0.0.1:1', bytes: 0 };
    expect(JSON.parse((await engine.handle(body, ws)).body!).error).toEqual({ code: -32002, message: 'request timed out' });
    const batch = `[${body},${body.replace('"id":1', '"id":2')}]`;
    expect(JSON.parse((await engine.handle(batch, ws)).body!).map((a: { error: unknown }) => a.error)).toEqual([
      { code: -32002, message: 'request timed out' },
      { code: -32002, message: 'request timed out' },
    ]);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.every((signal) => signal.aborted)).toBe(true);
  });

  it('gives a call the transport dispatches itself a deadline', async () => {
    const { seen, handler } = endless();
    const engine = engineWith(handler, 50);
    const outcome = await engine.callWithin({ method: 'test_work', params: [], id: -1 }, { transport: 'uri', remote: '127.0.0.1:1', requestId: -1 });
    expect(outcome).toMatchObject({ ok: false, error: { code: -32002, message: 'request timed out' } });
    expect(seen[0].aborted).toBe(true);
    expect(seen[0].reason).toMatchObject({ name: 'TimeoutError', message: 'request timed out' });
  });
});
