/**
 * The EVM RPC's series on /metrics: after a known sequence of EVM calls over HTTP (a single call, a
 * batch, a filter) and WebSocket (eth_subscribe), one scrape is checked for request and response
 * bytes, batch sizes, open connections, subscriptions and filters, all fed by the one engine.
 */
import { request } from 'node:http';
import WebSocket from 'ws';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { Exposition } from '../unit/metrics/exposition';

/** One HTTP POST on its own connection (closed after), so that open connections are known. */
function post(url: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: false, headers: { Connection: 'close', 'Content-Type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const rpc = (id: number, method: string, params: unknown[] = []) => JSON.stringify({ jsonrpc: '2.0', id, method, params });
const bytes = (text: string) => Buffer.byteLength(text);

let gw: TestGateway;
const scrape = async () => new Exposition(await (await fetch(`${gw.metricsUrl}/metrics`)).text());
const evm = (e: Exposition, name: string, labels: Record<string, string> = {}) => e.value(name, { interface: 'evm', ...labels });

beforeAll(async () => {
  gw = await startTestGateway({
    'instrumentation.prometheus': 'true',
    'instrumentation.prometheus_listen_addr': '127.0.0.1:0',
    'json-rpc.enable': 'true',
    'json-rpc.address': '127.0.0.1:0',
    'json-rpc.ws-address': '127.0.0.1:0',
    'devnet.block_time': '1h',
  });
});

afterAll(() => gw?.close());

it('request and response bytes, batch sizes, connections, subscriptions and filters of the EVM RPC', async () => {
  const sent = { jsonrpc: 0, ws: 0 };
  const answered = { jsonrpc: 0, ws: 0 };
  const http = async (body: string) => {
    sent.jsonrpc += bytes(body);
    const reply = await post(gw.evmHttpUrl!, body);
    // The JSON answer; the newline go-ethereum writes after it is HTTP framing, as headers are.
    answered.jsonrpc += bytes(reply.replace(/\n$/, ''));
    return JSON.parse(reply);
  };

  expect((await http(rpc(1, 'eth_chainId'))).result).toMatch(/^0x/);
  const batch = await http(`[${rpc(2, 'eth_blockNumber')},${rpc(3, 'net_version')},${rpc(4, 'web3_clientVersion')}]`);
  expect(batch).toHaveLength(3);
  const filter = (await http(rpc(5, 'eth_newBlockFilter'))).result as string;
  expect(filter).toMatch(/^0x/);

  const ws = new WebSocket(gw.evmWsUrl!);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const subscribe = rpc(6, 'eth_subscribe', ['newHeads']);
  const reply = new Promise<string>((resolve) => ws.once('message', (data) => resolve(data.toString())));
  ws.send(subscribe);
  sent.ws += bytes(subscribe);
  const subscribed = await reply;
  answered.ws += bytes(subscribed);
  expect(JSON.parse(subscribed).result).toMatch(/^0x/);

  const m = await scrape();
  expect(evm(m, 'rpcgw_request_bytes_total', { transport: 'jsonrpc' })).toBe(sent.jsonrpc);
  expect(evm(m, 'rpcgw_response_bytes_total', { transport: 'jsonrpc' })).toBe(answered.jsonrpc);
  expect(evm(m, 'rpcgw_request_bytes_total', { transport: 'ws' })).toBe(sent.ws);
  expect(evm(m, 'rpcgw_response_bytes_total', { transport: 'ws' })).toBe(answered.ws);
  expect(evm(m, 'rpcgw_batch_size_count')).toBe(1);
  expect(evm(m, 'rpcgw_batch_size_sum')).toBe(3);
  expect(evm(m, 'rpcgw_open_connections', { protocol: 'ws' })).toBe(1);
  expect(evm(m, 'rpcgw_open_connections', { protocol: 'http' })).toBe(0);
  expect(m.series('rpcgw_subscriptions').filter((row) => row.interface === 'evm')).toEqual([{ interface: 'evm', kind: 'newHeads', value: 1 }]);
  expect(m.series('rpcgw_filters')).toEqual([{ kind: 'block', value: 1 }]);
  expect(evm(m, 'rpcgw_requests_total', { transport: 'jsonrpc', method: 'eth_blockNumber', outcome: 'ok' })).toBe(1);
  expect(evm(m, 'rpcgw_requests_total', { transport: 'ws', method: 'eth_subscribe', outcome: 'ok' })).toBe(1);

  // The subscription and the filter end with the connection and the uninstall.
  const closed = new Promise((resolve) => ws.once('close', resolve));
  ws.close();
  await closed;
  expect((await http(rpc(7, 'eth_uninstallFilter', [filter]))).result).toBe(true);
  for (let i = 0; i < 100; i++) {
    const after = await scrape();
    if (evm(after, 'rpcgw_open_connections', { protocol: 'ws' }) === 0) {
      expect(after.series('rpcgw_subscriptions').filter((row) => row.interface === 'evm' && row.value !== 0)).toEqual([]);
      expect(after.series('rpcgw_filters').filter((row) => row.value !== 0)).toEqual([]);
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the WebSocket was never counted as closed');
});
