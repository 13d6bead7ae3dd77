import 'reflect-metadata';
import { GATEWAY_METADATA } from '@nestjs/websockets/constants';
import WebSocket from 'ws';
import { EvmWsGateway } from '../../src/evm-rpc/transports/ws/evm-ws.gateway';
import { NodeWsGateway } from '../../src/node-rpc/transports/node-ws.gateway';
import { Listeners } from '../../src/rpc/listeners';
import { JsonRpcWsGateway } from '../../src/rpc/ws-gateway';
import { PipelineSocket } from '../support/raw-ws';
import { startTestGateway, type TestGateway } from '../support/gateway';

interface Answer {
  readonly jsonrpc: string;
  readonly id: number;
  readonly result?: unknown;
  readonly error?: unknown;
}

/** The JSON-RPC answer to `body` on a fresh socket. */
async function ask(url: string, body: object): Promise<{ ws: PipelineSocket; answer: Answer }> {
  const opened = await PipelineSocket.open(url);
  if (!opened.ok) throw new Error(`handshake refused: ${opened.status} ${opened.body}`);
  opened.ws.socket.send(JSON.stringify(body));
  await new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      if (opened.ws.messages.length > 0) {
        clearInterval(poll);
        resolve();
      }
    }, 5);
  });
  return { ws: opened.ws, answer: opened.ws.messages[0] as Answer };
}

const closed = (socket: WebSocket) => new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));

describe('WebSocket transports as Nest gateways', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({ 'json-rpc.enable': 'true', 'json-rpc.address': '127.0.0.1:0', 'json-rpc.ws-address': '127.0.0.1:0' });
  });

  afterAll(async () => {
    await gw?.close();
  });

  it('the Nest container holds both gateways, each a @WebSocketGateway', () => {
    for (const gateway of [NodeWsGateway, EvmWsGateway]) {
      expect(Reflect.getMetadata(GATEWAY_METADATA, gateway)).toBe(true);
      expect(gw.app.get(gateway)).toBeInstanceOf(JsonRpcWsGateway);
    }
  });

  it('serves the node RPC on /websocket of the HTTP port, and the EVM RPC on its own port', async () => {
    const node = await ask(gw.wsUrl, { jsonrpc: '2.0', id: 1, method: 'health', params: {} });
    expect(node.answer).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(new URL(gw.wsUrl).port).toBe(new URL(gw.url).port);
    const evm = await ask(gw.evmWsUrl!, { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] });
    expect(evm.answer).toMatchObject({ jsonrpc: '2.0', id: 2, result: expect.stringMatching(/^0x[0-9a-f]+$/) });
    expect(new URL(gw.evmWsUrl!).port).not.toBe(new URL(gw.evmHttpUrl!).port);
    // Nest's server of each gateway counts its clients: the connections metric reads them.
    expect(gw.app.get(Listeners).connections('node').ws).toBe(1);
    expect(gw.app.get(Listeners).connections('evm').ws).toBe(1);
    node.ws.socket.close();
    evm.ws.socket.close();
  });

  it('turns away what no gateway serves before the handshake', async () => {
    const opened = await PipelineSocket.open(gw.url.replace(/^http/, 'ws') + '/elsewhere');
    expect(opened).toEqual({ ok: false, status: 404, body: '404 page not found\n' });
  });

  it('closes every WebSocket with 1001 on shutdown', async () => {
    const node = await ask(gw.wsUrl, { jsonrpc: '2.0', id: 1, method: 'health', params: {} });
    const evm = await ask(gw.evmWsUrl!, { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] });
    const codes = Promise.all([closed(node.ws.socket), closed(evm.ws.socket)]);
    await gw.close();
    expect(await codes).toEqual([1001, 1001]);
  });
});
