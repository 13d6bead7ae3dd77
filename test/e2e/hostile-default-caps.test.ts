/**
 * The per-IP and per-connection caps a public endpoint gets by default (issue 24, finding 7), over real
 * sockets with no cap configured: one batch of 210 eth_newBlockFilter installs `max_filters_per_ip` (50)
 * with the node's own error for the others and leaves filter-cap room for other addresses; one socket's
 * 150 eth_subscribe open `max_evm_subscriptions_per_connection` (100); an address opens
 * `max_ws_connections_per_ip` (50) WebSockets.
 */
import { request } from 'node:http';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { PipelineSocket } from '../support/raw-ws';

jest.setTimeout(120_000);

interface Answer {
  readonly id: number;
  readonly result?: string;
  readonly error?: { readonly code: number; readonly message: string };
}

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ 'json-rpc.enable': 'true', 'json-rpc.address': '127.0.0.1:0', 'json-rpc.ws-address': '127.0.0.1:0', 'devnet.block_time': '1h' });
});
afterAll(() => gw?.close());

const calls = (n: number, method: string, params: unknown[] = []) => Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method, params }));

/** POSTs `body` to the EVM HTTP listener from `localAddress`. */
function postFrom(localAddress: string, body: unknown): Promise<Answer[]> {
  const url = new URL(gw.evmHttpUrl!);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method: 'POST', localAddress, headers: { 'Content-Type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve(JSON.parse(text) as Answer[]));
    });
    req.once('error', reject);
    req.end(JSON.stringify(body));
  });
}

it('a batch of 210 eth_newBlockFilter from one address installs 50; other addresses still get filters', async () => {
  const answers = await postFrom('127.0.0.1', calls(210, 'eth_newBlockFilter'));
  expect(answers.filter((a) => a.result !== undefined)).toHaveLength(50);
  const refused = answers.filter((a) => a.error !== undefined);
  expect(refused).toHaveLength(160);
  for (const a of refused) expect(a.error).toEqual({ code: -32000, message: 'error creating block filter: max limit reached' });
  const other = await postFrom('127.0.0.2', calls(3, 'eth_newBlockFilter'));
  expect(other.every((a) => typeof a.result === 'string')).toBe(true);
});

it('150 eth_subscribe on one socket open 100 subscriptions', async () => {
  const ws = await PipelineSocket.connect(gw.evmWsUrl!);
  ws.pipeline(calls(150, 'eth_subscribe', ['newHeads']));
  const answers = (await ws.collect(150)) as Answer[];
  expect(answers.filter((a) => a.result !== undefined)).toHaveLength(100);
  for (const a of answers.filter((a) => a.error !== undefined)) expect(a.error).toEqual({ code: -32000, message: 'max_evm_subscriptions_per_connection 100 reached' });
  // Another connection of the same address has its own 100.
  const second = await PipelineSocket.connect(gw.evmWsUrl!);
  second.pipeline(calls(1, 'eth_subscribe', ['newHeads']));
  expect(((await second.collect(1)) as Answer[])[0].result).toMatch(/^0x/);
  await Promise.all([ws.close(), second.close()]);
});

it('one address opens 50 WebSockets on an interface; the 51st handshake gets 429', async () => {
  const opened = [];
  for (let i = 0; i < 51; i++) opened.push(await PipelineSocket.open(gw.wsUrl));
  expect(opened.slice(0, 50).every((o) => o.ok)).toBe(true);
  const last = opened[50];
  expect(last.ok ? 0 : last.status).toBe(429);
  for (const o of opened) if (o.ok) await o.ws.close();
});
