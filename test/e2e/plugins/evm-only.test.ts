/**
 * An EVM-only upstream deployment (upstream mode over one anvil, no node RPC upstream) serves a plugin
 * subscription fed by `ctx.events`: the EVM pool's new blocks reach it as NewBlock events, its pushes go
 * out under a gateway-made id, the per-IP subscription cap counts it with built-in ones, and
 * eth_unsubscribe ends it.
 */
import { join, resolve } from 'node:path';
import { Anvil } from '../../support/anvil';
import { evmRpcFlags } from '../../support/backends';
import { post, type TestGateway } from '../../support/gateway';
import { startUpstreamGateway } from '../../support/upstream';
import { WsClient } from '../../support/ws-client';

jest.setTimeout(90_000);

const FIXTURE = join(resolve(__dirname, '../../fixtures/plugins'), 'heads.ts');

function answerOn(ws: WsClient, id: number, method: string, params: unknown[] = []): Promise<any> {
  ws.send({ jsonrpc: '2.0', id, method, params });
  return ws.next((m) => m.id === id);
}

describe('an EVM-only upstream deployment', () => {
  let anvil: Anvil;
  let gw: TestGateway;

  beforeAll(async () => {
    anvil = await Anvil.start({ chainId: 9000 });
    gw = await startUpstreamGateway([], {
      evm: [{ name: 'anvil', url: anvil.url, ws: anvil.wsUrl }],
      flags: { ...evmRpcFlags('eth,heads'), 'plugins.load': FIXTURE, 'limits.max_subscriptions_per_ip': '1' },
    });
  });
  afterAll(async () => {
    await gw?.close();
    anvil?.kill();
  });

  it('serves a plugin subscription of new blocks, counted by the per-IP cap and ended by eth_unsubscribe', async () => {
    const ws = await WsClient.open(gw.evmWsUrl!);
    try {
      const id = (await answerOn(ws, 1, 'heads_subscribe')).result as string;
      expect(id).toMatch(/^0x[0-9a-f]+$/);
      const note = ws.next((m) => m.method === 'eth_subscription' && m.params.subscription === id, 30_000);
      // Blocks until one is announced (anvil mines one per evm_mine).
      let pushed: any;
      void note.then((m) => (pushed = m));
      for (let i = 0; i < 150 && pushed === undefined; i++) {
        await anvil.rpc('evm_mine');
        await new Promise((r) => setTimeout(r, 200));
      }
      expect((await note).params.result).toMatch(/^[1-9]\d*$/);

      const cap = await answerOn(ws, 2, 'eth_subscribe', ['newHeads']);
      expect(cap.error.message).toMatch(/max_subscriptions_per_ip 1/);
      expect((await answerOn(ws, 3, 'heads_subscribe')).error.message).toMatch(/max_subscriptions_per_ip 1/);

      expect((await answerOn(ws, 4, 'eth_unsubscribe', [id])).result).toBe(true);
      expect((await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 5, method: 'heads_stopped', params: [] })).json.result).toBe(1);
      // The place it held is free again.
      expect((await answerOn(ws, 6, 'eth_subscribe', ['newHeads'])).result).toMatch(/^0x[0-9a-f]+$/);
    } finally {
      await ws.close();
    }
  });
});
