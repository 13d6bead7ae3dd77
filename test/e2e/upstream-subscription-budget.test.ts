/**
 * The upstream subscription budget: an upstream-mode gateway over an embedded-devnet upstream whose
 * `[rpc] max_subscription_clients` / `max_subscriptions_per_client` are small. Many gateway clients with
 * distinct queries share the gateway's few upstream sockets; one past the budget gets CometBFT's own
 * error, and the upstream keeps room for its direct subscribers.
 */
import { call, startTestGateway, waitForHeight, type TestGateway } from '../support/gateway';
import { startUpstreamGateway, type UpstreamGateway } from '../support/upstream';
import { WsClient } from '../support/ws-client';

jest.setTimeout(60_000);

const UPSTREAM_CLIENTS = 3;
const PER_CLIENT = 3;
/** The gateway's sockets: 2 of the upstream's 3 clients, 3 subscriptions each (the head query and 5 of the clients'). */
const BUDGET = { max_subscription_clients: 2, max_subscriptions_per_client: PER_CLIENT };
const QUERIES = 5;

const query = (i: number) => `tm.event='Tx' AND app.key='budget-k${i}'`;
const subscribe = (ws: WsClient, id: number, q: string) => ws.send({ jsonrpc: '2.0', id, method: 'subscribe', params: { query: q } });
const answerTo = (ws: WsClient, id: number) => ws.next((m) => m.id === id && (m.error !== undefined || (m.result && Object.keys(m.result).length === 0)));

let devnet: TestGateway;
let gw: UpstreamGateway;
const clients: WsClient[] = [];

beforeAll(async () => {
  devnet = await startTestGateway({
    'rpc.max_subscription_clients': String(UPSTREAM_CLIENTS),
    'rpc.max_subscriptions_per_client': String(PER_CLIENT),
  });
  await waitForHeight(devnet.url, 2);
  gw = await startUpstreamGateway([{ name: 'up', url: devnet.url }], { settings: BUDGET });
});

afterAll(async () => {
  for (const c of clients) c.socket.close();
  await gw?.close();
  await devnet?.close();
});

async function client(): Promise<WsClient> {
  const ws = await WsClient.open(gw.wsUrl);
  clients.push(ws);
  return ws;
}

describe('upstream subscriptions within a budget', () => {
  const subscribed: { ws: WsClient; key: number }[] = [];

  it('shares two upstream sockets between ten clients of five distinct queries', async () => {
    for (let i = 0; i < 2 * QUERIES; i++) {
      const ws = await client();
      subscribe(ws, 1, query(i % QUERIES));
      expect(await answerTo(ws, 1)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
      subscribed.push({ ws, key: i % QUERIES });
    }
    expect(gw.backend.events.socketUsage()).toEqual({ up: [PER_CLIENT, PER_CLIENT] });
  });

  it("refuses a query past the budget with CometBFT's error, not the upstream's exhaustion", async () => {
    const ws = await client();
    subscribe(ws, 2, query(QUERIES));
    expect(await answerTo(ws, 2)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32603, message: 'Internal error', data: `max_subscription_clients ${BUDGET.max_subscription_clients} reached` },
    });
    // A query already fed still takes no place.
    subscribe(ws, 3, query(0));
    expect(await answerTo(ws, 3)).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    subscribed.push({ ws, key: 0 });
  });

  it('leaves the upstream room for a direct subscriber: it sees two gateway clients, not a hundred', async () => {
    const direct = await WsClient.open(devnet.wsUrl);
    const second = await WsClient.open(devnet.wsUrl);
    try {
      subscribe(direct, 1, "tm.event='NewBlock'");
      expect(await answerTo(direct, 1)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
      // The upstream's third client was the direct one: the gateway holds two.
      subscribe(second, 1, "tm.event='NewBlock'");
      expect((await answerTo(second, 1)).error?.data).toBe(`max_subscription_clients ${UPSTREAM_CLIENTS} reached`);
    } finally {
      direct.socket.close();
      second.socket.close();
    }
  });

  it('delivers each client the events of its own query', async () => {
    const height = Number((await call(devnet.url, 'status')).sync_info.latest_block_height);
    for (let k = 0; k < QUERIES; k++) {
      const tx = Buffer.from(`budget-k${k}=v${height}`).toString('base64');
      expect((await call(devnet.url, 'broadcast_tx_sync', { tx })).code).toBe(0);
    }
    for (const { ws, key } of subscribed) {
      const event = await ws.next((m) => m.result?.data?.type === 'tendermint/event/Tx');
      expect(event.result.events['app.key']).toContain(`budget-k${key}`);
    }
  });

  it('gives a place back when the last client of a query leaves', async () => {
    for (const { ws } of subscribed.filter((s) => s.key === 1)) ws.socket.close();
    const ws = await client();
    for (let attempt = 0; ; attempt++) {
      subscribe(ws, 10 + attempt, query(QUERIES));
      const answer = await answerTo(ws, 10 + attempt);
      if (answer.result) break;
      // The closes above are seen by the gateway a moment later.
      expect(attempt).toBeLessThan(20);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(gw.backend.events.socketUsage()).toEqual({ up: [PER_CLIENT, PER_CLIENT] });
  });
});
