/**
 * The app is assembled from the configuration: an EVM namespace nobody can be served (not in
 * `[json-rpc] api`, granted by no API key) builds no module, one that a key grants is built and served
 * to that key only, `[json-rpc] enable = false` builds no EVM engine, and a worker builds neither
 * interface.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdminModule } from '../../src/evm-rpc/admin/admin.module';
import { DebugModule } from '../../src/evm-rpc/debug/debug.module';
import { DebugRuntimeMethods } from '../../src/evm-rpc/debug/runtime.methods';
import { EthModule } from '../../src/evm-rpc/eth/eth.module';
import { TxpoolModule } from '../../src/evm-rpc/txpool/txpool.module';
import { loadConfig } from '../../src/config/load-config';
import { startWorker } from '../../src/queue/worker-process';
import { RPC_ENGINE } from '../../src/rpc/registration';
import { post, startTestGateway, type TestGateway } from '../support/gateway';

jest.setTimeout(60_000);

const EVM = { 'json-rpc.enable': 'true', 'json-rpc.address': '127.0.0.1:0', 'json-rpc.ws-address': '127.0.0.1:0', 'json-rpc.api': 'eth,net,web3' };
const KEY = 'debug-key-3e1f0a77';
const rpc = (method: string) => ({ jsonrpc: '2.0', id: 1, method, params: [] });

/** Whether the app's container holds a provider or module. */
function built(gw: TestGateway, token: Parameters<TestGateway['app']['get']>[0]): boolean {
  try {
    gw.app.get(token, { strict: false });
    return true;
  } catch {
    return false;
  }
}

function homeWith(keys?: string): string {
  const home = mkdtempSync(join(tmpdir(), 'rpcgw-modules-'));
  mkdirSync(join(home, 'config'));
  if (keys !== undefined) writeFileSync(join(home, 'keys.toml'), keys);
  return home;
}

describe('namespaces nobody is served', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(EVM, homeWith());
  });
  afterAll(async () => {
    await gw?.close();
    rmSync(gw.home, { recursive: true, force: true });
  });

  it('build no module and no provider', () => {
    expect(built(gw, EthModule)).toBe(true);
    for (const token of [DebugModule, DebugRuntimeMethods, AdminModule, TxpoolModule]) expect(built(gw, token)).toBe(false);
  });

  it('answer as a disabled namespace does', async () => {
    const answer = (await post(gw.evmHttpUrl!, rpc('debug_memStats'))).json;
    expect(answer.error).toEqual({ code: -32601, message: 'the method debug_memStats does not exist/is not available' });
  });
});

describe('a namespace an API key grants', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    const home = homeWith(`[[keys]]\nname = "ops"\nkey = "${KEY}"\nnamespaces = ["debug"]\n\n[[keys]]\nname = "plain"\nkey = "plain-key-9c4d"\n`);
    // debug_memStats is a runtime method: served with enable-profiling, as in cosmos/evm.
    gw = await startTestGateway({ ...EVM, 'access.keys_file': 'keys.toml', 'json-rpc.enable-profiling': 'true' }, home);
  });
  afterAll(async () => {
    await gw?.close();
    rmSync(gw.home, { recursive: true, force: true });
  });

  it('is built, and served to that key only', async () => {
    expect(built(gw, DebugRuntimeMethods)).toBe(true);
    expect(built(gw, AdminModule)).toBe(false);
    const withKey = await fetch(gw.evmHttpUrl!, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body: JSON.stringify(rpc('debug_memStats')) });
    expect(((await withKey.json()) as { result: object }).result).toHaveProperty('HeapAlloc');
    const plain = await fetch(gw.evmHttpUrl!, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'plain-key-9c4d' }, body: JSON.stringify(rpc('debug_memStats')) });
    expect(((await plain.json()) as { error: { code: number } }).error.code).toBe(-32601);
  });
});

describe('without the EVM RPC', () => {
  it('[json-rpc] enable = false builds no EVM engine', async () => {
    const gw = await startTestGateway({}, homeWith());
    try {
      expect(built(gw, RPC_ENGINE.node)).toBe(true);
      expect(built(gw, RPC_ENGINE.evm)).toBe(false);
      expect(built(gw, EthModule)).toBe(false);
      expect(gw.evmHttpUrl).toBeUndefined();
    } finally {
      await gw.close();
      rmSync(gw.home, { recursive: true, force: true });
    }
  });
});

describe('a worker', () => {
  it('builds the queue and the backend, and neither interface', async () => {
    const home = homeWith();
    writeFileSync(join(home, 'config', 'gateway.toml'), '[backend]\nkind = "upstream"\n\n[[upstream.node]]\nname = "none"\nurl = "http://127.0.0.1:9"\n');
    const worker = await startWorker(loadConfig({ home, env: { REDIS_URL: 'redis://127.0.0.1:6379' }, flags: { 'json-rpc.enable': 'true' } }), { logger: false });
    try {
      for (const token of [RPC_ENGINE.node, RPC_ENGINE.evm, EthModule]) expect(() => worker.app.get(token, { strict: false })).toThrow();
    } finally {
      await worker.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
