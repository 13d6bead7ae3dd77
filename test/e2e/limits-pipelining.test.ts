/**
 * Limits that hold however a client pipelines: requests sent back to back on real sockets, without
 * waiting for any answer, never get past a per-client or global limit (subscriptions per client,
 * subscription clients, per-IP subscriptions, filters, per-IP filters, open connections, WebSockets per
 * IP, batch size).
 */
import { post, startTestGateway, waitForHeight, type TestGateway } from '../support/gateway';
import { PipelineSocket } from '../support/raw-ws';

jest.setTimeout(60_000);

const subscribe = (id: number, query: string) => ({ jsonrpc: '2.0', id, method: 'subscribe', params: { query } });
const ids = (n: number, from = 1) => Array.from({ length: n }, (_, i) => i + from);
const ok = (messages: any[]) => messages.filter((m) => 'result' in m);
const refused = (messages: any[]) => messages.filter((m) => 'error' in m);

describe('node RPC subscriptions', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({
      'rpc.max_subscriptions_per_client': '5',
      'rpc.max_subscription_clients': '3',
      'limits.max_subscriptions_per_ip': '0',
      'devnet.block_time': '1h',
    });
  });
  afterAll(() => gw?.close());

  it('a client that pipelines 20 subscribe requests gets exactly max_subscriptions_per_client accepted', async () => {
    const ws = await PipelineSocket.connect(gw.wsUrl);
    ws.pipeline(ids(20).map((id) => subscribe(id, `tm.event='Tx' AND app.key='k${id}'`)));
    const answers = await ws.collect(20, (m) => typeof m.id === 'number');
    expect(ok(answers)).toHaveLength(5);
    expect(refused(answers)).toHaveLength(15);
    for (const m of refused(answers)) expect(m.error).toEqual({ code: -32603, message: 'Internal error', data: 'max_subscriptions_per_client 5 reached' });
    // The accepted ones are real subscriptions: unsubscribing each works once, and frees a place.
    const accepted = ok(answers).map((m) => m.id as number);
    ws.pipeline([{ jsonrpc: '2.0', id: 100, method: 'unsubscribe', params: { query: `tm.event='Tx' AND app.key='k${accepted[0]}'` } }]);
    expect((await ws.collect(1, (m) => m.id === 100))[0].result).toEqual({});
    ws.pipeline(ids(3, 200).map((id) => subscribe(id, `tm.event='Tx' AND app.key='again${id}'`)));
    const again = await ws.collect(3, (m) => m.id >= 200);
    expect(ok(again)).toHaveLength(1);
    await ws.close();
  });

  it('the same query pipelined 20 times is subscribed once', async () => {
    const ws = await PipelineSocket.connect(gw.wsUrl);
    ws.pipeline(ids(20).map((id) => subscribe(id, "tm.event='NewBlock'")));
    const answers = await ws.collect(20);
    expect(ok(answers)).toHaveLength(1);
    for (const m of refused(answers)) expect(m.error.data).toBe('already subscribed');
    await ws.close();
  });

  it('clients that subscribe at the same moment on 8 connections: exactly max_subscription_clients hold subscriptions', async () => {
    const sockets = await Promise.all(ids(8).map(() => PipelineSocket.connect(gw.wsUrl)));
    for (const ws of sockets) ws.pipeline([subscribe(1, "tm.event='NewBlockHeader'")]);
    const answers = (await Promise.all(sockets.map((ws) => ws.collect(1)))).flat();
    expect(ok(answers)).toHaveLength(3);
    for (const m of refused(answers)) expect(m.error.data).toBe('max_subscription_clients 3 reached');
    await Promise.all(sockets.map((ws) => ws.close()));
  });

  it('places are given back when a connection closes', async () => {
    // The previous tests' connections are closed: all 3 client places are free again.
    const sockets = await Promise.all(ids(3).map(() => PipelineSocket.connect(gw.wsUrl)));
    for (const ws of sockets) ws.pipeline([subscribe(1, "tm.event='NewBlockHeader'")]);
    const answers = (await Promise.all(sockets.map((ws) => ws.collect(1)))).flat();
    expect(ok(answers)).toHaveLength(3);
    await Promise.all(sockets.map((ws) => ws.close()));
  });
});

describe('per-IP caps across connections', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({
      'rpc.max_subscriptions_per_client': '10',
      'limits.max_subscriptions_per_ip': '4',
      'limits.max_ws_connections_per_ip': '3',
      'limits.max_filters_per_ip': '3',
      'json-rpc.enable': 'true',
      'json-rpc.address': '127.0.0.1:0',
      'json-rpc.ws-address': '127.0.0.1:0',
      'devnet.block_time': '1h',
    });
  });
  afterAll(() => gw?.close());

  it('node subscriptions: 3 connections of one address pipelining 4 subscribes each get 4 in all', async () => {
    const sockets = await Promise.all(ids(3).map(() => PipelineSocket.connect(gw.wsUrl)));
    sockets.forEach((ws, c) => ws.pipeline(ids(4).map((id) => subscribe(id, `tm.event='Tx' AND c.n=${c * 10 + id}`))));
    const answers = (await Promise.all(sockets.map((ws) => ws.collect(4)))).flat();
    expect(ok(answers)).toHaveLength(4);
    for (const m of refused(answers)) expect(m.error).toEqual({ code: -32603, message: 'Internal error', data: 'max_subscriptions_per_ip 4 reached' });
    // One connection closes: its places are free for the others.
    const holder = sockets.find((ws) => ok(ws.messages).length > 0)!;
    const held = ok(holder.messages).length;
    await holder.close();
    const other = sockets.find((ws) => ws !== holder)!;
    other.pipeline(ids(held + 2, 50).map((id) => subscribe(id, `tm.event='Tx' AND again.n=${id}`)));
    const again = await other.collect(held + 2, (m) => m.id >= 50);
    expect(ok(again)).toHaveLength(held);
    await Promise.all(sockets.map((ws) => ws.close()));
  });

  it('WebSockets: 6 handshakes at once from one address open exactly max_ws_connections_per_ip', async () => {
    const opened = await Promise.all(ids(6).map(() => PipelineSocket.open(gw.wsUrl)));
    const open = opened.filter((o) => o.ok);
    const refusedOnes = opened.filter((o): o is Extract<typeof o, { ok: false }> => !o.ok);
    expect(open).toHaveLength(3);
    for (const r of refusedOnes) {
      expect(r.status).toBe(429);
      expect(JSON.parse(r.body)).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request', data: 'max_ws_connections_per_ip 3 reached' } });
    }
    // The EVM WebSocket counts its own connections.
    const evm = await Promise.all(ids(4).map(() => PipelineSocket.open(gw.evmWsUrl!)));
    expect(evm.filter((o) => o.ok)).toHaveLength(3);
    const evmRefusal = evm.find((o) => !o.ok) as { status: number; body: string };
    expect(evmRefusal.status).toBe(429);
    expect(JSON.parse(evmRefusal.body).error).toEqual({ code: -32005, message: 'limit exceeded', data: 'max_ws_connections_per_ip 3 reached' });
    for (const o of [...open, ...evm]) if (o.ok) await o.ws.close();
    // Closed: the places are free again.
    await new Promise((r) => setTimeout(r, 100));
    const after = await Promise.all(ids(3).map(() => PipelineSocket.open(gw.wsUrl)));
    expect(after.every((o) => o.ok)).toBe(true);
    for (const o of after) if (o.ok) await o.ws.close();
  });

  it('eth_subscribe: pipelined on two connections, max_subscriptions_per_ip in all', async () => {
    const sockets = await Promise.all(ids(2).map(() => PipelineSocket.connect(gw.evmWsUrl!)));
    for (const ws of sockets) ws.pipeline(ids(5).map((id) => ({ jsonrpc: '2.0', id, method: 'eth_subscribe', params: ['newHeads'] })));
    const answers = (await Promise.all(sockets.map((ws) => ws.collect(5)))).flat();
    expect(ok(answers)).toHaveLength(4);
    for (const m of refused(answers)) expect(m.error).toEqual({ code: -32000, message: 'max_subscriptions_per_ip 4 reached' });
    await Promise.all(sockets.map((ws) => ws.close()));
  });

  it('EVM filters: a batch of 10 eth_newBlockFilter from one address installs max_filters_per_ip', async () => {
    const batch = ids(10).map((id) => ({ jsonrpc: '2.0', id, method: 'eth_newBlockFilter', params: [] }));
    const res = await fetch(gw.evmHttpUrl!, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(batch) });
    const answers = (await res.json()) as any[];
    expect(ok(answers)).toHaveLength(3);
    for (const m of refused(answers)) expect(m.error).toEqual({ code: -32000, message: 'error creating block filter: max limit reached' });
    // Uninstalling one frees its place, for a WebSocket client of the same address too.
    const first = ok(answers)[0].result;
    const ws = await PipelineSocket.connect(gw.evmWsUrl!);
    ws.pipeline([{ jsonrpc: '2.0', id: 1, method: 'eth_uninstallFilter', params: [first] }, ...ids(3, 2).map((id) => ({ jsonrpc: '2.0', id, method: 'eth_newBlockFilter', params: [] }))]);
    const after = await ws.collect(4);
    expect(after.find((m) => m.id === 1).result).toBe(true);
    expect(ok(after.filter((m) => m.id >= 2))).toHaveLength(1);
    await ws.close();
  });
});

describe('global limits under pipelining', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({
      'rpc.max_request_batch_size': '5',
      'json-rpc.enable': 'true',
      'json-rpc.address': '127.0.0.1:0',
      'json-rpc.ws-address': '127.0.0.1:0',
      'json-rpc.filter-cap': '6',
      'devnet.block_time': '200ms',
    });
    await waitForHeight(gw.url, 1);
  });
  afterAll(() => gw?.close());

  it('filter-cap: 20 eth_newFilter pipelined on one WebSocket install exactly filter-cap', async () => {
    const ws = await PipelineSocket.connect(gw.evmWsUrl!);
    ws.pipeline(ids(20).map((id) => ({ jsonrpc: '2.0', id, method: 'eth_newFilter', params: [{}] })));
    const answers = await ws.collect(20);
    expect(ok(answers)).toHaveLength(6);
    for (const m of refused(answers)) expect(m.error).toEqual({ code: -32000, message: 'error creating filter: max limit reached' });
    await ws.close();
  });

  it('max_request_batch_size: a batch at the limit runs, one over is refused whole', async () => {
    const batch = (n: number) => ids(n).map((id) => ({ jsonrpc: '2.0', id, method: 'health', params: {} }));
    const atLimit = await post(gw.url, batch(5));
    expect(atLimit.json).toHaveLength(5);
    const over = await post(gw.url, batch(6));
    expect(over.json.error.data).toBe('batch request exceeds maximum (5) allowed number of requests');
  });
});

describe('max_open_connections under a burst', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({ 'rpc.max_open_connections': '4', 'devnet.block_time': '1h' });
  });
  afterAll(() => gw?.close());

  it('8 WebSockets opened at once: exactly 4 open, the others get 503', async () => {
    const opened = await Promise.all(ids(8).map(() => PipelineSocket.open(gw.wsUrl).catch(() => ({ ok: false as const, status: 0, body: '' }))));
    expect(opened.filter((o) => o.ok).length).toBe(4);
    expect(opened.filter((o) => !o.ok).map((o) => (o.ok ? 0 : o.status))).toEqual([503, 503, 503, 503]);
    for (const o of opened) if (o.ok) await o.ws.close();
  });
});
