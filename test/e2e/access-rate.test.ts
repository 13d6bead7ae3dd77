/**
 * Rate limits (`[[access.rate]]`, rate-limiter-flexible in memory): per IP and per key, by method glob;
 * a batch counts each member and a WebSocket message counts as a call. Over budget: HTTP 429 with
 * Retry-After on a single HTTP call, -32005 "limit exceeded" on the EVM RPC, CometBFT's request-level
 * error on the node RPC; exempt CIDRs and keys; the client IP from X-Forwarded-For only behind a
 * trusted proxy; refusals counted under the rule's name.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { PipelineSocket } from '../support/raw-ws';
import { Exposition } from '../unit/metrics/exposition';

jest.setTimeout(60_000);

const EVM_FLAGS = { 'json-rpc.enable': 'true', 'json-rpc.address': '127.0.0.1:0', 'json-rpc.ws-address': '127.0.0.1:0' };
const rpc = (method: string, params: unknown = [], id: unknown = 1) => ({ jsonrpc: '2.0', id, method, params });

async function postWith(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, json: (await res.json()) as any };
}

function rule(name: string, methods: string[], limit: number, window = '30s', per = 'ip'): string {
  return `[[access.rate]]\nname = "${name}"\nmethods = ${JSON.stringify(methods)}\nper = "${per}"\nlimit = ${limit}\nwindow = "${window}"\n`;
}

async function gatewayWith(gatewayToml: string, flags: Record<string, string> = {}, files: Record<string, string> = {}): Promise<TestGateway & { dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'rpcgw-rate-'));
  mkdirSync(join(dir, 'config'));
  writeFileSync(join(dir, 'config', 'gateway.toml'), gatewayToml);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const gw = await startTestGateway({ ...EVM_FLAGS, 'devnet.block_time': '1h', ...flags }, dir);
  return {
    ...gw,
    dir,
    async close() {
      await gw.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('per-IP rules by method glob', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await gatewayWith(
      [
        rule('getlogs', ['eth_getLogs'], 3),
        rule('blocknumber', ['eth_blockNumber'], 3),
        rule('chainid', ['eth_chainId'], 2),
        rule('abci', ['abci_*'], 2),
        rule('node-status', ['status'], 1),
      ].join('\n'),
      { 'instrumentation.prometheus': 'true', 'instrumentation.prometheus_listen_addr': '127.0.0.1:0' },
    );
  });
  afterAll(() => gw?.close());

  it('EVM single call over budget: HTTP 429, Retry-After, -32005 "limit exceeded"', async () => {
    for (let i = 0; i < 3; i++) expect((await postWith(gw.evmHttpUrl!, rpc('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x0' }]))).status).toBe(200);
    const over = await postWith(gw.evmHttpUrl!, rpc('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x0' }], 9));
    expect(over.status).toBe(429);
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(30);
    expect(over.json).toEqual({ jsonrpc: '2.0', id: 9, error: { code: -32005, message: 'limit exceeded', data: { limit: 'getlogs', retryAfter } } });
    // Other methods are not counted by that rule.
    expect((await postWith(gw.evmHttpUrl!, rpc('net_version'))).status).toBe(200);
  });

  it('a batch counts each member: the members over budget get the error, HTTP 200 while some ran', async () => {
    const batch = [1, 2, 3, 4, 5].map((id) => rpc('eth_blockNumber', [], id));
    const res = await postWith(gw.evmHttpUrl!, batch);
    expect(res.status).toBe(200);
    expect(res.json.filter((m: any) => 'result' in m)).toHaveLength(3);
    const refused = res.json.filter((m: any) => 'error' in m);
    expect(refused.map((m: any) => m.error.code)).toEqual([-32005, -32005]);
    // All members over budget: 429.
    const all = await postWith(gw.evmHttpUrl!, [rpc('eth_blockNumber', [], 1), rpc('eth_blockNumber', [], 2)]);
    expect(all.status).toBe(429);
    expect(all.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('a WebSocket message counts as a call', async () => {
    const ws = await PipelineSocket.connect(gw.evmWsUrl!);
    ws.pipeline([1, 2, 3, 4].map((id) => rpc('eth_chainId', [], id)));
    const answers = await ws.collect(4);
    expect(answers.filter((m) => 'result' in m)).toHaveLength(2);
    expect(answers.filter((m) => 'error' in m).map((m) => m.error.message)).toEqual(['limit exceeded', 'limit exceeded']);
    await ws.close();
  });

  it('node RPC: CometBFT-style -32600 with the rule and wait as data; HTTP 429 over POST and URI', async () => {
    const url = gw.url;
    expect((await postWith(url, rpc('abci_info', {}))).status).toBe(200);
    expect((await fetch(`${url}/abci_info`)).status).toBe(200);
    const post = await postWith(url, rpc('abci_info', {}, 'x'));
    expect(post.status).toBe(429);
    expect(post.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(post.json).toEqual({ jsonrpc: '2.0', id: 'x', error: { code: -32600, message: 'Invalid Request', data: expect.stringMatching(/^rate limit exceeded \(abci\), retry after \d+s$/) } });
    const uri = await fetch(`${url}/abci_query?data=0x00`);
    expect(uri.status).toBe(429);
    expect(uri.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await uri.json()) as any).error.code).toBe(-32600);
    const ws = await PipelineSocket.connect(gw.wsUrl);
    ws.pipeline([rpc('status', {}, 1), rpc('status', {}, 2)]);
    const answers = (await ws.collect(2)).sort((a, b) => a.id - b.id);
    expect(answers[0].result.node_info).toBeDefined();
    expect(answers[1].error.data).toMatch(/^rate limit exceeded \(node-status\)/);
    await ws.close();
  });

  it('refusals are counted with reason="limit" and the rule name', async () => {
    const scrape = new Exposition(await (await fetch(`${gw.metricsUrl}/metrics`)).text());
    expect(scrape.value('rpcgw_refusals_total', { interface: 'evm', reason: 'limit', limit: 'getlogs' })).toBe(1);
    expect(scrape.value('rpcgw_refusals_total', { interface: 'evm', reason: 'limit', limit: 'blocknumber' })).toBe(4);
    expect(scrape.value('rpcgw_refusals_total', { interface: 'node', reason: 'limit', limit: 'abci' })).toBe(2);
  });
});

describe('exempt addresses, trusted proxies', () => {
  it('an exempt CIDR is never limited', async () => {
    const gw = await gatewayWith(rule('all', ['*'], 1), { 'access.exempt_cidrs': '10.0.0.0/8,127.0.0.1' });
    for (let i = 0; i < 5; i++) expect((await postWith(gw.evmHttpUrl!, rpc('eth_chainId'))).status).toBe(200);
    await gw.close();
  });

  it('X-Forwarded-For names the client only behind a trusted proxy', async () => {
    const untrusted = await gatewayWith(rule('all', ['*'], 1));
    const forged = { 'X-Forwarded-For': '203.0.113.7' };
    expect((await postWith(untrusted.evmHttpUrl!, rpc('eth_chainId'), forged)).status).toBe(200);
    // The header is ignored: the same peer address, over budget.
    expect((await postWith(untrusted.evmHttpUrl!, rpc('eth_chainId'), { 'X-Forwarded-For': '203.0.113.8' })).status).toBe(429);
    await untrusted.close();

    const proxied = await gatewayWith(rule('all', ['*'], 1), { 'access.trusted_proxies': '127.0.0.0/8' });
    const from = (ip: string) => ({ 'X-Forwarded-For': `${ip}, 127.0.0.1` });
    expect((await postWith(proxied.evmHttpUrl!, rpc('eth_chainId'), from('203.0.113.7'))).status).toBe(200);
    expect((await postWith(proxied.evmHttpUrl!, rpc('eth_chainId'), from('203.0.113.7'))).status).toBe(429);
    expect((await postWith(proxied.evmHttpUrl!, rpc('eth_chainId'), from('203.0.113.8'))).status).toBe(200);
    // A client cannot forge an address left of what the proxy appended.
    expect((await postWith(proxied.evmHttpUrl!, rpc('eth_chainId'), { 'X-Forwarded-For': '198.51.100.1, 203.0.113.8' })).status).toBe(429);
    // WebSocket upgrades see the same address.
    const ws = await PipelineSocket.connect(proxied.evmWsUrl!, from('203.0.113.9'));
    ws.pipeline([rpc('eth_chainId', [], 1), rpc('eth_chainId', [], 2)]);
    expect((await ws.collect(2)).filter((m) => 'error' in m)).toHaveLength(1);
    await ws.close();
    await proxied.close();
  });
});

describe('per-key budgets', () => {
  const KEYS = `
[[keys]]
name = "small"
key = "small-key-123456"

[[keys]]
name = "big"
key = "big-key-1234567"
[[keys.rate]]
name = "big-budget"
methods = ["*"]
limit = 6
window = "30s"

[[keys]]
name = "partner"
key = "partner-key-1234"
exempt = true
`;
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await gatewayWith(rule('per-key', ['*'], 2, '30s', 'key'), { 'access.keys_file': 'keys.toml' }, { 'keys.toml': KEYS });
  });
  afterAll(() => gw?.close());

  const calls = async (key: string, n: number) => {
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) statuses.push((await postWith(gw.evmHttpUrl!, rpc('eth_chainId'), { 'x-api-key': key })).status);
    return statuses;
  };

  it('each key has its own budget; a key may carry a bigger one; an exempt key has none', async () => {
    expect(await calls('small-key-123456', 3)).toEqual([200, 200, 429]);
    expect(await calls('big-key-1234567', 7)).toEqual([200, 200, 200, 200, 200, 200, 429]);
    expect(await calls('partner-key-1234', 10)).toEqual(Array(10).fill(200));
    const over = await postWith(gw.evmHttpUrl!, rpc('eth_chainId'), { 'x-api-key': 'small-key-123456' });
    expect(over.json.error.data.limit).toBe('per-key');
  });
});

describe('bad rules stop start-up with one line', () => {
  it.each([
    [rule('r', ['eth_*'], 0), /\[\[access.rate\]\] #1 limit = 0: expected an integer from 1 to 9007199254740991/],
    [rule('r', ['eth_*'], 1, '1500ms'), /\[\[access.rate\]\] #1 window = "1500ms": expected a duration of whole seconds/],
    [rule('r', ['eth_*'], 1, '1s', 'team'), /per = "team": expected one of ip, key/],
    [rule('r', ['eth_*'], 1) + rule('r', ['net_*'], 1), /#2 name = "r": expected a name not used by another \[\[access.rate\]\]/],
  ])('%s', async (toml, message) => {
    await expect(gatewayWith(toml)).rejects.toThrow(message);
  });
});
