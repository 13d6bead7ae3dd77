/**
 * Every request costs its rate budget, parsed or not (issue 24, finding 6): 50 KB bodies that are not
 * JSON, against a 20-call rule on every method, get the parse error 20 times and then 429, on the node
 * RPC and the EVM RPC, over HTTP and WebSocket; a budget spent on junk is spent for real calls too.
 * Past the budget a request is refused before its body is read into memory or parsed.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { PipelineSocket } from '../support/raw-ws';

jest.setTimeout(60_000);

interface JsonRpcAnswer {
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error: { readonly code: number; readonly message: string; readonly data?: string };
}

const LIMIT = 20;
const JUNK = 'x'.repeat(50 * 1024);
let gw: TestGateway;
let home: string;

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'rpcgw-junk-'));
  mkdirSync(join(home, 'config'));
  writeFileSync(join(home, 'config', 'gateway.toml'), `[[access.rate]]\nname = "all"\nmethods = ["*"]\nper = "ip"\nlimit = ${LIMIT}\nwindow = "1m"\n`);
  gw = await startTestGateway(
    {
      'json-rpc.enable': 'true',
      'json-rpc.address': '127.0.0.1:0',
      'json-rpc.ws-address': '127.0.0.1:0',
      'devnet.block_time': '1h',
      'instrumentation.prometheus': 'true',
      'instrumentation.prometheus_listen_addr': '127.0.0.1:0',
    },
    home,
  );
});
afterEach(async () => {
  await gw?.close();
  rmSync(home, { recursive: true, force: true });
});

async function statuses(url: string, count: number): Promise<Array<{ status: number; json: JsonRpcAnswer }>> {
  const out: Array<{ status: number; json: JsonRpcAnswer }> = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JUNK });
    out.push({ status: res.status, json: (await res.json()) as JsonRpcAnswer });
  }
  return out;
}

it('node RPC over HTTP: junk is a parse error within the budget, 429 past it, and real calls are over budget too', async () => {
  const answers = await statuses(gw.url, LIMIT + 10);
  expect(answers.filter((a) => a.status === 500)).toHaveLength(LIMIT);
  const refused = answers.slice(LIMIT);
  expect(refused.every((a) => a.status === 429)).toBe(true);
  expect(refused[0].json.error.code).toBe(-32600);
  const real = await fetch(gw.url, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"health"}' });
  expect(real.status).toBe(429);
});

it('EVM RPC over HTTP: -32005 "limit exceeded" with 429 past the budget', async () => {
  const answers = await statuses(gw.evmHttpUrl!, LIMIT + 10);
  expect(answers.filter((a) => a.status === 200 && a.json.error.code === -32700)).toHaveLength(LIMIT);
  const refused = answers.slice(LIMIT);
  expect(refused.every((a) => a.status === 429 && a.json.error.code === -32005 && a.json.id === null)).toBe(true);
});

it('WebSocket messages that do not parse count too, on both interfaces', async () => {
  for (const [url, code] of [[gw.wsUrl, -32600], [gw.evmWsUrl!, -32005]] as const) {
    const ws = await PipelineSocket.connect(url);
    ws.pipeline(Array.from({ length: LIMIT + 5 }, () => JUNK));
    const answers = await ws.collect(LIMIT + 5);
    expect(answers.filter((a) => a.error.code === -32700)).toHaveLength(url === gw.wsUrl ? LIMIT : 0);
    expect(answers.filter((a) => a.error.code === code && /limit|Invalid/.test(a.error.message)).length).toBeGreaterThanOrEqual(5);
    await ws.close();
  }
});

/** Bytes of request bodies that reached the engine of an interface over HTTP. */
async function engineBytes(rpc: 'node' | 'evm'): Promise<number> {
  const text = await (await fetch(`${gw.metricsUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('rpcgw_request_bytes_total{') && l.includes(`interface="${rpc}"`) && l.includes('transport="jsonrpc"'));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

it.each([
  ['node', 1_000_000],
  ['evm', 5 * 1024 * 1024],
] as const)('%s RPC: bodies of junk at its size limit past the budget are refused before they are read or parsed', async (rpc, size) => {
  const body = 'x'.repeat(size);
  const url = rpc === 'node' ? gw.url : gw.evmHttpUrl!;
  const seen: number[] = [];
  for (let i = 0; i < LIMIT + 10; i++) seen.push((await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })).status);
  expect(seen.slice(LIMIT)).toEqual(Array(10).fill(429));
  // The bodies within the budget and the one that found it spent reached the engine; no other did.
  expect(await engineBytes(rpc)).toBe((LIMIT + 1) * size);
});
