/**
 * A plugin's subscriptions behave as built-in ones over real sockets: a gateway-made id that eth_unsubscribe
 * ends (true, and the plugin's pushes stop), the node RPC's unsubscribe / unsubscribe_all by query, the
 * per-client caps and the subscriptions gauge counting them, and the connection's close ending them.
 */
import { resolve, join } from 'node:path';
import WebSocket from 'ws';
import { startTestGateway, type TestGateway } from '../../support/gateway';
import { Exposition } from '../../unit/metrics/exposition';
import { EVM_ON, METRICS_ON } from './flags';

const FIXTURE = join(resolve(__dirname, '../../fixtures/plugins'), 'ticker.ts');

/** A WebSocket client: calls answered by id, notifications collected. */
async function client(url: string) {
  const ws = new WebSocket(url);
  await new Promise((ok, fail) => ws.once('open', ok).once('error', fail));
  const waiting = new Map<unknown, (answer: Record<string, unknown>) => void>();
  const notes: Record<string, unknown>[] = [];
  ws.on('message', (data) => {
    const message = JSON.parse(data.toString()) as Record<string, unknown>;
    const done = waiting.get(message.id);
    if (done && ('result' in message || 'error' in message) && waiting.delete(message.id)) done(message);
    else notes.push(message);
  });
  let id = 100;
  return {
    notes,
    call: (method: string, params: unknown): Promise<Record<string, unknown>> =>
      new Promise((ok) => {
        const mine = ++id;
        waiting.set(mine, ok);
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: mine, method, params }));
      }),
    close: () => new Promise((ok) => ws.once('close', ok).close()),
  };
}

const pause = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

describe('plugin subscriptions, as built-in ones', () => {
  let gw: TestGateway;
  const gauge = async (labels: Record<string, string>) => new Exposition(await (await fetch(`${gw.metricsUrl}/metrics`)).text()).value('rpcgw_subscriptions', labels) ?? 0;

  beforeAll(async () => {
    gw = await startTestGateway({
      'plugins.load': FIXTURE,
      'plugins.node_api': 'ticknode',
      'rpc.max_subscriptions_per_client': '2',
      ...EVM_ON,
      'json-rpc.api': 'eth,tick',
      ...METRICS_ON,
    });
  });
  afterAll(() => gw?.close());

  it('EVM: eth_unsubscribe(<plugin subscription id>) answers true and stops its pushes', async () => {
    const ws = await client(gw.evmWsUrl!);
    try {
      const id = (await ws.call('tick_subscribe', [])).result as string;
      expect(id).toMatch(/^0x[0-9a-f]+$/);
      await pause(150);
      expect(ws.notes.length).toBeGreaterThan(0);
      expect(ws.notes[0]).toEqual({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: id, result: 1 } });
      expect(await gauge({ interface: 'evm', kind: 'ticks' })).toBe(1);
      expect((await ws.call('eth_unsubscribe', [id])).result).toBe(true);
      expect((await ws.call('tick_stopped', [])).result).toBe(1);
      const seen = ws.notes.length;
      await pause(100);
      expect(ws.notes.length).toBe(seen);
      expect((await ws.call('eth_unsubscribe', [id])).result).toBe(false);
      expect(await gauge({ interface: 'evm', kind: 'ticks' })).toBe(0);
    } finally {
      await ws.close();
    }
  });

  it("EVM: the connection's close stops a plugin subscription", async () => {
    const ws = await client(gw.evmWsUrl!);
    await ws.call('tick_subscribe', []);
    const before = (await ws.call('tick_stopped', [])).result as number;
    await ws.close();
    await pause(100);
    const other = await client(gw.evmWsUrl!);
    try {
      expect((await other.call('tick_stopped', [])).result).toBe(before + 1);
    } finally {
      await other.close();
    }
  });

  it('node: counted by max_subscriptions_per_client with built-in ones; unsubscribe and unsubscribe_all end them', async () => {
    const ws = await client(gw.wsUrl);
    try {
      expect((await ws.call('tick_subscribe', { query: "tm.event='Tick'" })).result).toEqual({});
      await pause(100);
      expect(ws.notes[0]).toMatchObject({ jsonrpc: '2.0', result: 1 });
      expect((await ws.call('tick_subscribe', { query: "tm.event='Tick'" })).error).toMatchObject({ data: 'already subscribed' });
      expect((await ws.call('subscribe', { query: "tm.event='NewBlock'" })).result).toEqual({});
      expect((await ws.call('tick_subscribe', { query: "tm.event='Tock'" })).error).toMatchObject({ data: 'max_subscriptions_per_client 2 reached' });
      expect((await ws.call('unsubscribe', { query: "tm.event='Tick'" })).result).toEqual({});
      expect((await ws.call('tick_stopped', {})).result).toEqual({ stopped: 1 });
      expect((await ws.call('tick_subscribe', { query: "tm.event='Tock'" })).result).toEqual({});
      expect((await ws.call('unsubscribe_all', {})).result).toEqual({});
      expect((await ws.call('tick_stopped', {})).result).toEqual({ stopped: 2 });
    } finally {
      await ws.close();
    }
  });
});
