/** go-ethereum's JSON-RPC envelope: ids, notifications, batches and their limits, errors. */
import { Logger } from '@nestjs/common';
import { any } from '../../../src/evm-rpc/codec/codecs';
import { EvmDialect } from '../../../src/evm-rpc/evm-dialect';
import { NotificationsNotSupportedError } from '../../../src/evm-rpc/evm-errors';
import type { BatchLimits } from '../../../src/rpc/dialect';
import { RpcEngine, type Origin } from '../../../src/rpc/engine';
import { ApplicationError } from '../../../src/rpc/errors';
import { defineMethod, optional, param } from '../../../src/rpc/method';
import { MethodRegistry } from '../../../src/rpc/method-registry';
import { UnreadJson } from '../../../src/rpc/result-json';

Logger.overrideLogger(false);

/** Buffers of their own (not slices of Node's shared pool, which UnreadJson would copy out). */
const own = (text: string) => {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
};
const WIRE = [own('{"a": "caf'), own('\u00e9", "b": [1, 2]}')];

const ran: string[] = [];
const registry = new MethodRegistry();
registry.registerAll([
  defineMethod({ name: 'test_echo', group: 'test', params: [optional('value', any)], handler: (a) => (ran.push(String(a.value)), a.value ?? null) }),
  defineMethod({ name: 'test_slow', group: 'test', params: [], handler: () => new Promise<string>((r) => setTimeout(() => r('late'), 200)) }),
  defineMethod({
    name: 'test_revert',
    group: 'test',
    params: [],
    handler: () => {
      throw new ApplicationError('execution reverted: nope', 3, '0x08c379a0');
    },
  }),
  defineMethod({
    name: 'test_crash',
    group: 'test',
    params: [],
    handler: () => {
      throw new TypeError('boom at /secret/path.ts:1');
    },
  }),
  defineMethod({ name: 'test_bigint', group: 'test', params: [], handler: () => 1n }),
  // An upstream's large answer passed on unread: the wire bytes, in the pieces they were read in.
  defineMethod({ name: 'test_unread', group: 'test', params: [], handler: () => UnreadJson.ofBytes(WIRE) }),
  defineMethod({
    name: 'test_read',
    group: 'test',
    idempotent: true,
    params: [param('ms', any)],
    handler: async (a) => {
      ran.push(`read ${a.ms} start`);
      await new Promise((r) => setTimeout(r, Number(a.ms)));
      ran.push(`read ${a.ms} end`);
      return a.ms;
    },
  }),
  defineMethod({
    name: 'test_write',
    group: 'test',
    params: [param('n', any)],
    handler: async (a) => {
      ran.push(`write ${a.n} start`);
      await new Promise((r) => setTimeout(r, 5));
      ran.push(`write ${a.n} end`);
      return a.n;
    },
  }),
]);
const batchLimits = (requests: number, responseBytes: number): BatchLimits => ({
  requests: { max: requests, key: 'batch-request-limit' },
  responseBytes: { max: responseBytes, key: 'batch-response-max-size' },
});
let limits = batchLimits(0, 0);
const engine = new RpcEngine(
  new EvmDialect(),
  registry,
  { unsafeEnabled: () => false, groupEnabled: () => true, websocketOnlyRefusal: () => new NotificationsNotSupportedError() },
  () => limits,
);
const http: Omit<Origin, 'bytes'> = { transport: 'jsonrpc', remote: '127.0.0.1:1' };

/** The answer text written for a body; undefined when nothing is written. */
const handle = async (body: unknown, origin: Omit<Origin, 'bytes'> = http) => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return (await engine.handle(text, { ...origin, bytes: Buffer.byteLength(text) })).body;
};
const call = (id: unknown, value?: unknown) => ({ jsonrpc: '2.0', id, method: 'test_echo', params: value === undefined ? [] : [value] });

beforeEach(() => {
  ran.length = 0;
  limits = batchLimits(0, 0);
});

describe('ids', () => {
  it('a number id is echoed as written', async () => {
    expect(await handle('{"jsonrpc":"2.0","id":1.50,"method":"test_echo","params":[1]}')).toBe('{"jsonrpc":"2.0","id":1.50,"result":1}');
    expect(await handle('{"id":123456789012345678901234567890,"method":"test_echo"}')).toBe('{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":null}');
  });
  it('string and null ids', async () => {
    expect(await handle(call('abc', 'x'))).toBe('{"jsonrpc":"2.0","id":"abc","result":"x"}');
    expect(await handle(call(null, 'x'))).toBe('{"jsonrpc":"2.0","id":null,"result":"x"}');
  });
  it('object and array ids are invalid requests answered with id null', async () => {
    expect(await handle(call({ a: 1 }))).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}');
    expect(await handle(call([1]))).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}');
    expect(ran).toEqual([]);
  });
  it('an id without a method is an invalid request with that id', async () => {
    expect(await handle({ jsonrpc: '2.0', id: 7 })).toBe('{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"invalid request"}}');
  });
});

describe('messages', () => {
  it('a notification runs and gets no reply', async () => {
    expect(await handle({ jsonrpc: '2.0', method: 'test_echo', params: ['n'] })).toBeUndefined();
    expect(ran).toEqual(['n']);
  });
  it('a response sent to the server is ignored', async () => {
    expect(await handle({ jsonrpc: '2.0', id: 1, result: 'x' })).toBeUndefined();
  });
  it('not an object: invalid request with id null', async () => {
    expect(await handle('1')).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}');
  });
  it('parse error', async () => {
    expect(await handle('{"jsonrpc":')).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}');
    expect(await handle('{"id":1,"method":"test_echo",}')).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}');
  });
  it('an empty body gets no reply', async () => {
    expect(await handle('  \n')).toBeUndefined();
  });
  it('what follows the first value is ignored', async () => {
    expect(await handle('{"id":1,"method":"test_echo","params":[2]} trailing')).toBe('{"jsonrpc":"2.0","id":1,"result":2}');
  });
});

describe('errors', () => {
  it('unknown method', async () => {
    expect(await handle({ id: 1, method: 'eth_blocknumber' })).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"the method eth_blocknumber does not exist/is not available"}}',
    );
  });
  it('an ApplicationError keeps its code and data', async () => {
    expect(await handle({ id: 1, method: 'test_revert' })).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted: nope","data":"0x08c379a0"}}',
    );
  });
  it('a crash is -32603 without details', async () => {
    expect(await handle({ id: 1, method: 'test_crash' })).toBe('{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"method handler crashed"}}');
  });
  it('an unserializable result is -32603 too', async () => {
    expect(await handle({ id: 1, method: 'test_bigint' })).toBe('{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"method handler crashed"}}');
  });
  it('bad params', async () => {
    expect(await handle({ id: 1, method: 'test_echo', params: { a: 1 } })).toBe('{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"non-array args"}}');
  });
});

describe('batches', () => {
  it('[] is a single empty batch error', async () => {
    expect(await handle('[]')).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}');
  });
  it('members answered in order; notifications and responses left out; invalid members answered', async () => {
    const body = [call(1, 'a'), { method: 'test_echo', params: ['n'] }, 5, call('x', 'b'), { id: 9, result: 1 }];
    expect(await handle(body)).toBe(
      '[{"jsonrpc":"2.0","id":1,"result":"a"},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}},{"jsonrpc":"2.0","id":"x","result":"b"}]',
    );
    expect(ran).toEqual(['a', 'n', 'b']);
  });
  it('raw number ids inside a batch', async () => {
    expect(await handle('[{"id":2.0,"method":"test_echo"}]')).toBe('[{"jsonrpc":"2.0","id":2.0,"result":null}]');
  });
  it('only notifications: no reply', async () => {
    expect(await handle([{ method: 'test_echo', params: ['n'] }])).toBeUndefined();
  });
  it('over batch-request-limit: one error with the first call id, nothing runs', async () => {
    limits = batchLimits(2, 0);
    expect(await handle([{ method: 'test_echo' }, call(4, 'a'), call(5, 'b')])).toBe(
      '[{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"batch too large"}}]',
    );
    expect(ran).toEqual([]);
  });
  it('over batch-response-max-size: the call crossing it keeps its answer, the rest are refused', async () => {
    limits = batchLimits(0, 10);
    expect(await handle([call(1, 'aaaa'), call(2, 'bbbbbbbb'), call(3, 'c'), { method: 'test_echo', params: ['n'] }, call(4, 'd')])).toBe(
      '[{"jsonrpc":"2.0","id":1,"result":"aaaa"},{"jsonrpc":"2.0","id":2,"result":"bbbbbbbb"},' +
        '{"jsonrpc":"2.0","id":3,"error":{"code":-32003,"message":"response too large"}},' +
        '{"jsonrpc":"2.0","id":4,"error":{"code":-32003,"message":"response too large"}}]',
    );
    expect(ran).toEqual(['aaaa', 'bbbbbbbb']);
  });
  it('an unread answer in bytes stays those very buffers, alone or in a batch, where the origin takes pieces', async () => {
    const pieces = async (body: unknown) => (await engine.handle(JSON.stringify(body), { ...http, bytes: 1, pieces: true })).body;
    const single = await pieces({ id: 1, method: 'test_unread' });
    expect(single).toEqual(['{"jsonrpc":"2.0","id":1,"result":', ...WIRE, '}']);
    const batch = (await pieces([call(1, 'a'), { id: 2, method: 'test_unread' }, { id: 3, method: 'test_nope' }, { id: 4, method: 'test_unread' }])) as readonly (string | Buffer)[];
    expect(batch.filter((p) => typeof p !== 'string')).toEqual([WIRE[0], WIRE[1], WIRE[0], WIRE[1]]);
    expect(batch).toContain(WIRE[0]); // the very buffer, not a copy
    const text = Buffer.concat(batch.map((p) => (typeof p === 'string' ? Buffer.from(p) : p))).toString();
    expect(JSON.parse(text)).toEqual([{ jsonrpc: '2.0', id: 1, result: 'a' }, { jsonrpc: '2.0', id: 2, result: { a: 'café', b: [1, 2] } }, { jsonrpc: '2.0', id: 3, error: expect.objectContaining({ code: -32601 }) }, { jsonrpc: '2.0', id: 4, result: { a: 'café', b: [1, 2] } }]);
    // Without pieces (WebSocket, in-process callers) the same batch is one text.
    expect(await handle([{ id: 2, method: 'test_unread' }])).toBe(`[{"jsonrpc":"2.0","id":2,"result":${Buffer.concat(WIRE).toString()}}]`);
  });
});

describe('deadline', () => {
  it('a call past the deadline is answered request timed out', async () => {
    expect(await handle({ id: 1, method: 'test_slow' }, { ...http, deadline: Date.now() + 50 })).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"request timed out"}}',
    );
  });
  it('in a batch, the members from the one that ran out on get the timeout', async () => {
    expect(await handle([call(1, 'a'), { id: 2, method: 'test_slow' }, call(3, 'c')], { ...http, deadline: Date.now() + 50 })).toBe(
      '[{"jsonrpc":"2.0","id":1,"result":"a"},{"jsonrpc":"2.0","id":2,"error":{"code":-32002,"message":"request timed out"}},' +
        '{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"request timed out"}}]',
    );
  });
});

describe('batch concurrency', () => {
  const member = (id: number, method: string, value: number) => ({ jsonrpc: '2.0', id, method, params: [value] });

  it('runs consecutive reads together and each write alone, in the client\'s order, answering in order', async () => {
    const answer = await handle([member(1, 'test_read', 30), member(2, 'test_read', 1), member(3, 'test_write', 1), member(4, 'test_read', 2), member(5, 'test_write', 2)]);
    expect(JSON.parse(answer!).map((a: { id: number; result: number }) => [a.id, a.result])).toEqual([
      [1, 30],
      [2, 1],
      [3, 1],
      [4, 2],
      [5, 2],
    ]);
    expect(ran).toEqual([
      'read 30 start',
      'read 1 start',
      'read 1 end',
      'read 30 end',
      'write 1 start',
      'write 1 end',
      'read 2 start',
      'read 2 end',
      'write 2 start',
      'write 2 end',
    ]);
  });
});
