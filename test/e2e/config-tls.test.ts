/**
 * TLS as the node serves it: `[rpc] tls_cert_file`/`tls_key_file` (config.toml) put HTTPS and WSS on the
 * node RPC's laddr, `[tls] certificate-path`/`key-path` (app.toml) on the EVM JSON-RPC's address and
 * ws-address; paths relative to the config dir. A self-signed certificate made with openssl, real clients
 * trusting it (undici, ws, ethers); a client that does not trust it, or speaks plain HTTP, gets nothing.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent as HttpsAgent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FetchRequest } from 'ethers';
import { Agent, request } from 'undici';
import WebSocket from 'ws';
import { evmRpcFlags } from '../support/backends';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { writeTestCertificate } from '../support/test-certificate';
import { testProvider } from '../support/ethers-provider';

jest.setTimeout(120_000);

let home: string;
let ca: Buffer;
let gw: TestGateway;
let agent: Agent;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'rpcgw-tls-'));
  mkdirSync(join(home, 'config'));
  ca = writeTestCertificate(join(home, 'config'));
  writeFileSync(join(home, 'config', 'config.toml'), '[rpc]\ntls_cert_file = "cert.pem"\ntls_key_file = "key.pem"\n');
  writeFileSync(join(home, 'config', 'app.toml'), '[json-rpc]\nenable = true\n\n[tls]\ncertificate-path = "cert.pem"\nkey-path = "key.pem"\n');
  gw = await startTestGateway(evmRpcFlags('eth,net,web3'), home);
  agent = new Agent({ connect: { ca } });
});

afterAll(async () => {
  await agent?.close();
  await gw?.close();
  rmSync(home, { recursive: true, force: true });
});

const jsonRpc = (method: string, params: unknown = []) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

async function post(url: string, body: string, dispatcher: Agent = agent): Promise<any> {
  const answer = await request(url, { method: 'POST', body, headers: { 'content-type': 'application/json' }, dispatcher });
  return answer.body.json();
}

function wsCall(url: string, body: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { ca });
    socket.once('error', reject);
    socket.once('open', () => socket.send(body));
    socket.once('message', (data) => {
      resolve(JSON.parse(data.toString()));
      socket.close();
    });
  });
}

it('the listeners report https and wss URLs', () => {
  expect(gw.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  expect(gw.evmHttpUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  expect(gw.evmWsUrl).toMatch(/^wss:\/\/127\.0\.0\.1:\d+$/);
});

it('node RPC: JSON-RPC and URI over HTTPS', async () => {
  expect((await post(`${gw.url}/`, jsonRpc('status', {}))).result.node_info.network).toBeDefined();
  const uri = await request(`${gw.url}/health`, { dispatcher: agent });
  expect(await uri.body.json()).toEqual({ jsonrpc: '2.0', id: -1, result: {} });
});

it('node RPC: WSS on the same port', async () => {
  expect((await wsCall(gw.wsUrl, jsonRpc('health', {}))).result).toEqual({});
});

it('EVM JSON-RPC: HTTPS with ethers', async () => {
  const fetchRequest = new FetchRequest(gw.evmHttpUrl!);
  fetchRequest.getUrlFunc = FetchRequest.createGetUrlFunc({ agent: new HttpsAgent({ ca }) });
  const provider = testProvider(fetchRequest);
  try {
    expect(await provider.getBlockNumber()).toBeGreaterThanOrEqual(0);
  } finally {
    provider.destroy();
  }
});

it('EVM JSON-RPC: WSS', async () => {
  expect((await wsCall(gw.evmWsUrl!, jsonRpc('eth_chainId'))).result).toMatch(/^0x[0-9a-f]+$/);
});

it('a client that does not trust the certificate is refused', async () => {
  const untrusting = new Agent();
  try {
    await expect(post(`${gw.url}/`, jsonRpc('health', {}), untrusting)).rejects.toThrow(/self.signed|certificate/i);
  } finally {
    await untrusting.close();
  }
});

it('plain HTTP on the TLS port gets no JSON-RPC answer', async () => {
  await expect(post(`${gw.evmHttpUrl!.replace('https', 'http')}/`, jsonRpc('eth_chainId'))).rejects.toThrow();
});
