/**
 * nestjs-pino really loads and works here (Node 20, though it declares node >= 22.12): the gateway's
 * Nest logs and its request log come out as JSON lines, with request ids, at the configured level.
 */
import { Logger } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { startGateway, type RunningGateway } from '../../../src/bootstrap';
import { loadConfig } from '../../../src/config/load-config';

const lines: any[] = [];
const destination = new Writable({
  write(chunk, _enc, done) {
    for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
    done();
  },
});

let gw: RunningGateway;
let url: string;
const home = mkdtempSync(join(tmpdir(), 'rpcgw-log-'));

beforeAll(async () => {
  const config = loadConfig({
    home,
    env: {},
    flags: { 'rpc.laddr': 'tcp://127.0.0.1:0', 'json-rpc.enable': 'false', 'devnet.block_time': '1h', 'log.level': 'debug' },
  });
  gw = await startGateway(config, { logDestination: destination });
  url = gw.nodeRpcUrls[0];
});

afterAll(async () => {
  await gw?.close();
  rmSync(home, { recursive: true, force: true });
});

const settle = () => new Promise((r) => setTimeout(r, 20));

it("Nest's own logs are pino JSON lines (nestjs-pino); its start-up chatter is at debug", async () => {
  Logger.log('hello from a module', 'SomeModule');
  await settle();
  // Framework chatter is debug, not info.
  expect(lines).toContainEqual(expect.objectContaining({ level: 'debug', context: 'NestFactory', msg: 'Starting Nest application...' }));
  expect(lines).toContainEqual(expect.objectContaining({ level: 'debug', context: 'InstanceLoader', msg: 'AppModule dependencies initialized' }));
  expect(lines.filter((l) => l.level === 'info' && ['NestFactory', 'InstanceLoader'].includes(l.context))).toEqual([]);
  expect(lines).toContainEqual(expect.objectContaining({ level: 'info', context: 'SomeModule', msg: 'hello from a module', name: 'rpc-gateway' }));
});

it('one debug line per call; a batch shares its request id; X-Request-Id is kept; errors are warn', async () => {
  lines.length = 0;
  await fetch(`${url}/health`, { headers: { 'X-Request-Id': 'probe-7' } });
  const batch = [
    { jsonrpc: '2.0', id: 1, method: 'health' },
    { jsonrpc: '2.0', id: 2, method: 'no_such_method' },
  ];
  await fetch(`${url}/`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(batch) });
  await settle();
  const calls = lines.filter((l) => l.msg === 'rpc call' || l.msg === 'rpc error');
  expect(calls).toHaveLength(3);
  expect(calls[0]).toEqual(expect.objectContaining({ level: 'debug', msg: 'rpc call', reqId: 'probe-7', transport: 'uri', method: 'health' }));
  // The batch's two reads run together, so their lines may come in either order.
  const [health, unknown] = [1, 2].map((id) => calls.find((l) => l.id === id)!);
  expect(health).toEqual(expect.objectContaining({ level: 'debug', msg: 'rpc call', transport: 'jsonrpc', method: 'health' }));
  expect(unknown).toEqual(expect.objectContaining({ level: 'warn', msg: 'rpc error', transport: 'jsonrpc', method: 'no_such_method', code: -32601 }));
  expect(health.reqId).toBe(unknown.reqId);
  expect(health.reqId).not.toBe('probe-7');
});
