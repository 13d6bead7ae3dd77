/**
 * `[json-rpc] allow-insecure-unlock` as Evmos obeys it: off, every call that uses or lists node-held keys
 * answers `account unlock with HTTP access is forbidden` (miner_setEtherbase answers false), over HTTP and
 * WebSocket alike; on (Evmos's default), they work. Real sockets, the embedded devnet.
 */
import { evmRpcFlags } from '../support/backends';
import { post, startTestGateway, type TestGateway } from '../support/gateway';
import { WsClient } from '../support/ws-client';
import { testProvider } from '../support/ethers-provider';

jest.setTimeout(120_000);

const FORBIDDEN = { code: -32000, message: 'account unlock with HTTP access is forbidden' };
const API = 'eth,net,web3,personal,miner';
const gateways: TestGateway[] = [];

afterAll(async () => {
  await Promise.all(gateways.map((gw) => gw.close()));
});

async function gateway(allow: string): Promise<TestGateway> {
  const gw = await startTestGateway({ ...evmRpcFlags(API), 'json-rpc.allow-insecure-unlock': allow });
  gateways.push(gw);
  return gw;
}

const rpc = async (gw: TestGateway, method: string, params: unknown[]): Promise<any> =>
  (await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 1, method, params })).json;

describe('allow-insecure-unlock = false', () => {
  let gw: TestGateway;
  let from: string;

  beforeAll(async () => {
    gw = await gateway('false');
    from = (await rpc(gw, 'eth_coinbase', [])).result;
  });

  it.each([
    ['eth_accounts', () => []],
    ['personal_listAccounts', () => []],
    ['eth_sendTransaction', () => [{ from, to: from, value: '0x1' }]],
    ['personal_sendTransaction', () => [{ from, to: from, value: '0x1' }, 'pw']],
  ])('%s over HTTP answers Evmos error', async (method, params) => {
    expect((await rpc(gw, method, params())).error).toEqual(FORBIDDEN);
  });

  it('miner_setEtherbase answers false and changes nothing', async () => {
    expect((await rpc(gw, 'miner_setEtherbase', ['0x00000000000000000000000000000000000000aa'])).result).toBe(false);
    expect((await rpc(gw, 'eth_coinbase', [])).result).toBe(from);
  });

  it('over WebSocket too', async () => {
    const ws = await WsClient.open(gw.evmWsUrl!);
    try {
      expect((await ws.call(1, 'eth_sendTransaction', [{ from, to: from, value: '0x1' }])).error).toEqual(FORBIDDEN);
    } finally {
      await ws.close();
    }
  });

  it('ethers sees the error', async () => {
    const provider = testProvider(gw.evmHttpUrl!);
    try {
      await expect(provider.send('eth_accounts', [])).rejects.toThrow(/account unlock with HTTP access is forbidden/);
    } finally {
      provider.destroy();
    }
  });
});

it('allow-insecure-unlock = true: node-held keys sign and are listed', async () => {
  const gw = await gateway('true');
  const accounts: string[] = (await rpc(gw, 'eth_accounts', [])).result;
  expect(accounts.length).toBeGreaterThan(0);
  const sent = await rpc(gw, 'eth_sendTransaction', [{ from: accounts[0], to: accounts[0], value: '0x1' }]);
  expect(sent.result).toMatch(/^0x[0-9a-f]{64}$/);
});
