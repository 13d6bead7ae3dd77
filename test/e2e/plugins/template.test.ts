/**
 * The template of docs/plugins.md, built with the guide's steps and loaded by one `[plugins] load` entry,
 * over real sockets in both backends (the embedded devnet, and upstream mode over a devnet): its node
 * route, its cached computed method (three identical calls run its handler once, in either backend's
 * response cache) and its subscription
 * (new blocks pushed over the EVM WebSocket, counted by the per-IP cap, stopped by eth_unsubscribe).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UpstreamPools } from '../../../src/backends/upstream/upstream.module';
import { BACKENDS, evmRpcFlags, startGatewayOver } from '../../support/backends';
import { until } from '../../support/fault-bench';
import { call, post, waitForHeight, type TestGateway } from '../../support/gateway';
import { compileTemplate } from '../../support/plugin-template';
import { WsClient } from '../../support/ws-client';

jest.setTimeout(120_000);

const work = mkdtempSync(join(tmpdir(), 'rpcgw-template-'));
const hello = join(work, 'hello');

beforeAll(() => void compileTemplate(work), 180_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function rpc(url: string, method: string, params: unknown[] = []): Promise<any> {
  return (await post(url, { jsonrpc: '2.0', id: 1, method, params })).json;
}

function answerOn(ws: WsClient, id: number, method: string, params: unknown[] = []): Promise<any> {
  ws.send({ jsonrpc: '2.0', id, method, params });
  return ws.next((m) => m.id === id, 30_000);
}

describe.each(BACKENDS)('the plugin template, %s backend', (kind) => {
  let gw: TestGateway;
  const counts = async () => (await rpc(gw.evmHttpUrl!, 'hello_counts')).result as { greeted: number; summarized: number; stopped: number };

  beforeAll(async () => {
    gw = await startGatewayOver(kind, {
      ...evmRpcFlags('eth,hello'),
      'plugins.load': hello,
      'plugins.node_api': 'hello',
      'limits.max_subscriptions_per_ip': '1',
    });
    await waitForHeight(gw.url, 2, 60_000);
    // Upstream, block 2 is final to the EVM pool (and its answers cacheable) once the pool's own head has
    // reached it: its health checks and head feed may be a moment behind the node's status.
    if (kind === 'upstream') await until(() => gw.app.get(UpstreamPools).evm.head >= 2n, 'the EVM pool at block 2', 30_000);
  }, 120_000);
  afterAll(() => gw?.close());

  it('answers its node route, computed from the backend, over POST and URI', async () => {
    const network = (await call(gw.url, 'status')).node_info.network as string;
    const shape = { network, height: expect.stringMatching(/^[1-9]\d*$/), pending_txs: expect.stringMatching(/^\d+$/) };
    expect(await post(gw.url, { jsonrpc: '2.0', id: 1, method: 'hello_status' })).toMatchObject({ json: { jsonrpc: '2.0', id: 1, result: shape } });
    expect(await (await fetch(`${gw.url}/hello_status`)).json()).toEqual({ jsonrpc: '2.0', id: -1, result: shape });
  });

  it('answers its computed method alike three times, its handler run once (the answer kept by its cache rule)', async () => {
    const block = (await rpc(gw.evmHttpUrl!, 'eth_getBlockByNumber', ['0x2', false])).result;
    const before = (await counts()).summarized;
    for (let i = 0; i < 3; i++) {
      expect((await rpc(gw.evmHttpUrl!, 'hello_blockSummary', ['0x2'])).result).toEqual({ number: '0x2', hash: block.hash, transactions: block.transactions.length });
    }
    expect((await counts()).summarized).toBe(before + 1);
  });

  it('pushes new blocks to its subscription until eth_unsubscribe, counted by the per-IP cap', async () => {
    const ws = await WsClient.open(gw.evmWsUrl!);
    try {
      const id = (await answerOn(ws, 1, 'hello_subscribe')).result as string;
      expect(id).toMatch(/^0x[0-9a-f]+$/);
      const ofIt = (m: any) => m.method === 'eth_subscription' && m.params.subscription === id;
      const note = await ws.next(ofIt, 60_000);
      expect(note.params.result).toEqual({ height: expect.stringMatching(/^[1-9]\d*$/), txs: expect.any(Number) });

      expect((await answerOn(ws, 2, 'eth_subscribe', ['newHeads'])).error.message).toMatch(/max_subscriptions_per_ip 1/);

      const stopped = (await counts()).stopped;
      expect((await answerOn(ws, 3, 'eth_unsubscribe', [id])).result).toBe(true);
      expect((await counts()).stopped).toBe(stopped + 1);
      expect((await answerOn(ws, 4, 'eth_unsubscribe', [id])).result).toBe(false);
      // Two blocks later, nothing more came under its id; its place under the cap is free again.
      const seen = ws.messages.filter(ofIt).length;
      const height = Number((await call(gw.url, 'status')).sync_info.latest_block_height);
      await waitForHeight(gw.url, height + 2, 60_000);
      expect(ws.messages.filter(ofIt).length).toBe(seen);
      expect((await answerOn(ws, 5, 'eth_subscribe', ['newHeads'])).result).toMatch(/^0x[0-9a-f]+$/);
    } finally {
      await ws.close();
    }
  });
});
