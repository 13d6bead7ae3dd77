/**
 * The shipped `cosmos` plugin (plugins/cosmos), loaded and served by default: `tx_by_evm_hash` and
 * `evm_tx_hash` over URI, JSON-RPC POST (named, positional, batch) and the WebSocket, with real EVM
 * txs sent with ethers to the devnet and compared with the node RPC's own `tx` answers; the Cosmos TxRaw
 * form a real Cosmos-EVM chain carries its EVM txs in; errors; gating by `[plugins] node_api`; and the
 * same answers in upstream mode, with an EVM pool (receipts) and without one (the node's tx index).
 */
import { createHash } from 'node:crypto';
import { BinaryWriter } from 'cosmjs-types/binary';
import { TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { JsonRpcProvider, keccak256, Wallet } from 'ethers';
import { evmRpcFlags } from '../../support/backends';
import { call, get, post, startTestGateway, waitForHeight, type HttpAnswer, type TestGateway } from '../../support/gateway';
import { startUpstreamGateway, type UpstreamGateway } from '../../support/upstream';
import { WsClient } from '../../support/ws-client';
import { testProvider } from '../../support/ethers-provider';

jest.setTimeout(60_000);

/** The first account of the well-known development mnemonic, prefunded by the devnet. */
const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
/** Its bytes hold no '=' or ':' (see cosmosTx). */
const RECIPIENT = '0x1111111111111111111111111111111111111111';
const UNKNOWN_EVM_HASH = '0x' + '1'.repeat(64);
/** The shipped plugins, loaded by path, and the cosmos category served. */
const PLUGINS = { 'plugins.load': 'plugins/gateway,plugins/cosmos', 'plugins.node_api': 'cosmos' };

const bytesOf = (hex: string) => Buffer.from(hex.slice(2), 'hex');
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();
const upperHex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex').toUpperCase();
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** One EVM tx as both interfaces name it. */
interface SentTx {
  readonly evmHash: string;
  readonly cometHash: Buffer;
}

function sent(signed: string): SentTx {
  return { evmHash: keccak256(signed), cometHash: sha256(bytesOf(signed)) };
}

async function rpc(url: string, method: string, params: unknown, id: unknown = 1): Promise<any> {
  return (await post(url, { jsonrpc: '2.0', id, method, params })).json;
}

/** The node RPC's own `tx` answer for a CometBFT hash. */
const nodeTx = (url: string, hash: Uint8Array) => call(url, 'tx', { hash: b64(hash), prove: false });

const internalError = (data: string, id: unknown = 1) => ({ jsonrpc: '2.0', id, error: { code: -32603, message: 'Internal error', data } });

/**
 * A Cosmos TxRaw whose body holds one MsgEthereumTx (`typeUrl`, with `field` written as a
 * length-delimited protobuf field), as a real Cosmos-EVM chain's txs are; the devnet's kvstore keeps any
 * `k=v` bytes, so an auth-info byte carries the one '=' and the encoding must hold no other '=' nor ':'.
 */
function cosmosTx(typeUrl: string, field: (w: BinaryWriter) => BinaryWriter): Uint8Array | undefined {
  const value = field(BinaryWriter.create()).finish();
  const body = TxBody.encode(TxBody.fromPartial({ messages: [{ typeUrl, value }] })).finish();
  const tx = TxRaw.encode(TxRaw.fromPartial({ bodyBytes: body, authInfoBytes: Uint8Array.of(0x3d), signatures: [Uint8Array.of(1)] })).finish();
  const count = (byte: number) => tx.filter((b) => b === byte).length;
  return count(0x3d) === 1 && count(0x3a) === 0 ? tx : undefined;
}

let devnet: TestGateway;
let wallet: Wallet;
let provider: JsonRpcProvider;
/** Two EVM txs sent in one node RPC batch after a kvstore tx, and that kvstore tx's hash. */
let first: SentTx;
let second: SentTx;
let kvHash: Buffer;

/** Signs `count` transfers from the dev account with consecutive nonces. */
async function signTransfers(count: number, valueBase: bigint): Promise<string[]> {
  const nonce = await provider.getTransactionCount(wallet.address, 'pending');
  const signed: string[] = [];
  for (let i = 0; i < count; i++) {
    const tx = await wallet.populateTransaction({ to: RECIPIENT, value: valueBase + BigInt(i), nonce: nonce + i });
    signed.push(await wallet.signTransaction(tx));
  }
  return signed;
}

beforeAll(async () => {
  devnet = await startTestGateway({ ...evmRpcFlags('eth,net,web3'), ...PLUGINS });
  await waitForHeight(devnet.url, 1);
  provider = testProvider(devnet.evmHttpUrl!);
  wallet = new Wallet(DEV_KEY, provider);
  const signed = await signTransfers(2, 1n);
  [first, second] = signed.map(sent);
  const kv = Buffer.from(`cosmos-plugin=${Date.now()}`);
  kvHash = sha256(kv);
  // One batch: the writes run in order, so the kvstore tx comes before the EVM ones in the mempool.
  const res = await post(devnet.url, [
    { jsonrpc: '2.0', id: 'kv', method: 'broadcast_tx_sync', params: { tx: b64(kv) } },
    ...signed.map((raw, i) => ({ jsonrpc: '2.0', id: i, method: 'broadcast_tx_sync', params: { tx: b64(bytesOf(raw)) } })),
  ]);
  expect(res.json.map((a: any) => a.result?.code)).toEqual([0, 0, 0]);
  for (const tx of [first, second]) expect((await provider.waitForTransaction(tx.evmHash, 1, 15_000))!.status).toBe(1);
});

afterAll(async () => {
  provider?.destroy();
  await devnet?.close();
});

describe('tx_by_evm_hash', () => {
  it('answers the node’s own tx answer over URI, quoted or bare, in either case', async () => {
    for (const tx of [first, second]) {
      const expected = await nodeTx(devnet.url, tx.cometHash);
      const direct = await get(devnet.url, `/tx?hash=0x${upperHex(tx.cometHash)}`);
      expect(direct.json.result).toEqual(expected);
      for (const form of [tx.evmHash, tx.evmHash.toUpperCase().replace('0X', '0x'), encodeURIComponent(`"${tx.evmHash}"`)]) {
        const res = await get(devnet.url, `/tx_by_evm_hash?hash=${form}`);
        expect(res.status).toBe(200);
        expect(res.json).toEqual({ jsonrpc: '2.0', id: -1, result: expected });
      }
    }
  });

  it('answers over JSON-RPC POST, with named and positional params', async () => {
    const expected = await nodeTx(devnet.url, second.cometHash);
    expect(await rpc(devnet.url, 'tx_by_evm_hash', { hash: second.evmHash })).toEqual({ jsonrpc: '2.0', id: 1, result: expected });
    expect(await rpc(devnet.url, 'tx_by_evm_hash', [second.evmHash], 'p')).toEqual({ jsonrpc: '2.0', id: 'p', result: expected });
  });

  it('finds an EVM tx placed after a non-EVM tx of its block (EVM index and block index differ)', async () => {
    const kv = await nodeTx(devnet.url, kvHash);
    const a = await call(devnet.url, 'tx_by_evm_hash', { hash: first.evmHash });
    const b = await call(devnet.url, 'tx_by_evm_hash', { hash: second.evmHash });
    const receipt = await provider.getTransactionReceipt(second.evmHash);
    expect(b.hash).toBe(upperHex(second.cometHash));
    expect(a.hash).toBe(upperHex(first.cometHash));
    if (kv.height === b.height) expect(b.index).toBeGreaterThan(receipt!.index);
  });

  it('answers over the WebSocket', async () => {
    const ws = await WsClient.open(devnet.wsUrl);
    try {
      const expected = await nodeTx(devnet.url, first.cometHash);
      expect(await ws.call(5, 'tx_by_evm_hash', { hash: first.evmHash })).toEqual({ jsonrpc: '2.0', id: 5, result: expected });
      expect(await ws.call(6, 'tx_by_evm_hash', [first.evmHash])).toEqual({ jsonrpc: '2.0', id: 6, result: expected });
    } finally {
      await ws.close();
    }
  });

  it('says so for an EVM hash no tx carries, and refuses a malformed one', async () => {
    expect(await rpc(devnet.url, 'tx_by_evm_hash', { hash: UNKNOWN_EVM_HASH })).toEqual(internalError(`EVM tx (${UNKNOWN_EVM_HASH}) not found`));
    expect(await rpc(devnet.url, 'tx_by_evm_hash', { hash: '0x1234' })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'Invalid params', data: 'error converting json params to arguments: invalid EVM transaction hash "0x1234": expected 0x and 64 hex digits' },
    });
    const uri = await get(devnet.url, '/tx_by_evm_hash?hash=0xzz');
    expect(uri.json.error).toEqual({ code: -32602, message: 'Invalid params', data: 'error converting http params to arguments: invalid EVM transaction hash "0xzz": expected 0x and 64 hex digits' });
    expect((await rpc(devnet.url, 'tx_by_evm_hash', {})).error).toEqual({ code: -32603, message: 'Internal error', data: 'EVM transaction hash cannot be empty' });
  });
});

describe('evm_tx_hash', () => {
  const mapping = async (tx: SentTx) => {
    const node = await nodeTx(devnet.url, tx.cometHash);
    return { evm_hash: tx.evmHash, height: node.height, index: node.index };
  };

  it('answers the EVM hash and where the tx is, over URI (0x-hex) and POST (base64, named and positional)', async () => {
    for (const tx of [first, second]) {
      const expected = await mapping(tx);
      expect(typeof expected.height).toBe('string');
      expect(typeof expected.index).toBe('number');
      const uri = await get(devnet.url, `/evm_tx_hash?hash=0x${upperHex(tx.cometHash)}`);
      expect(uri.status).toBe(200);
      expect(uri.json).toEqual({ jsonrpc: '2.0', id: -1, result: expected });
      expect(await rpc(devnet.url, 'evm_tx_hash', { hash: b64(tx.cometHash) })).toEqual({ jsonrpc: '2.0', id: 1, result: expected });
      expect(await rpc(devnet.url, 'evm_tx_hash', [b64(tx.cometHash)], 2)).toEqual({ jsonrpc: '2.0', id: 2, result: expected });
    }
  });

  it('answers over the WebSocket', async () => {
    const ws = await WsClient.open(devnet.wsUrl);
    try {
      expect(await ws.call('w', 'evm_tx_hash', { hash: b64(second.cometHash) })).toEqual({ jsonrpc: '2.0', id: 'w', result: await mapping(second) });
    } finally {
      await ws.close();
    }
  });

  it('answers a clear error for a tx that carries no EVM tx, and the node’s own for an unknown hash', async () => {
    expect(await rpc(devnet.url, 'evm_tx_hash', { hash: b64(kvHash) })).toEqual(internalError(`tx (${upperHex(kvHash)}) carries no EVM transaction`));
    const unknown = sha256(Buffer.from('no such tx'));
    const own = await rpc(devnet.url, 'tx', { hash: b64(unknown), prove: false });
    expect(own.error.data).toBe(`tx (${upperHex(unknown)}) not found`);
    expect(await rpc(devnet.url, 'evm_tx_hash', { hash: b64(unknown) })).toEqual(own);
  });

  it('reads the MsgEthereumTx of a Cosmos TxRaw: Cosmos EVM’s raw tx, Ethermint’s hash', async () => {
    const candidates: Array<{ tx: Uint8Array; evmHash: string }> = [];
    // Signed locally (these ride as kvstore txs, never run by the devnet's EVM), until an encoding has
    // no stray '=' or ':' (each signature byte is one with odds of 1 in 128).
    for (let value = 1000n; candidates.length < 2 && value < 1200n; value++) {
      const raw = await wallet.signTransaction({ to: RECIPIENT, value, nonce: 0, gasLimit: 21000n, maxFeePerGas: 10n ** 9n, maxPriorityFeePerGas: 1n, chainId: 9000n, type: 2 });
      const evmHash = keccak256(raw);
      const forms = [
        () => cosmosTx('/cosmos.evm.vm.v1.MsgEthereumTx', (w) => w.uint32((6 << 3) | 2).bytes(bytesOf(raw))),
        () => cosmosTx('/ethermint.evm.v1.MsgEthereumTx', (w) => w.uint32((3 << 3) | 2).string(evmHash)),
      ];
      const tx = forms[candidates.length]();
      if (tx !== undefined) candidates.push({ tx, evmHash });
    }
    expect(candidates).toHaveLength(2);
    for (const { tx, evmHash } of candidates) {
      const committed = await call(devnet.url, 'broadcast_tx_commit', { tx: b64(tx) });
      expect(committed.tx_result.code).toBe(0);
      expect(await call(devnet.url, 'evm_tx_hash', { hash: b64(sha256(tx)) })).toEqual({ evm_hash: evmHash, height: committed.height, index: expect.any(Number) });
    }
  });
});

describe('both methods', () => {
  it('answer in one batch with the node’s own routes', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'tx_by_evm_hash', params: { hash: first.evmHash } },
      { jsonrpc: '2.0', id: 2, method: 'evm_tx_hash', params: { hash: b64(second.cometHash) } },
      { jsonrpc: '2.0', id: 3, method: 'tx', params: { hash: b64(first.cometHash), prove: false } },
      { jsonrpc: '2.0', id: 4, method: 'tx_by_evm_hash', params: { hash: UNKNOWN_EVM_HASH } },
    ];
    const res = await post(devnet.url, batch);
    expect(res.json.map((a: any) => a.id)).toEqual([1, 2, 3, 4]);
    expect(res.json[0].result).toEqual(res.json[2].result);
    expect(res.json[1].result.evm_hash).toBe(second.evmHash);
    expect(res.json[3].error.data).toBe(`EVM tx (${UNKNOWN_EVM_HASH}) not found`);
  });

  it('are immutable once found: the answer says so to HTTP caches', async () => {
    const found = await get(devnet.url, `/evm_tx_hash?hash=0x${upperHex(first.cometHash)}`);
    const own = await get(devnet.url, `/tx?hash=0x${upperHex(first.cometHash)}`);
    expect(found.headers.get('cache-control')).toBe(own.headers.get('cache-control'));
    expect(found.headers.get('cache-control')).not.toBeNull();
    const missing = await get(devnet.url, `/tx_by_evm_hash?hash=${UNKNOWN_EVM_HASH}`);
    expect(missing.headers.get('cache-control')).toBeNull();
  });

  it('are listed with the node’s routes', async () => {
    const list = await get(devnet.url, '/');
    expect(list.text).toContain('tx_by_evm_hash?hash=_');
    expect(list.text).toContain('evm_tx_hash?hash=_');
  });
});

describe('gated by [plugins] node_api', () => {
  let closed: TestGateway;

  beforeAll(async () => {
    closed = await startTestGateway({ ...PLUGINS, 'plugins.node_api': '[]' });
  });

  afterAll(async () => {
    await closed?.close();
  });

  it('answers Method not found over POST and the WebSocket, and 404 over URI', async () => {
    for (const method of ['tx_by_evm_hash', 'evm_tx_hash']) {
      expect(await rpc(closed.url, method, { hash: first.evmHash })).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } });
      const uri: HttpAnswer = await get(closed.url, `/${method}?hash=${first.evmHash}`);
      expect(uri.status).toBe(404);
      expect(uri.text).toBe('404 page not found\n');
    }
    const ws = await WsClient.open(closed.wsUrl);
    try {
      expect(await ws.call(1, 'evm_tx_hash', { hash: b64(first.cometHash) })).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } });
    } finally {
      await ws.close();
    }
  });
});

describe('in upstream mode in front of the devnet', () => {
  let withEvm: UpstreamGateway;
  let nodeOnly: UpstreamGateway;

  beforeAll(async () => {
    withEvm = await startUpstreamGateway([{ name: 'devnet', url: devnet.url }], {
      evm: [{ name: 'devnet', url: devnet.evmHttpUrl!, ws: devnet.evmWsUrl! }],
      settings: { health_check_interval: '1s' },
      flags: PLUGINS,
    });
    // No EVM upstream: the EVM RPC cannot answer receipts, so the node's tx index is searched.
    nodeOnly = await startUpstreamGateway([{ name: 'devnet', url: devnet.url }], { settings: { health_check_interval: '1s' }, flags: PLUGINS });
  });

  afterAll(async () => {
    await withEvm?.close();
    await nodeOnly?.close();
  });

  it('maps both ways as the devnet does, with an EVM pool and without one', async () => {
    const requests = [withEvm, nodeOnly].map((gw) => jest.spyOn(gw.backend.pool, 'request'));
    const searches = (i: number) => requests[i].mock.calls.map(([request]) => request).filter((request) => request.method === 'tx_search');
    for (const gw of [withEvm, nodeOnly]) {
      for (const tx of [first, second]) {
        const expected = await nodeTx(devnet.url, tx.cometHash);
        expect((await get(gw.url, `/tx_by_evm_hash?hash=${tx.evmHash}`)).json.result).toEqual(expected);
        expect(await call(gw.url, 'tx_by_evm_hash', [tx.evmHash])).toEqual(expected);
        expect(await call(gw.url, 'evm_tx_hash', { hash: b64(tx.cometHash) })).toEqual({ evm_hash: tx.evmHash, height: expected.height, index: expected.index });
      }
      expect(await rpc(gw.url, 'tx_by_evm_hash', { hash: UNKNOWN_EVM_HASH })).toEqual(internalError(`EVM tx (${UNKNOWN_EVM_HASH}) not found`));
      expect(await rpc(gw.url, 'evm_tx_hash', { hash: b64(kvHash) })).toEqual(internalError(`tx (${upperHex(kvHash)}) carries no EVM transaction`));
    }
    // With an EVM pool the receipts lead to the blocks; without one, the node's tx index is searched.
    expect(searches(0)).toHaveLength(0);
    expect(searches(1).map((request) => request.params)).toContainEqual({ query: `ethereum_tx.ethereumTxHash='${first.evmHash}'`, prove: false, order_by: 'asc' });
  });

  it('answers over the WebSocket in upstream mode too', async () => {
    const ws = await WsClient.open(withEvm.wsUrl);
    try {
      const answer = await ws.call(9, 'tx_by_evm_hash', { hash: second.evmHash });
      expect(answer.result).toEqual(await nodeTx(devnet.url, second.cometHash));
    } finally {
      await ws.close();
    }
  });
});
