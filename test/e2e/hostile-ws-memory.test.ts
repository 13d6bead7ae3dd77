/**
 * Memory bounded per WebSocket connection, over real sockets (issue 24, finding 4): clients that send
 * batches of heavy reads and never read what comes back. The gateway stops reading them once their
 * outbound bytes reach WS_MAX_QUEUED_BYTES or WS_MAX_IN_FLIGHT messages are being served, holds no more
 * than that for them, closes them once their writes stall for WS_WRITE_TIMEOUT_MS, and serves other
 * clients meanwhile.
 */
import { WebSocket } from 'ws';
import { EvmWsGateway } from '../../src/evm-rpc/transports/ws/evm-ws.gateway';
import { WS_MAX_IN_FLIGHT, WS_MAX_QUEUED_BYTES } from '../../src/rpc/ws-connection';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { PipelineSocket } from '../support/raw-ws';

jest.setTimeout(120_000);

const ATTACKERS = 2;
// Enough that each attacker's answers pass WS_MAX_QUEUED_BYTES plus what the kernel buffers (a
// paused reader's receive window and the sender's autotuned send buffer, some MiB) several times over:
// the gateway stops reading long before it has served them all.
const BATCHES = 300;
const BATCH = Array.from({ length: 200 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_getBlockByNumber', params: ['latest', true] }));

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ 'json-rpc.enable': 'true', 'json-rpc.address': '127.0.0.1:0', 'json-rpc.ws-address': '127.0.0.1:0', 'devnet.block_time': '1h' });
});
afterAll(() => gw?.close());

/** A client that sends `BATCHES` batches and never reads a byte of what comes back. */
async function nonReader(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  ws.on('error', () => undefined);
  ws.pause();
  const text = JSON.stringify(BATCH);
  for (let i = 0; i < BATCHES; i++) ws.send(text);
  return ws;
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 100));
}

it('clients that never read: the gateway stops reading them, holds a bounded amount, serves others, then closes them', async () => {
  const gateway = gw.app.get(EvmWsGateway);
  const attackers = await Promise.all(Array.from({ length: ATTACKERS }, () => nonReader(gw.evmWsUrl!)));
  const answerBytes = JSON.stringify(BATCH).length * 20;

  // Every attacker's queue fills: the gateway stops reading it, with calls waiting behind the budget.
  await until(() => gateway.load.outboundBytes >= ATTACKERS * WS_MAX_QUEUED_BYTES * 0.9);
  const held = gateway.load;
  expect(held.outboundBytes).toBeLessThanOrEqual(ATTACKERS * (WS_MAX_QUEUED_BYTES + answerBytes));
  expect(held.inFlight).toBeLessThanOrEqual(ATTACKERS * WS_MAX_IN_FLIGHT);

  // Another client is served meanwhile, over both interfaces.
  const other = await PipelineSocket.connect(gw.evmWsUrl!);
  other.pipeline([{ jsonrpc: '2.0', id: 1, method: 'eth_chainId' }]);
  expect((await other.collect(1))[0].result).toMatch(/^0x/);
  expect(((await (await fetch(gw.url + '/health')).json()) as { result: unknown }).result).toEqual({});

  // Nothing more is read from them while they do not read: what the gateway holds stays bounded.
  const later = gateway.load;
  expect(later.outboundBytes).toBeLessThanOrEqual(ATTACKERS * (WS_MAX_QUEUED_BYTES + answerBytes));
  expect(later.inFlight + later.waiting).toBeLessThanOrEqual(held.inFlight + held.waiting + ATTACKERS * WS_MAX_IN_FLIGHT);

  // Their writes stall: the gateway closes them and lets go of what it held; the other client stays.
  await until(() => gateway.connections === 1);
  expect(gateway.load).toEqual({ outboundBytes: 0, inFlight: 0, waiting: 0 });
  other.pipeline([{ jsonrpc: '2.0', id: 2, method: 'eth_chainId' }]);
  expect((await other.collect(1, (m) => m.id === 2))[0].result).toMatch(/^0x/);
  await other.close();
  for (const ws of attackers) ws.terminate();
});
