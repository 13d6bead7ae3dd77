/**
 * JsonRpcClient against a small in-process HTTP server: what goes on the wire (path, query, Basic auth
 * from the URL's userinfo), how each kind of failure is reported, and how calls are batched.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JsonRpcClient, type Batching } from '../../../src/backends/upstream/json-rpc-client';
import { UpstreamAnswerError, UpstreamFailure } from '../../../src/backends/upstream/upstream-errors';
import type { Json } from '../../../src/rpc/json';
import { rawJsonOf, UnreadJson } from '../../../src/rpc/result-json';

interface Seen {
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: { method: string; params: unknown };
}

let server: Server;
let port: number;
const seen: Seen[] = [];
const clients: JsonRpcClient[] = [];

/** The answer text of one call; undefined: none (the call hangs, or its batch member is left out). */
function answerTo(call: { id: number; method: string }): string | undefined {
  switch (call.method) {
    case 'hang':
      return undefined;
    case 'large':
      return `{"jsonrpc":"2.0","id":${call.id},"result":"${'ab'.repeat(5_000)}"}`;
    case 'huge':
      return `{"jsonrpc":"2.0","id":${call.id},"result":["${'cd'.repeat(150_000)}", "é€"]}`;
    case 'fails':
      return `{"jsonrpc":"2.0","id":${call.id},"error":{"code":3,"message":"execution reverted","data":"0x01"}}`;
    default:
      return `{"jsonrpc":"2.0","id":${call.id},"result":{"a":[1,2],"m":${JSON.stringify(call.method)}}}`;
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      const body = JSON.parse(text);
      seen.push({ url: req.url ?? '', headers: req.headers, body });
      if (Array.isArray(body)) {
        if (body.some((call) => call.method === 'no-batches')) return res.end('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large"}}');
        if (body.some((call) => call.method === 'http')) {
          res.statusCode = 503;
          return res.end('<html>unavailable</html>');
        }
        if (body.some((call) => call.method === 'hang') && body.every((call) => call.method === 'hang')) return;
        // Answers in reverse order, as a node may: each call finds its own by id.
        const answers = body.map(answerTo).filter((a): a is string => a !== undefined).reverse();
        return res.end(`[${answers.join(',')}]`);
      }
      if (body.method === 'http') {
        res.statusCode = 502;
        return res.end('bad gateway');
      }
      if (body.method === 'unavailable') {
        res.statusCode = 503;
        return res.end(`{"jsonrpc":"2.0","id":${body.id},"error":{"code":-32603,"message":"upstream unavailable"}}`);
      }
      if (body.method === 'not-an-error') return res.end(`{"jsonrpc":"2.0","id":${body.id},"error":"bad gateway"}`);
      const answer = answerTo(body);
      if (answer !== undefined) res.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const c of clients) c.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const client = (url: string, batching?: Batching, onBatchRefused?: (reason: string) => void) => {
  const c = new JsonRpcClient(url, batching, onBatchRefused);
  clients.push(c);
  return c;
};

const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (err: Error) => err);
/** What a call came to: its result or its error. */
const outcome = (promise: Promise<unknown>) => promise.then((r) => r, (err: Error) => err);

describe('JsonRpcClient', () => {
  it('posts to the URL path with its query untouched and sends userinfo as Basic auth', async () => {
    const c = client(`http://us%40er:p%3Ass@127.0.0.1:${port}/v2/key?apikey=k1`);
    const { result } = await c.call('eth_chainId', ['x'], 2000);
    expect(result).toEqual({ a: [1, 2], m: 'eth_chainId' });
    expect(rawJsonOf(result)).toBe('{"a":[1,2],"m":"eth_chainId"}');
    const last = seen[seen.length - 1];
    expect(last.url).toBe('/v2/key/?apikey=k1');
    expect(Buffer.from(String(last.headers.authorization).replace('Basic ', ''), 'base64').toString()).toBe('us@er:p:ss');
    expect(last.body).toMatchObject({ method: 'eth_chainId', params: ['x'] });
  });

  it('hands an unread result on as its wire form: a small one as text, a large one as the bytes read, none parsed', async () => {
    const c = client(`http://127.0.0.1:${port}`);
    const small = (await c.call('eth_chainId', [], 2000, { unread: true })).result as UnreadJson;
    expect(small).toBeInstanceOf(UnreadJson);
    expect(small.bytes).toBeUndefined();
    expect(small.text).toBe('{"a":[1,2],"m":"eth_chainId"}');
    for (const method of ['large', 'huge']) {
      const { result, bytes } = await c.call(method, [], 2000, { unread: true });
      const unread = result as UnreadJson;
      const wire = answerTo({ id: 0, method })!.replace(/^\{"jsonrpc":"2.0","id":0,"result":/, '').slice(0, -1);
      expect(Buffer.concat(unread.bytes!).equals(Buffer.from(wire))).toBe(true);
      expect(bytes).toBe(Buffer.byteLength(wire));
      // No piece keeps a socket read buffer much larger than itself alive (a cached answer would hold it).
      for (const piece of unread.bytes!) expect(piece.buffer.byteLength).toBeLessThanOrEqual(2 * piece.length);
      expect(unread.value).toEqual(JSON.parse(wire));
    }
  });

  it('reports a JSON-RPC error as an answer, other failures by kind', async () => {
    const c = client(`http://127.0.0.1:${port}`);
    const answer = await failure(c.call('fails', [], 2000));
    expect(answer).toBeInstanceOf(UpstreamAnswerError);
    expect(answer).toMatchObject({ code: 3, rpcMessage: 'execution reverted', detail: '0x01' });
    expect(await failure(c.call('http', [], 2000))).toMatchObject({ kind: 'http', message: 'HTTP 502: not JSON' });
    // A JSON-RPC error under another status than 200 is not the node's answer: another upstream may serve the call.
    expect(await failure(c.call('unavailable', [], 2000))).toMatchObject({ kind: 'http', message: 'HTTP 503: {"code":-32603,"message":"upstream unavailable"}' });
    expect(await failure(c.call('not-an-error', [], 2000))).toMatchObject({ kind: 'body', message: 'HTTP 200: "error" is not a JSON-RPC error object' });
    expect(await failure(c.call('hang', [], 100))).toMatchObject({ kind: 'timeout', message: 'no answer within 100ms' });
    const abort = new AbortController();
    const pending = failure(c.call('hang', [], 5000, { signal: abort.signal }));
    abort.abort();
    expect(await pending).toMatchObject({ kind: 'aborted' });
  });

  it('a refused connection is `refused`: the request never reached the node', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = await failure(client(`http://127.0.0.1:${deadPort}`).call('eth_chainId', [], 2000));
    expect(err).toBeInstanceOf(UpstreamFailure);
    expect(err).toMatchObject({ kind: 'refused' });
  });
});

describe('JsonRpcClient with batching', () => {
  const requestsSince = (from: number) => seen.slice(from).map((s) => s.body);

  it('sends the calls of one event-loop turn as one batch, each call settled by its own answer', async () => {
    const c = client(`http://127.0.0.1:${port}`, { maxSize: 10, maxWaitMs: 0 });
    const from = seen.length;
    const calls = ['a', 'fails', 'b', 'hang', 'c'].map((m) => outcome(c.call(m, [m], m === 'hang' ? 300 : 2000)));
    const [a, fails, b, hang, cc] = await Promise.all(calls);
    expect(requestsSince(from)).toEqual([['a', 'fails', 'b', 'hang', 'c'].map((m, i) => expect.objectContaining({ id: i + 1, method: m, params: [m] }))]);
    expect([a, b, cc]).toEqual(['a', 'b', 'c'].map((m) => ({ result: { a: [1, 2], m }, bytes: expect.any(Number) })));
    expect(rawJsonOf((a as { result: Json }).result)).toBe('{"a":[1,2],"m":"a"}');
    expect(fails).toMatchObject({ code: 3, rpcMessage: 'execution reverted' });
    expect(hang).toMatchObject({ kind: 'body', message: 'the batch answer holds no answer to this call' });
    expect(c.batches).toEqual({ sent: 1, calls: 5 });
  });

  it('splits at maxSize, sends a lone call alone, and waits up to maxWaitMs for company', async () => {
    const c = client(`http://127.0.0.1:${port}`, { maxSize: 2, maxWaitMs: 50 });
    const from = seen.length;
    await Promise.all(['a', 'b', 'c'].map((m) => c.call(m, [], 2000)));
    const first = c.call('d', [], 2000);
    await new Promise((r) => setTimeout(r, 10));
    await Promise.all([first, c.call('e', [], 2000)]);
    expect(requestsSince(from).map((b) => (Array.isArray(b) ? b.map((m) => m.method) : b.method))).toEqual([['a', 'b'], 'c', ['d', 'e']]);
  });

  it('a call aborted or timed out while it waits is not sent', async () => {
    const c = client(`http://127.0.0.1:${port}`, { maxSize: 10, maxWaitMs: 100 });
    const from = seen.length;
    const abort = new AbortController();
    const aborted = failure(c.call('x', [], 2000, { signal: abort.signal }));
    const late = failure(c.call('y', [], 20));
    const kept = c.call('z', [], 2000);
    abort.abort();
    expect(await aborted).toMatchObject({ kind: 'aborted' });
    expect(await late).toMatchObject({ kind: 'timeout' });
    await kept;
    expect(requestsSince(from)).toEqual([expect.objectContaining({ method: 'z' })]);
  });

  it('a batch the node fails (HTTP 503, an HTML page) fails each of its calls as an HTTP failure', async () => {
    const c = client(`http://127.0.0.1:${port}`, { maxSize: 10, maxWaitMs: 0 });
    const outcomes = await Promise.all(['a', 'http'].map((m) => failure(c.call(m, [], 2000))));
    expect(outcomes).toEqual([expect.objectContaining({ kind: 'http', message: 'HTTP 503: not JSON' }), expect.objectContaining({ kind: 'http' })]);
  });

  it('a node that answers a batch with an error gets each call alone, and no batch again', async () => {
    const refusals: string[] = [];
    const c = client(`http://127.0.0.1:${port}`, { maxSize: 10, maxWaitMs: 0 }, (reason) => refusals.push(reason));
    const from = seen.length;
    const outcomes = await Promise.all(['a', 'no-batches'].map((m) => c.call(m, [], 2000)));
    expect(outcomes.map((o) => o.result)).toEqual([{ a: [1, 2], m: 'a' }, { a: [1, 2], m: 'no-batches' }]);
    await Promise.all(['b', 'c'].map((m) => c.call(m, [], 2000)));
    expect(refusals).toEqual(['HTTP 200: {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large"}}']);
    expect(requestsSince(from).map((b) => (Array.isArray(b) ? b.map((m) => m.method) : b.method))).toEqual([['a', 'no-batches'], 'a', 'no-batches', 'b', 'c']);
  });
});
