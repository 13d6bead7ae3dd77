/**
 * The EVM RPC surface over real sockets: EvmRpcModule alone, over a fake chain, checked with raw
 * HTTP/WebSocket and with ethers' providers.
 */
import { Logger } from '@nestjs/common';
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { GatewayConfigService } from '../../src/config/gateway-config.service';
import { JsonRpcProvider, Network, getAddress, Transaction, TypedDataEncoder, Wallet, WebSocketProvider, isError, keccak256, toUtf8Bytes, verifyMessage, verifyTypedData } from 'ethers';
import { CHAIN_ID, DEV_KEYS, EMITTER, REVERT_DATA, REVERTER, SLOW, TOPIC } from './evm-surface-backend';
import { EvmWsClient, postRaw, rpc, startEvmApp, type EvmTestApp } from './evm-surface-app';
import { testProvider } from '../support/ethers-provider';

Logger.overrideLogger(false);

const ALL = 'eth,web3,net,txpool,debug,personal,admin,miner';
const DEV = new Wallet(DEV_KEYS[0]);
const DEV_ADDRESS = DEV.address.toLowerCase();
const NETWORK = Network.from(Number(CHAIN_ID));

let full: EvmTestApp;
let plain: EvmTestApp;
/** Where `full` writes profiles: <home>/profiles. */
let files: string;
/** A profile name not used before (profiles are never overwritten). */
let profileCount = 0;
const fresh = (name: string) => `${++profileCount}-${name}`;

beforeAll(async () => {
  full = await startEvmApp({
    'json-rpc.api': ALL,
    'json-rpc.batch-request-limit': '5',
    'json-rpc.gas-cap': '1234567',
    'json-rpc.evm-timeout': '3s',
    'json-rpc.feehistory-cap': '10',
    'json-rpc.block-range-cap': '50',
    'json-rpc.enable-profiling': 'true',
    // A heap snapshot of the test process, large late in a full run: within the budgets and the deadline.
    'json-rpc.profile-max-size': '4000000000',
    'json-rpc.profile-dir-max-size': '8000000000',
    'json-rpc.http-timeout': '110s',
  });
  plain = await startEvmApp({ 'json-rpc.batch-response-max-size': '2000', 'json-rpc.filter-cap': '1', 'json-rpc.http-timeout': '1s' });
  files = join(full.app.get(GatewayConfigService).home, 'profiles');
});

afterAll(async () => {
  await Promise.all([full?.close(), plain?.close()]);
});

const send = (body: unknown, url = full.httpUrl) => postRaw(url, typeof body === 'string' ? body : JSON.stringify(body));
const notAvailable = (method: string) => ({ code: -32601, message: `the method ${method} does not exist/is not available` });
async function signed(tx: Record<string, unknown>, wallet = DEV): Promise<string> {
  const nonce = Number(BigInt((await rpc(full.httpUrl, 'eth_getTransactionCount', [wallet.address.toLowerCase(), 'latest'])).result));
  return wallet.signTransaction({ type: 2, chainId: CHAIN_ID, nonce, gasLimit: 50_000, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1n, ...tx });
}

describe('HTTP transport', () => {
  it('POST / answers with go-ethereum framing: member order, raw id, trailing newline', async () => {
    const res = await send('{"jsonrpc":"2.0","id":1.50,"method":"eth_chainId","params":[]}');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.text).toBe('{"jsonrpc":"2.0","id":1.50,"result":"0x2328"}\n');
  });

  it('accepts the JSON-RPC media types, with parameters', async () => {
    for (const type of ['application/json; charset=utf-8', 'application/json-rpc', 'application/jsonrequest']) {
      const res = await postRaw(full.httpUrl, '{"id":1,"method":"eth_chainId"}', { 'Content-Type': type });
      expect(res.status).toBe(200);
    }
  });

  it('a notification gets 200 and an empty body', async () => {
    const res = await send({ jsonrpc: '2.0', method: 'eth_chainId' });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
  });

  it('parse error', async () => {
    const res = await send('{"jsonrpc":"2.0",');
    expect(res.text).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}\n');
  });

  it('an empty batch', async () => {
    expect((await send('[]')).text).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}\n');
  });

  it('a batch is answered in order, invalid members included', async () => {
    const res = await send([{ jsonrpc: '2.0', id: 'a', method: 'net_version' }, 1, { jsonrpc: '2.0', id: { x: 1 }, method: 'eth_chainId' }, { jsonrpc: '2.0', id: 2, method: 'eth_chainId' }]);
    expect(JSON.parse(res.text)).toEqual([
      { jsonrpc: '2.0', id: 'a', result: '9000' },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } },
      { jsonrpc: '2.0', id: 2, result: '0x2328' },
    ]);
  });

  it('batch-request-limit', async () => {
    const batch = Array.from({ length: 6 }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'eth_chainId' }));
    expect((await send(batch)).text).toBe('[{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"batch too large"}}]\n');
  });

  it('batch-response-max-size', async () => {
    const batch = [1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, method: 'eth_getBlockByNumber', params: ['latest', false] }));
    const answers = JSON.parse((await send(batch, plain.httpUrl)).text);
    expect(answers[0].result.number).toBeDefined();
    expect(answers[1].result.number).toBeDefined();
    expect(answers[2]).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32003, message: 'response too large' } });
  });

  it('only POST / reaches the RPC', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const res = await fetch(full.httpUrl + '/', { method });
      expect([method, res.status, await res.text()]).toEqual([method, 405, '']);
    }
    const other = await fetch(full.httpUrl + '/foo', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(other.status).toBe(404);
    expect(await other.text()).toBe('404 page not found\n');
  });

  it('415 for another content type or none', async () => {
    for (const headers of [{ 'Content-Type': 'text/plain' }, {} as Record<string, string>]) {
      const res = await postRaw(full.httpUrl, '{"id":1,"method":"eth_chainId"}', headers);
      expect(res.status).toBe(415);
      expect(res.text).toBe('invalid content type, only application/json is supported\n');
    }
  });

  it('413 for a declared body over 5 MiB', async () => {
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(full.httpUrl + '/', { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': '6000000' } }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
      req.write('{');
    });
    expect(answer).toEqual({ status: 413, text: 'content length too large (6000000>5242880)\n' });
  });

  it('413 for a streamed body that grows over 5 MiB, and the connection is closed', async () => {
    const answer = await new Promise<{ status: number; text: string; connection?: string }>((resolve, reject) => {
      const req = request(full.httpUrl + '/', { method: 'POST', headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' } }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, text, connection: res.headers.connection }));
      });
      req.on('error', reject);
      const chunk = Buffer.alloc(1024 * 1024, ' ');
      for (let i = 0; i < 6; i++) req.write(chunk);
    });
    expect(answer).toEqual({ status: 413, text: 'content length too large (>5242880)\n', connection: 'close' });
  });

  it('http-timeout: a call still running is answered request timed out', async () => {
    expect(await rpc(plain.httpUrl, 'eth_call', [{ to: SLOW }, 'latest'])).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32002, message: 'request timed out' },
    });
  });

  it('CORS: any origin, preflights answered', async () => {
    const actual = await fetch(full.httpUrl + '/', { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: 'https://dapp.example' }, body: '{"id":1,"method":"eth_chainId"}' });
    expect(actual.headers.get('access-control-allow-origin')).toBe('*');
    expect(actual.headers.get('vary')).toBe('Origin');
    const preflight = await fetch(full.httpUrl + '/', {
      method: 'OPTIONS',
      headers: { Origin: 'https://dapp.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type');
  });
});

describe('methods that are not available', () => {
  it('disabled namespaces: single call, batch member and WebSocket alike', async () => {
    expect((await rpc(plain.httpUrl, 'debug_memStats')).error).toEqual(notAvailable('debug_memStats'));
    const batch = JSON.parse((await send([{ id: 1, method: 'admin_peers' }, { id: 2, method: 'personal_listAccounts' }], plain.httpUrl)).text);
    expect(batch.map((a: any) => a.error)).toEqual([notAvailable('admin_peers'), notAvailable('personal_listAccounts')]);
    const ws = await EvmWsClient.open(plain.wsUrl);
    expect((await ws.call('miner_stop')).error).toEqual(notAvailable('miner_stop'));
    await ws.close();
  });

  it('unknown and not implemented methods', async () => {
    for (const method of ['eth_blocknumber', 'eth_fillTransaction', 'debug_getRawBlock', 'trace_block', 'engine_newPayloadV1', 'clique_getSigners']) {
      expect((await rpc(full.httpUrl, method)).error).toEqual(notAvailable(method));
    }
  });

  it('subscriptions over HTTP', async () => {
    expect((await rpc(full.httpUrl, 'eth_subscribe', ['newHeads'])).error).toEqual({ code: -32000, message: 'notifications not supported' });
    expect((await rpc(full.httpUrl, 'eth_unsubscribe', ['0x1'])).error).toEqual({ code: -32000, message: 'subscription not found' });
  });

  it('rpc_modules lists what is enabled', async () => {
    expect((await rpc(plain.httpUrl, 'rpc_modules')).result).toEqual({ eth: '1.0', net: '1.0', web3: '1.0', rpc: '1.0' });
    expect(Object.keys((await rpc(full.httpUrl, 'rpc_modules')).result).sort()).toEqual([...ALL.split(','), 'rpc'].sort());
  });
});

describe('WebSocket transport', () => {
  it('answers calls, notifications and batches like the HTTP server, ids as sent', async () => {
    const ws = await EvmWsClient.open(full.wsUrl);
    ws.send('{"jsonrpc":"2.0","method":"eth_chainId"}');
    ws.send('{"jsonrpc":"2.0","id":"abc","method":"eth_chainId"}');
    expect(await ws.next(() => true)).toEqual({ jsonrpc: '2.0', id: 'abc', result: '0x2328' });
    ws.send('[{"jsonrpc":"2.0","id":1,"method":"net_version"},{"jsonrpc":"2.0","id":2,"method":"web3_sha3","params":["0x68656c6c6f"]}]');
    expect(await ws.next(Array.isArray)).toEqual([
      { jsonrpc: '2.0', id: 1, result: '9000' },
      { jsonrpc: '2.0', id: 2, result: keccak256(toUtf8Bytes('hello')) },
    ]);
    ws.send('{"jsonrpc":"2.0",');
    expect(await ws.next(() => true)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
    expect((await ws.call('eth_chainId')).result).toBe('0x2328');
    expect(ws.frames).toEqual([]);
    await ws.close();
  });

  it('newHeads: a notification per block, hash = the block hash', async () => {
    const ws = await EvmWsClient.open(full.wsUrl);
    const { result: id } = await ws.call('eth_subscribe', ['newHeads']);
    expect(id).toMatch(/^0x[0-9a-f]{1,32}$/);
    const block = full.chain.mine([]);
    const note = await ws.notification(id);
    expect(Object.keys(note)).toEqual(['jsonrpc', 'method', 'params']);
    expect(note.params.result.hash).toBe(block.hash);
    expect(note.params.result.hash).toBe((await rpc(full.httpUrl, 'eth_getBlockByNumber', [note.params.result.number, false])).result.hash);
    expect((await ws.call('eth_unsubscribe', [id])).result).toBe(true);
    expect((await ws.call('eth_unsubscribe', [id])).result).toBe(false);
    await ws.close();
  });

  it('logs and newPendingTransactions', async () => {
    const ws = await EvmWsClient.open(full.wsUrl);
    const logs = (await ws.call('eth_subscribe', ['logs', { address: EMITTER, topics: [TOPIC] }])).result;
    const pending = (await ws.call('eth_subscribe', ['newPendingTransactions'])).result;
    const { result: hash } = await rpc(full.httpUrl, 'eth_sendRawTransaction', [await signed({ to: EMITTER, data: '0xbeef' })]);
    expect((await ws.notification(pending)).params.result).toBe(hash);
    expect((await ws.notification(logs)).params.result).toMatchObject({ address: EMITTER, data: '0xbeef', transactionHash: hash });
    await ws.close();
  });

  it('subscription errors', async () => {
    const ws = await EvmWsClient.open(full.wsUrl);
    expect((await ws.call('eth_subscribe', ['syncing'])).error).toEqual({ code: -32601, message: 'syncing subscription is not implemented' });
    expect((await ws.call('eth_subscribe', ['newBlocks'])).error).toEqual({ code: -32601, message: 'no "newBlocks" subscription in eth namespace' });
    expect((await ws.call('eth_subscribe', [])).error).toEqual({ code: -32602, message: 'expected subscription name as first argument' });
    await ws.close();
  });

  it('subscriptions die with the socket', async () => {
    const ws = await EvmWsClient.open(plain.wsUrl);
    await ws.call('eth_subscribe', ['newHeads']);
    await ws.call('eth_subscribe', ['logs', {}]);
    expect(plain.bus.numClientSubscriptions('evm-rpc')).toBe(1);
    await ws.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(plain.bus.numClientSubscriptions('evm-rpc')).toBe(0);
  });

  it('Origin is checked against ws-origins by hostname', async () => {
    await expect(EvmWsClient.open(full.wsUrl, { Origin: 'https://evil.example' })).rejects.toThrow('HTTP 403');
    const local = await EvmWsClient.open(full.wsUrl, { Origin: 'http://localhost:3000' });
    expect((await local.call('eth_chainId')).result).toBe('0x2328');
    await local.close();
  });

  it('a message over 1 MiB closes the socket with 1009', async () => {
    const ws = await EvmWsClient.open(full.wsUrl);
    const closed = new Promise<number>((resolve) => ws.socket.once('close', (code) => resolve(code)));
    ws.send(JSON.stringify({ id: 1, method: 'eth_chainId', params: ['x'.repeat(1024 * 1024)] }));
    expect(await closed).toBe(1009);
  });

  it('plain HTTP on the WebSocket port', async () => {
    const root = await fetch(full.wsUrl.replace('ws:', 'http:') + '/');
    expect([root.status, await root.text()]).toEqual([400, 'Bad Request\n']);
    await expect(EvmWsClient.open(full.wsUrl + '/other')).rejects.toThrow('HTTP 404');
  });
});

describe('polling filters over HTTP', () => {
  it('block filter: hashes since the last poll', async () => {
    const { result: id } = await rpc(full.httpUrl, 'eth_newBlockFilter');
    const block = full.chain.mine([]);
    await new Promise((r) => setTimeout(r, 20));
    expect((await rpc(full.httpUrl, 'eth_getFilterChanges', [id])).result).toEqual([block.hash]);
    expect((await rpc(full.httpUrl, 'eth_getFilterChanges', [id])).result).toEqual([]);
    expect((await rpc(full.httpUrl, 'eth_getFilterLogs', [id])).error).toEqual({ code: -32000, message: `filter ${id} doesn't have a LogsSubscription type: got 5` });
    expect((await rpc(full.httpUrl, 'eth_uninstallFilter', [id])).result).toBe(true);
    expect((await rpc(full.httpUrl, 'eth_uninstallFilter', [id])).result).toBe(false);
    expect((await rpc(full.httpUrl, 'eth_getFilterChanges', [id])).error).toEqual({ code: -32000, message: `filter ${id} not found` });
  });

  it('log and pending transaction filters', async () => {
    const logs = (await rpc(full.httpUrl, 'eth_newFilter', [{ address: [EMITTER] }])).result;
    const pending = (await rpc(full.httpUrl, 'eth_newPendingTransactionFilter')).result;
    const { result: hash } = await rpc(full.httpUrl, 'eth_sendRawTransaction', [await signed({ to: EMITTER, data: '0x02' })]);
    await new Promise((r) => setTimeout(r, 20));
    expect((await rpc(full.httpUrl, 'eth_getFilterChanges', [pending])).result).toEqual([hash]);
    expect((await rpc(full.httpUrl, 'eth_getFilterChanges', [logs])).result).toEqual([expect.objectContaining({ transactionHash: hash, data: '0x02' })]);
    expect((await rpc(full.httpUrl, 'eth_getFilterLogs', [logs])).result).toEqual([expect.objectContaining({ transactionHash: hash })]);
    await rpc(full.httpUrl, 'eth_uninstallFilter', [logs]);
    await rpc(full.httpUrl, 'eth_uninstallFilter', [pending]);
  });

  it('filter-cap is a real error', async () => {
    const { result: id } = await rpc(plain.httpUrl, 'eth_newBlockFilter');
    expect((await rpc(plain.httpUrl, 'eth_newBlockFilter')).error).toEqual({ code: -32000, message: 'error creating block filter: max limit reached' });
    expect((await rpc(plain.httpUrl, 'eth_newFilter', [{}])).error).toEqual({ code: -32000, message: 'error creating filter: max limit reached' });
    await rpc(plain.httpUrl, 'eth_uninstallFilter', [id]);
  });
});

describe('ethers over HTTP', () => {
  let provider: JsonRpcProvider;
  beforeAll(() => {
    provider = testProvider(full.httpUrl, {}, NETWORK);
  });
  afterAll(() => provider.destroy());

  it('reads the chain', async () => {
    expect((await provider.getNetwork()).chainId).toBe(CHAIN_ID);
    const [number, balance, block] = await Promise.all([provider.getBlockNumber(), provider.getBalance(DEV.address), provider.getBlock('latest')]);
    expect(number).toBe(full.chain.blocks.length);
    expect(balance).toBe(10n ** 21n);
    expect(block?.hash).toBe(full.chain.blocks.at(-1)!.hash);
  });

  it('eth_call passes gas-cap and evm-timeout to the backend, gas over the cap lowered to it; a revert carries its data', async () => {
    const last = (method: string) => full.chain.calls.filter((c) => c.method === method).at(-1)!.args;
    expect(await provider.call({ to: EMITTER, data: '0x' })).toBe('0x' + '00'.repeat(31) + '2a');
    expect(last('call')[2]).toEqual({ gasCap: 1234567n, timeoutMs: 3000 });
    expect(await provider.call({ to: EMITTER, data: '0x', gasLimit: 5_000_000n })).toBe('0x' + '00'.repeat(31) + '2a');
    expect(last('call')[0]).toMatchObject({ to: EMITTER, gas: 1234567n });
    expect((await rpc(full.httpUrl, 'eth_call', [{ to: EMITTER, gas: '0x1000' }, 'latest'])).result).toBe('0x' + '00'.repeat(31) + '2a');
    expect(last('call')[0]).toMatchObject({ to: EMITTER, gas: 0x1000n });
    await provider.estimateGas({ to: EMITTER });
    expect(last('estimateGas')[2]).toEqual({ gasCap: 1234567n, timeoutMs: 3000 });
    await provider.estimateGas({ to: EMITTER, gasLimit: 5_000_000n });
    expect(last('estimateGas')[0]).toMatchObject({ to: EMITTER, gas: 1234567n });
    const err = await provider.call({ to: REVERTER }).catch((e: unknown) => e);
    expect(isError(err, 'CALL_EXCEPTION')).toBe(true);
    expect((err as { reason: string }).reason).toBe('nope');
    expect((await rpc(full.httpUrl, 'eth_call', [{ to: REVERTER }, 'latest'])).error).toEqual({ code: 3, message: 'execution reverted: nope', data: REVERT_DATA });
  });

  it('sends with an unlocked dev account and signs messages', async () => {
    const signer = await provider.getSigner(DEV.address);
    const tx = await signer.sendTransaction({ to: EMITTER, data: '0x03' });
    const receipt = await provider.getTransactionReceipt(tx.hash);
    expect(receipt?.status).toBe(1);
    expect(receipt?.logs[0].data).toBe('0x03');
    expect(verifyMessage('hello', await signer.signMessage('hello'))).toBe(DEV.address);
  });

  it('a JSON-RPC error reaches ethers as such', async () => {
    const err = await provider.send('eth_getBalance', ['0x12', 'latest']).catch((e: unknown) => e);
    expect((err as { error: unknown }).error).toEqual({ code: -32602, message: 'invalid argument 0: hex string has length 2, want 40 for common.Address' });
  });
});

describe('ethers over WebSocket', () => {
  it('calls and block events', async () => {
    const provider = new WebSocketProvider(full.wsUrl, NETWORK, { staticNetwork: NETWORK });
    expect(await provider.getBlockNumber()).toBe(full.chain.blocks.length);
    const seen = new Promise<number>((resolve) => void provider.on('block', resolve));
    await new Promise((r) => setTimeout(r, 100));
    const block = full.chain.mine([]);
    expect(await seen).toBe(Number(block.number));
    await provider.destroy();
  });
});

describe('transaction admission', () => {
  it('txfee-cap', async () => {
    const raw = await signed({ to: EMITTER, maxFeePerGas: 10n ** 14n, gasLimit: 21_000 });
    expect((await rpc(full.httpUrl, 'eth_sendRawTransaction', [raw])).error).toEqual({
      code: -32000,
      message: 'tx fee (2.10 ether) exceeds the configured cap (1.00 ether)',
    });
  });

  it('allow-unprotected-txs = false refuses legacy transactions without a chain id', async () => {
    const raw = await DEV.signTransaction({ type: 0, chainId: 0n, nonce: 0, gasLimit: 21_000, gasPrice: 1_000_000_000n, to: EMITTER });
    expect(Transaction.from(raw).chainId).toBe(0n);
    expect((await rpc(full.httpUrl, 'eth_sendRawTransaction', [raw])).error).toEqual({
      code: -32000,
      message: 'only replay-protected (EIP-155) transactions allowed over RPC',
    });
  });

  it('miner_setGasPrice sets a floor that eth_gasPrice respects', async () => {
    expect((await rpc(full.httpUrl, 'miner_setGasPrice', ['0x77359400'])).result).toBe(true);
    expect((await rpc(full.httpUrl, 'eth_gasPrice')).result).toBe('0x77359400');
    const raw = await signed({ to: EMITTER, maxPriorityFeePerGas: 1n });
    expect((await rpc(full.httpUrl, 'eth_sendRawTransaction', [raw])).error).toEqual({ code: -32000, message: 'transaction underpriced' });
    await rpc(full.httpUrl, 'miner_setGasPrice', ['0x0']);
  });
});

describe('personal and signing', () => {
  it('accounts: create, unlock, lock, import', async () => {
    const { result: address } = await rpc(full.httpUrl, 'personal_newAccount', ['secret']);
    expect(address).toMatch(/^0x[0-9a-f]{40}$/);
    expect((await rpc(full.httpUrl, 'eth_sendTransaction', [{ from: address, to: EMITTER }])).error).toEqual({
      code: -32000,
      message: 'authentication needed: password or unlock',
    });
    expect((await rpc(full.httpUrl, 'personal_unlockAccount', [address, 'wrong'])).error.message).toBe('could not decrypt key with given password');
    expect((await rpc(full.httpUrl, 'personal_unlockAccount', [address, 'secret', 60])).result).toBe(true);
    expect((await rpc(full.httpUrl, 'eth_sign', [address, '0x01'])).result).toMatch(/^0x[0-9a-f]{130}$/);
    expect((await rpc(full.httpUrl, 'personal_lockAccount', [address])).result).toBe(true);
    expect((await rpc(full.httpUrl, 'eth_sign', [address, '0x01'])).error.message).toBe('authentication needed: password or unlock');
    const key = Wallet.createRandom();
    expect((await rpc(full.httpUrl, 'personal_importRawKey', [key.privateKey.slice(2), 'pw'])).result).toBe(key.address.toLowerCase());
    expect((await rpc(full.httpUrl, 'personal_importRawKey', [key.privateKey.slice(2), 'pw'])).error.message).toBe('account already exists');
    expect((await rpc(full.httpUrl, 'personal_importRawKey', ['0x12', 'pw'])).error.message).toBe("invalid hex character 'x' in private key");
    expect((await rpc(full.httpUrl, 'personal_listAccounts')).result).toEqual(expect.arrayContaining([DEV_ADDRESS, address, key.address.toLowerCase()]));
    expect((await rpc(full.httpUrl, 'eth_accounts')).result).toEqual((await rpc(full.httpUrl, 'personal_listAccounts')).result);
  });

  it('personal_sign / personal_ecRecover round trip', async () => {
    const { result: sig } = await rpc(full.httpUrl, 'personal_sign', ['0x68656c6c6f', DEV_ADDRESS, '']);
    expect(verifyMessage('hello', sig)).toBe(DEV.address);
    expect((await rpc(full.httpUrl, 'personal_ecRecover', ['0x68656c6c6f', sig])).result).toBe(DEV_ADDRESS);
    expect((await rpc(full.httpUrl, 'personal_ecRecover', ['0x68656c6c6f', '0x01'])).error.message).toBe('signature must be 65 bytes long');
  });

  it('personal_sendTransaction with the password', async () => {
    const { result: hash } = await rpc(full.httpUrl, 'personal_sendTransaction', [{ from: DEV_ADDRESS, to: EMITTER, value: '0x1' }, '']);
    expect((await rpc(full.httpUrl, 'eth_getTransactionByHash', [hash])).result).toMatchObject({ hash, from: DEV_ADDRESS, value: '0x1' });
  });

  it('eth_signTypedData', async () => {
    const domain = { name: 'Test', version: '1', chainId: 9000, verifyingContract: EMITTER };
    const types = { Mail: [{ name: 'to', type: 'address' }, { name: 'contents', type: 'string' }] };
    const message = { to: EMITTER, contents: 'hi' };
    const typedData = { types: { EIP712Domain: TypedDataEncoder.getPayload(domain, types, message).types.EIP712Domain, ...types }, primaryType: 'Mail', domain, message };
    const { result: sig } = await rpc(full.httpUrl, 'eth_signTypedData', [DEV_ADDRESS, typedData]);
    expect(verifyTypedData(domain, types, message, sig)).toBe(DEV.address);
  });
});

describe('debug runtime methods', () => {
  // A heap snapshot of the test process, large late in a full run, takes a while to write.
  it('profiles are written under <home>/profiles by name', async () => {
    const heap = join(files, 'heap.heapsnapshot');
    const blockProfile = join(files, 'block.json');
    const cpu = join(files, 'cpu.cpuprofile');
    expect(await rpc(full.httpUrl, 'debug_writeMemProfile', ['heap.heapsnapshot'])).toMatchObject({ result: null });
    expect(existsSync(heap)).toBe(true);
    expect((await rpc(full.httpUrl, 'debug_setBlockProfileRate', [1])).result).toBeNull();
    expect((await rpc(full.httpUrl, 'debug_writeBlockProfile', ['block.json'])).result).toBeNull();
    expect(JSON.parse(readFileSync(blockProfile, 'utf8')).eventLoopDelay).toHaveProperty('max');
    await rpc(full.httpUrl, 'debug_setBlockProfileRate', [0]);
    expect((await rpc(full.httpUrl, 'debug_startCPUProfile', ['cpu.cpuprofile'])).result).toBeNull();
    expect((await rpc(full.httpUrl, 'debug_startCPUProfile', ['cpu.cpuprofile'])).error.message).toBe('CPU profiling already in progress');
    expect((await rpc(full.httpUrl, 'debug_stopCPUProfile')).result).toBeNull();
    expect(JSON.parse(readFileSync(cpu, 'utf8'))).toHaveProperty('nodes');
    expect((await rpc(full.httpUrl, 'debug_stopCPUProfile')).error.message).toBe('CPU profiling not in progress');
    expect((await rpc(full.httpUrl, 'debug_writeMutexProfile', [join(files, 'x.json')])).error.message).toMatch(/^invalid profile file name /);
    expect((await rpc(full.httpUrl, 'debug_writeMutexProfile', ['block.json'])).error.message).toBe('open profiles/block.json: file exists (profiles are never overwritten)');
  }, 120_000);

  it('setGCPercent returns the previous percent', async () => {
    expect((await rpc(full.httpUrl, 'debug_setGCPercent', [50])).result).toBe(100);
    expect((await rpc(full.httpUrl, 'debug_setGCPercent', [100])).result).toBe(50);
  });
});

/**
 * Every registered method once over each transport: [method, params, check of the response].
 * Stateful ones (profiles, accounts) have their own tests above.
 */
const HASH = '0x' + 'ab'.repeat(32);
const ok = (check: (result: any) => void) => (res: any) => {
  expect(res.error).toBeUndefined();
  check(res.result);
};
const fails = (error: unknown) => (res: any) => expect(res.error).toEqual(error);
const EVERY_METHOD: Array<[string, () => unknown[], (res: any) => void]> = [
  ['eth_protocolVersion', () => [], ok((r) => expect(r).toBe('0x41'))],
  ['eth_chainId', () => [], ok((r) => expect(r).toBe('0x2328'))],
  ['eth_blockNumber', () => [], ok((r) => expect(r).toMatch(/^0x[1-9a-f][0-9a-f]*$/))],
  ['eth_syncing', () => [], ok((r) => expect(r).toBe(false))],
  ['eth_gasPrice', () => [], ok((r) => expect(r).toBe('0x3b9aca00'))],
  ['eth_maxPriorityFeePerGas', () => [], ok((r) => expect(r).toBe('0x1'))],
  ['eth_feeHistory', () => ['0x2', 'latest', [50]], ok((r) => expect(r.oldestBlock).toBe('0x1'))],
  ['eth_feeHistory', () => [11, 'latest', []], fails({ code: -32000, message: 'FeeHistory user block count 11 higher than 10' })],
  ['eth_coinbase', () => [], ok((r) => expect(r).toBe('0x' + '11'.repeat(20)))],
  ['eth_hashrate', () => [], ok((r) => expect(r).toBe('0x0'))],
  ['eth_mining', () => [], ok((r) => expect(r).toBe(false))],
  ['eth_getUncleByBlockHashAndIndex', () => [HASH, '0x0'], ok((r) => expect(r).toBeNull())],
  ['eth_getUncleByBlockNumberAndIndex', () => ['latest', '0x0'], ok((r) => expect(r).toBeNull())],
  ['eth_getUncleCountByBlockHash', () => [HASH], ok((r) => expect(r).toBeNull())],
  ['eth_getUncleCountByBlockNumber', () => ['0x1'], ok((r) => expect(r).toBe('0x0'))],
  ['eth_getBalance', () => [DEV_ADDRESS, { blockNumber: '0x1' }], ok((r) => expect(r).toBe('0x3635c9adc5dea00000'))],
  ['eth_getStorageAt', () => [EMITTER, '0x1', 'latest'], ok((r) => expect(r).toBe('0x' + '00'.repeat(32)))],
  ['eth_getStorageAt', () => [EMITTER, '0xzz', 'latest'], fails({ code: -32602, message: 'invalid hex in storage key: "0xzz"' })],
  ['eth_getTransactionCount', () => [EMITTER, 'latest'], ok((r) => expect(r).toBe('0x0'))],
  ['eth_getCode', () => [EMITTER, 'latest'], ok((r) => expect(r).toBe('0x6001'))],
  ['eth_getProof', () => [EMITTER, ['0x1'], 'latest'], ok((r) => expect(r.storageProof[0].key).toBe('0x' + '00'.repeat(31) + '01'))],
  ['eth_call', () => [{ to: EMITTER }], ok((r) => expect(r).toMatch(/2a$/))],
  ['eth_call', () => [{ to: EMITTER }, 'latest', { [EMITTER]: { balance: '0x1' } }], fails({ code: -32000, message: 'state overrides are not supported' })],
  ['eth_call', () => [{ to: EMITTER, data: '0x01', input: '0x02' }, 'latest'], fails({ code: -32000, message: 'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data' })],
  ['eth_estimateGas', () => [{ to: EMITTER }], ok((r) => expect(r).toBe('0x5208'))],
  ['eth_createAccessList', () => [{ to: EMITTER }], ok((r) => expect(r).toEqual({ accessList: [], gasUsed: '0x5208' }))],
  ['eth_blobBaseFee', () => [], ok((r) => expect(r).toBe('0x1'))],
  // The block of a state read may be left out: it is `latest` (the spec, go-ethereum).
  ['eth_getBalance', () => [DEV_ADDRESS], ok((r) => expect(r).toMatch(/^0x[1-9a-f]/))],
  ['eth_getTransactionCount', () => [EMITTER], ok((r) => expect(r).toBe('0x0'))],
  ['eth_getCode', () => [EMITTER], ok((r) => expect(r).toBe('0x6001'))],
  ['eth_getStorageAt', () => [EMITTER, '0x1'], ok((r) => expect(r).toBe('0x' + '00'.repeat(32)))],
  ['eth_getStorageAt', () => [EMITTER, '0x' + '00'.repeat(33)], fails({ code: -32602, message: `storage key too long (want at most 32 bytes): "0x${'00'.repeat(33)}"` })],
  ['eth_getProof', () => [EMITTER, ['0x1']], ok((r) => expect(r.storageProof[0].key).toBe('0x' + '00'.repeat(31) + '01'))],
  ['eth_getBlockByNumber', () => ['earliest', true], ok((r) => expect(r.number).toBe('0x1'))],
  ['eth_getBlockByNumber', () => ['0xffffff', false], ok((r) => expect(r).toBeNull())],
  ['eth_getBlockByHash', () => [HASH, false], ok((r) => expect(r).toBeNull())],
  ['eth_getBlockTransactionCountByNumber', () => ['0x1'], ok((r) => expect(r).toBe('0x0'))],
  ['eth_getBlockTransactionCountByHash', () => [HASH], ok((r) => expect(r).toBeNull())],
  ['eth_getTransactionByHash', () => [HASH], ok((r) => expect(r).toBeNull())],
  ['eth_getTransactionByBlockNumberAndIndex', () => ['0x1', '0x0'], ok((r) => expect(r).toBeNull())],
  ['eth_getTransactionByBlockHashAndIndex', () => [HASH, '0x0'], ok((r) => expect(r).toBeNull())],
  ['eth_getTransactionReceipt', () => [HASH], ok((r) => expect(r).toBeNull())],
  ['eth_getBlockReceipts', () => ['0x1'], ok((r) => expect(r).toEqual([]))],
  ['eth_getTransactionLogs', () => [HASH], ok((r) => expect(r).toBeNull())],
  ['eth_getPendingTransactions', () => [], ok((r) => expect(r).toEqual([]))],
  ['eth_getLogs', () => [{ fromBlock: '0x1', address: EMITTER }], ok((r) => expect(Array.isArray(r)).toBe(true))],
  ['eth_getLogs', () => [{ fromBlock: '0x1', toBlock: '0x40' }], fails({ code: -32000, message: 'maximum [from, to] blocks distance: 50' })],
  ['eth_accounts', () => [], ok((r) => expect(r).toContain(DEV_ADDRESS))],
  ['eth_sign', () => [DEV_ADDRESS, '0x68656c6c6f'], ok((r) => expect(verifyMessage('hello', r)).toBe(DEV.address))],
  ['eth_sign', () => [EMITTER, '0x01'], fails({ code: -32000, message: 'unknown account' })],
  ['eth_signTypedData', () => [DEV_ADDRESS, { types: { A: [{ name: 'x', type: 'uint256' }] }, primaryType: 'A', domain: { name: 'd' }, message: { x: 1 } }], ok((r) => expect(r).toMatch(/^0x[0-9a-f]{130}$/))],
  ['eth_sendTransaction', () => [{ from: DEV_ADDRESS, to: EMITTER, gasPrice: '0x1', maxFeePerGas: '0x1' }], fails({ code: -32000, message: 'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified' })],
  ['eth_sendTransaction', () => [{ from: DEV_ADDRESS }], fails({ code: -32000, message: 'contract creation without any data provided' })],
  ['eth_sendRawTransaction', () => ['0x01'], fails({ code: -32000, message: 'rlp: expected input list for types.LegacyTx' })],
  ['eth_resend', () => [{ from: DEV_ADDRESS, to: EMITTER }], fails({ code: -32000, message: 'missing transaction nonce in transaction spec' })],
  ['eth_resend', () => [{ from: DEV_ADDRESS, to: EMITTER, nonce: '0x0', gas: '0x5208' }, '0x2'], (res) => expect(res.error.message).toMatch(/^transaction 0x[0-9a-f]{64} not found$/)],
  ['eth_newFilter', () => [{ fromBlock: 'pending' }], fails({ code: -32000, message: 'invalid from and to block combination: from > to (-2 > -1)' })],
  ['eth_newBlockFilter', () => [], ok((r) => expect(r).toMatch(/^0x[0-9a-f]{1,32}$/))],
  ['eth_newPendingTransactionFilter', () => [], ok((r) => expect(r).toMatch(/^0x[0-9a-f]{1,32}$/))],
  ['eth_getFilterChanges', () => ['0x1'], fails({ code: -32000, message: 'filter 0x1 not found' })],
  ['eth_getFilterLogs', () => ['0x1'], fails({ code: -32000, message: 'filter 0x1 not found' })],
  ['eth_uninstallFilter', () => ['0x1'], ok((r) => expect(r).toBe(false))],
  ['web3_clientVersion', () => [], ok((r) => expect(r).toBe('rpc-gateway/test'))],
  ['web3_sha3', () => ['0x68656c6c6f'], ok((r) => expect(r).toBe(keccak256(toUtf8Bytes('hello'))))],
  ['web3_sha3', () => ['hello'], fails({ code: -32602, message: 'invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type hexutil.Bytes' })],
  ['net_version', () => [], ok((r) => expect(r).toBe('9000'))],
  ['net_listening', () => [], ok((r) => expect(r).toBe(true))],
  ['net_peerCount', () => [], ok((r) => expect(r).toBe(0))],
  ['txpool_content', () => [], ok((r) => expect(r).toEqual({ pending: {}, queued: {} }))],
  ['txpool_contentFrom', () => [DEV_ADDRESS], ok((r) => expect(r).toEqual({ pending: {}, queued: {} }))],
  ['txpool_inspect', () => [], ok((r) => expect(r).toEqual({ pending: {}, queued: {} }))],
  ['txpool_status', () => [], ok((r) => expect(r).toEqual({ pending: '0x0', queued: '0x0' }))],
  ['debug_traceTransaction', () => [HASH, { tracer: 'callTracer' }], ok((r) => expect(r.failed).toBe(false))],
  ['debug_traceBlockByNumber', () => ['0x1', null], ok((r) => expect(r).toEqual([]))],
  ['debug_traceBlockByNumber', () => ['earliest'], fails({ code: -32000, message: 'genesis is not traceable' })],
  ['debug_traceBlockByHash', () => [HASH], ok((r) => expect(r).toEqual([]))],
  ['debug_traceCall', () => [{ to: EMITTER }, 'latest', { disableStack: true }], ok((r) => expect(r.gas).toBe(21000))],
  ['debug_memStats', () => [], ok((r) => expect(r.HeapAlloc).toBeGreaterThan(0))],
  ['debug_gcStats', () => [], ok((r) => expect(typeof r.NumGC).toBe('number'))],
  ['debug_freeOSMemory', () => [], ok((r) => expect(r).toBeNull())],
  ['debug_stacks', () => [], ok((r) => expect(r).toContain('JavaScript stack:'))],
  ['debug_blockProfile', () => [fresh('bp.json'), 0], ok((r) => expect(r).toBeNull())],
  ['debug_cpuProfile', () => [fresh('c.cpuprofile'), 0], ok((r) => expect(r).toBeNull())],
  ['debug_writeMutexProfile', () => [fresh('mutex.json')], ok((r) => expect(r).toBeNull())],
  ['admin_nodeInfo', () => [], ok((r) => expect(r.protocols.eth).toMatchObject({ network: 9000, genesis: full.chain.blocks[0].hash }))],
  ['admin_peers', () => [], ok((r) => expect(r).toEqual([]))],
  ['admin_datadir', () => [], ok((r) => expect(typeof r).toBe('string'))],
  ['admin_addPeer', () => ['enode://' + 'a'.repeat(128) + '@127.0.0.1:30303'], fails({ code: -32000, message: 'invalid enode: invalid public key (invalid secp256k1 curve point)' })],
  ['admin_addPeer', () => ['http://x'], fails({ code: -32000, message: 'invalid enode: invalid URL scheme, want "enode"' })],
  ['admin_removePeer', () => [`enode://${new Wallet(DEV_KEYS[1]).signingKey.publicKey.slice(4)}@127.0.0.1:30303`], ok((r) => expect(r).toBe(true))],
  ['admin_addTrustedPeer', () => [`enode://${new Wallet(DEV_KEYS[1]).signingKey.publicKey.slice(4)}@127.0.0.1:30303`], ok((r) => expect(r).toBe(true))],
  ['admin_removeTrustedPeer', () => ['enode://12@127.0.0.1:1'], fails({ code: -32000, message: 'invalid enode: invalid public key (wrong length, want 128 hex chars)' })],
  ['miner_getHashrate', () => [], ok((r) => expect(r).toBe(0))],
  ['miner_setGasLimit', () => ['0x1'], ok((r) => expect(r).toBe(false))],
  ['miner_setExtra', () => ['x'], fails({ code: -32000, message: 'unsupported rpc function: miner_setExtra' })],
  ['miner_start', () => [], fails({ code: -32000, message: 'unsupported rpc function: miner_start' })],
  ['miner_stop', () => [], ok((r) => expect(r).toBeNull())],
  ['miner_setEtherbase', () => [EMITTER], ok((r) => expect(r).toBe(true))],
  ['personal_listWallets', () => [], ok((r) => expect(r).toEqual(expect.arrayContaining([expect.objectContaining({ url: `keystore://${DEV_ADDRESS}`, status: 'Unlocked' })])))],
  ['personal_unpair', () => ['x', '1'], fails({ code: -32000, message: 'smartcard wallet not supported yet' })],
  ['personal_initializeWallet', () => ['x'], fails({ code: -32000, message: 'smartcard wallet not supported yet' })],
  ['rpc_modules', () => [], ok((r) => expect(r.rpc).toBe('1.0'))],
];

describe.each([
  ['HTTP', async (method: string, params: unknown[]) => rpc(full.httpUrl, method, params)],
  [
    'WebSocket',
    async (method: string, params: unknown[]) => {
      const ws = await EvmWsClient.open(full.wsUrl);
      try {
        return await ws.call(method, params);
      } finally {
        await ws.close();
      }
    },
  ],
])('every method over %s', (_transport, call) => {
  afterAll(() => rpc(full.httpUrl, 'miner_setEtherbase', ['0x' + '11'.repeat(20)]));

  it.each(EVERY_METHOD)('%s', async (method, params, check) => {
    check(await call(method, params()));
  });

  it('eth_coinbase follows miner_setEtherbase (checksummed)', async () => {
    await call('miner_setEtherbase', [EMITTER]);
    expect((await call('eth_coinbase', [])).result).toBe(getAddress(EMITTER));
  });
});

it('every registered method is in the table above', async () => {
  const { METHOD_REGISTRY } = await import('../../src/rpc/registration');
  const registry = full.app.get(METHOD_REGISTRY.evm) as import('../../src/rpc/method-registry').MethodRegistry;
  const tested = new Set([...EVERY_METHOD.map(([m]) => m), 'eth_subscribe', 'eth_unsubscribe', 'debug_writeMemProfile', 'debug_setBlockProfileRate',
    'debug_writeBlockProfile', 'debug_startCPUProfile', 'debug_stopCPUProfile', 'debug_setGCPercent', 'personal_newAccount', 'personal_unlockAccount',
    'personal_lockAccount', 'personal_importRawKey', 'personal_listAccounts', 'personal_sign', 'personal_ecRecover', 'personal_sendTransaction', 'miner_setGasPrice']);
  expect(registry.list().map((s) => s.name).filter((name) => !tested.has(name))).toEqual([]);
});

it('nothing listens with [json-rpc] enable = false', async () => {
  const off = await startEvmApp({ 'json-rpc.enable': 'false' });
  try {
    expect(off.httpUrl).toBeUndefined();
    expect(off.wsUrl).toBeUndefined();
  } finally {
    await off.close();
  }
});
