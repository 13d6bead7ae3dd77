/**
 * NodeClient against a small in-process HTTP server: what goes on the wire (path, query, Basic auth
 * from the URL's userinfo) and how each kind of failure is reported.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeClient, UpstreamAnswerError, UpstreamFailure } from '../../../src/backends/upstream/node-client';
import { rawJsonOf } from '../../../src/rpc/result-json';

interface Seen {
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: { method: string; params: unknown };
}

let server: Server;
let port: number;
const seen: Seen[] = [];
const clients: NodeClient[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      const body = JSON.parse(text);
      seen.push({ url: req.url ?? '', headers: req.headers, body });
      switch (body.method) {
        case 'hang':
          return;
        case 'fails':
          return res.end(`{"jsonrpc":"2.0","id":${body.id},"error":{"code":3,"message":"execution reverted","data":"0x01"}}`);
        case 'http':
          res.statusCode = 502;
          return res.end('bad gateway');
        default:
          return res.end(`{"jsonrpc":"2.0","id":${body.id},"result":{"a":[1,2]}}`);
      }
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

const client = (url: string) => {
  const c = new NodeClient(url);
  clients.push(c);
  return c;
};

const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (err: Error) => err);

describe('NodeClient', () => {
  it('posts to the URL path with its query untouched and sends userinfo as Basic auth', async () => {
    const c = client(`http://us%40er:p%3Ass@127.0.0.1:${port}/v2/key?apikey=k1`);
    const { result } = await c.call('eth_chainId', ['x'], 2000);
    expect(result).toEqual({ a: [1, 2] });
    expect(rawJsonOf(result)).toBe('{"a":[1,2]}');
    const last = seen[seen.length - 1];
    expect(last.url).toBe('/v2/key/?apikey=k1');
    expect(Buffer.from(String(last.headers.authorization).replace('Basic ', ''), 'base64').toString()).toBe('us@er:p:ss');
    expect(last.body).toMatchObject({ method: 'eth_chainId', params: ['x'] });
  });

  it('reports a JSON-RPC error as an answer, other failures by kind', async () => {
    const c = client(`http://127.0.0.1:${port}`);
    const answer = await failure(c.call('fails', [], 2000));
    expect(answer).toBeInstanceOf(UpstreamAnswerError);
    expect(answer).toMatchObject({ code: 3, rpcMessage: 'execution reverted', detail: '0x01' });
    expect(await failure(c.call('http', [], 2000))).toMatchObject({ kind: 'http', message: 'HTTP 502: not JSON' });
    expect(await failure(c.call('hang', [], 100))).toMatchObject({ kind: 'timeout', message: 'no answer within 100ms' });
    const abort = new AbortController();
    const pending = failure(c.call('hang', [], 5000, abort.signal));
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
