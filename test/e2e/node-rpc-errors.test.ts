/** Client mistakes and limits on the node RPC: each gets CometBFT's error and changes nothing. */
import { call, get, post, startTestGateway, waitForHeight, type TestGateway } from '../support/gateway';
import { WsClient } from '../support/ws-client';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ 'rpc.max_request_batch_size': '3', 'rpc.max_body_bytes': '2000', 'rpc.max_subscriptions_per_client': '2' });
  await waitForHeight(gw.url, 1);
});

afterAll(() => gw?.close());

describe('JSON-RPC over HTTP', () => {
  it('malformed JSON: 500, -32700, no id key', async () => {
    const res = await post(gw.url, '{"jsonrpc":"2.0",');
    expect(res.status).toBe(500);
    expect(res.json).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: 'Parse error. Invalid JSON', data: expect.stringMatching(/^error unmarshaling request: /) },
    });
    expect('id' in res.json).toBe(false);
  });

  it('an object id makes the body a parse error', async () => {
    const res = await post(gw.url, { jsonrpc: '2.0', id: { a: 1 }, method: 'health' });
    expect(res.status).toBe(500);
    expect(res.json.error.code).toBe(-32700);
  });

  it('unknown method: -32601 with the id', async () => {
    const res = await post(gw.url, { jsonrpc: '2.0', id: 'x', method: 'no_such_method', params: {} });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ jsonrpc: '2.0', id: 'x', error: { code: -32601, message: 'Method not found' } });
  });

  it('wrong param type: -32602 with the conversion detail', async () => {
    const res = await post(gw.url, { jsonrpc: '2.0', id: 1, method: 'block', params: { height: 5 } });
    expect(res.json.error).toEqual({
      code: -32602,
      message: 'Invalid params',
      data: 'error converting json params to arguments: invalid 64-bit integer encoding "5", expected string',
    });
  });

  it('wrong number of positional params', async () => {
    const res = await post(gw.url, { jsonrpc: '2.0', id: 1, method: 'block', params: [] });
    expect(res.json.error.code).toBe(-32602);
    expect(res.json.error.data).toMatch(/^error converting json params to arguments: expected 1 parameters \(\[height\]\), got 0/);
  });

  it('bad hex in a HexBytes param', async () => {
    const res = await post(gw.url, { jsonrpc: '2.0', id: 1, method: 'header_by_hash', params: { hash: 'zz' } });
    expect(res.json.error.code).toBe(-32602);
    expect(res.json.error.data).toMatch(/^error converting json params to arguments: encoding\/hex/);
  });

  it('height above the latest', async () => {
    const res = await post(gw.url, { jsonrpc: '2.0', id: 1, method: 'block', params: { height: '999999' } });
    expect(res.json.error.code).toBe(-32603);
    expect(res.json.error.data).toMatch(/^height 999999 must be less than or equal to the current blockchain height \d+$/);
    expect(res.headers.get('cache-control')).toBeNull();
  });

  it('oversized body: 400 and the connection closes', async () => {
    const res = await post(gw.url, { jsonrpc: '2.0', id: 1, method: 'health', params: { pad: 'x'.repeat(5000) } });
    expect(res.status).toBe(400);
    expect(res.json.error).toEqual({ code: -32600, message: 'Invalid Request', data: 'error reading request body: http: request body too large' });
  });

  it('oversized batch: one error object, nothing executed', async () => {
    const before = (await call(gw.url, 'num_unconfirmed_txs')).total;
    const batch = [1, 2, 3, 4].map((id) => ({ jsonrpc: '2.0', id, method: 'broadcast_tx_async', params: { tx: Buffer.from(`b${id}=x`).toString('base64') } }));
    const res = await post(gw.url, batch);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Invalid Request', data: 'batch request exceeds maximum (3) allowed number of requests' },
    });
    expect((await call(gw.url, 'num_unconfirmed_txs')).total).toBe(before);
  });

  it('batch: order kept, notifications dropped, single reply is a bare object', async () => {
    const res = await post(gw.url, [
      { jsonrpc: '2.0', id: 2, method: 'health' },
      { jsonrpc: '2.0', method: 'health' },
      { jsonrpc: '2.0', id: 1, method: 'nope' },
    ]);
    expect(res.json.map((r: any) => r.id)).toEqual([2, 1]);
    const single = await post(gw.url, [{ jsonrpc: '2.0', id: 9, method: 'health' }]);
    expect(single.json).toEqual({ jsonrpc: '2.0', id: 9, result: {} });
    const none = await post(gw.url, [{ jsonrpc: '2.0', method: 'health' }]);
    expect(none.status).toBe(200);
    expect(none.text).toBe('');
  });

  it('deeply nested params do not crash the server', async () => {
    const deep = '['.repeat(900) + ']'.repeat(900);
    const res = await post(gw.url, `{"jsonrpc":"2.0","id":1,"method":"block","params":${deep}}`);
    expect(res.json.error.code).toBe(-32602);
    expect((await call(gw.url, 'health'))).toEqual({});
  });

  it('float ids are truncated; string ids kept', async () => {
    expect((await post(gw.url, { jsonrpc: '2.0', id: 1.7, method: 'health' })).json.id).toBe(1);
    expect((await post(gw.url, { jsonrpc: '2.0', id: '', method: 'health' })).json.id).toBe('');
  });

  it('subscribe over HTTP is refused as an unknown method', async () => {
    const res = await post(gw.url, { jsonrpc: '2.0', id: 1, method: 'subscribe', params: { query: "tm.event='NewBlock'" } });
    expect(res.json.error).toEqual({ code: -32601, message: 'Method not found' });
  });

  it('unsafe methods are unknown unless [rpc] unsafe = true', async () => {
    const res = await post(gw.url, { jsonrpc: '2.0', id: 1, method: 'unsafe_flush_mempool', params: {} });
    expect(res.json.error).toEqual({ code: -32601, message: 'Method not found' });
    const inBatch = await post(gw.url, [
      { jsonrpc: '2.0', id: 1, method: 'dial_seeds', params: { seeds: ['a@1.2.3.4:26656'] } },
      { jsonrpc: '2.0', id: 2, method: 'health' },
    ]);
    expect(inBatch.json[0].error.code).toBe(-32601);
    expect(inBatch.json[1].result).toEqual({});
  });
});

describe('URI over HTTP', () => {
  it('unknown paths and disabled unsafe routes: Go text 404', async () => {
    for (const path of ['/nope', '/status/', '/unsafe_flush_mempool', '/dial_seeds?seeds=["a@b:1"]']) {
      const res = await get(gw.url, path);
      expect(res.status).toBe(404);
      expect(res.text).toBe('404 page not found\n');
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    }
  });

  it('WebSocket-only methods: 404 with a JSON -32601', async () => {
    const res = await get(gw.url, `/subscribe?query="tm.event='NewBlock'"`);
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ jsonrpc: '2.0', id: -1, error: { code: -32601, message: 'Method not found' } });
  });

  it('bad param values: 500 with -32602', async () => {
    const cases: Array<[string, string]> = [
      ['/block?height=abc', "error converting http params to arguments: invalid character 'a' looking for beginning of value"],
      ['/block?height=0x10', "error converting http params to arguments: got a hex string arg, but expected 'int64'"],
      ['/block?height=1.5', 'error converting http params to arguments: invalid 64-bit integer encoding "1.5", expected string'],
      ['/abci_query?path=/store', "error converting http params to arguments: invalid character '/' looking for beginning of value"],
      ['/tx?hash=0xZZ', 'error converting http params to arguments: encoding/hex: invalid byte: "ZZ"'],
    ];
    for (const [path, data] of cases) {
      const res = await get(gw.url, path);
      expect(res.status).toBe(500);
      expect(res.json).toEqual({ jsonrpc: '2.0', id: -1, error: { code: -32602, message: 'Invalid params', data } });
    }
  });

  it('height errors: 500 with -32603', async () => {
    const res = await get(gw.url, '/block?height=0');
    expect(res.status).toBe(500);
    expect(res.json.error).toEqual({ code: -32603, message: 'Internal error', data: 'height must be greater than 0, but got 0' });
  });

  it('pagination out of range', async () => {
    const res = await get(gw.url, '/validators?page=3');
    expect(res.json.error.data).toBe('page should be within [1, 1] range, given 3');
  });

  it('GET / lists the endpoints', async () => {
    const res = await get(gw.url, '/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html');
    expect(res.text).toContain('Endpoints that require arguments');
    expect(res.text).toContain(`/block_search?query=_&amp;page=_&amp;per_page=_&amp;order_by=_`.replace(/&amp;/g, '&'));
    expect(res.text).not.toContain('unsafe_flush_mempool');
  });

  it('every response carries X-Server-Time; cacheable reads carry Cache-Control', async () => {
    const cached = await get(gw.url, '/validators?height=1');
    expect(cached.headers.get('x-server-time')).toMatch(/^\d+$/);
    expect(cached.headers.get('cache-control')).toBe('public, max-age=86400');
    const latest = await get(gw.url, '/validators');
    expect(latest.headers.get('cache-control')).toBeNull();
  });
});

describe('WebSocket', () => {
  let ws: WsClient;
  beforeEach(async () => (ws = await WsClient.open(gw.wsUrl)));
  afterEach(() => ws.close());

  it('malformed JSON and arrays are parse errors without id', async () => {
    ws.send('{oops');
    const a = await ws.next(() => true);
    expect(a.error.code).toBe(-32700);
    expect('id' in a).toBe(false);
    ws.send('[{"jsonrpc":"2.0","id":1,"method":"health"}]');
    expect((await ws.next(() => true)).error.code).toBe(-32700);
  });

  it('param conversion errors are -32603 on WebSocket', async () => {
    const reply = await ws.call(1, 'block', { height: 5 });
    expect(reply.error.code).toBe(-32603);
    expect(reply.error.data).toMatch(/^error converting json params to arguments/);
  });

  it('subscription errors: bad query, duplicate, per-client limit', async () => {
    expect((await ws.call(1, 'subscribe', { query: "tm.event='NewBlock" })).error.data).toMatch(/^failed to parse query: /);
    expect((await ws.call(2, 'subscribe', { query: 'x'.repeat(600) })).error.data).toBe('maximum query length exceeded');
    expect((await ws.call(3, 'subscribe', { query: "tm.event='NewBlock'" })).result).toEqual({});
    expect((await ws.call(4, 'subscribe', { query: "tm.event = 'NewBlock'" })).error.data).toBe('already subscribed');
    expect((await ws.call(5, 'subscribe', { query: "tm.event='Tx'" })).result).toEqual({});
    expect((await ws.call(6, 'subscribe', { query: "tm.event='NewBlockHeader'" })).error.data).toBe('max_subscriptions_per_client 2 reached');
    expect((await ws.call(7, 'unsubscribe', { query: "tm.event='Vote'" })).error.data).toBe('subscription not found');
  });

  it('an oversized message closes the socket with 1009', async () => {
    const closed = new Promise<number>((resolve) => ws.socket.once('close', (code) => resolve(code)));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'health', params: { pad: 'x'.repeat(5000) } }));
    expect(await closed).toBe(1009);
  });
});
