/**
 * UpstreamEvmBackend over small in-process EVM JSON-RPC servers (real HTTP), with the real EVM method
 * definitions: getLogs chunking across the pool, the caps, immutable caching, raw wire text kept,
 * sendRawTransaction not retried, a receipt beyond the head moving it, the params each call sends.
 */
import { Logger } from '@nestjs/common';
import { createServer, type Server } from 'node:http';
import { EVM_PROTOCOL } from '../../../src/backends/upstream/evm-protocol';
import { rawJsonOf } from '../../../src/rpc/result-json';
import { UPSTREAM_DEFAULTS } from '../../../src/config/upstream-config';
import { UpstreamEvmBackend } from '../../../src/backends/upstream/upstream-evm-backend';
import { UpstreamPool } from '../../../src/backends/upstream/upstream-pool';
import { ApplicationError } from '../../../src/rpc/errors';
import { upstreamEvmBackend } from '../../support/evm-methods';

const HEAD = 100;

interface FakeNode {
  readonly url: string;
  readonly calls: { method: string; params: any[] }[];
  /** Its latest block (HEAD at first); balances and receipts are read at it. */
  head: number;
  close(): Promise<void>;
}

/** One log per block, at every height up to HEAD. */
async function fakeNode(): Promise<FakeNode> {
  const calls: { method: string; params: any[] }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { id, method, params } = JSON.parse(body);
      calls.push({ method, params });
      let result: unknown;
      let error: unknown;
      switch (method) {
        case 'eth_blockNumber':
        case 'eth_getBalance':
          result = `0x${node.head.toString(16)}`;
          break;
        case 'eth_getTransactionReceipt':
          result = { transactionHash: params[0], blockNumber: `0x${node.head.toString(16)}`, logs: [] };
          break;
        case 'eth_syncing':
          result = false;
          break;
        case 'eth_chainId':
          result = '0x2329';
          break;
        case 'eth_getLogs': {
          const from = Number(params[0].fromBlock);
          const to = Number(params[0].toBlock);
          result = Array.from({ length: to - from + 1 }, (_, i) => ({ blockNumber: `0x${(from + i).toString(16)}`, logIndex: '0x0' }));
          break;
        }
        case 'eth_getBlockByNumber':
          result = { number: params[0], hash: `0x${'ab'.repeat(32)}`, transactions: [] };
          break;
        case 'eth_call':
          result = '0x';
          break;
        case 'eth_estimateGas':
          result = '0x5208';
          break;
        case 'eth_getBlockReceipts':
          result = [];
          break;
        case 'eth_feeHistory':
        case 'debug_traceCall':
          result = {};
          break;
        case 'eth_sendRawTransaction':
          error = { code: -32000, message: 'nonce too low' };
          break;
        default:
          error = { code: -32601, message: `the method ${method} does not exist/is not available` };
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(error ? { jsonrpc: '2.0', id, error } : { jsonrpc: '2.0', id, result }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  const node: FakeNode = { url: `http://127.0.0.1:${port}`, calls, head: HEAD, close: () => new Promise((r) => server.close(() => r())) };
  return node;
}

describe('UpstreamEvmBackend', () => {
  beforeAll(() => Logger.overrideLogger(false));
  let a: FakeNode;
  let b: FakeNode;
  let pool: UpstreamPool;
  let backend: UpstreamEvmBackend;

  beforeEach(async () => {
    [a, b] = await Promise.all([fakeNode(), fakeNode()]);
    const settings = { ...UPSTREAM_DEFAULTS, logs_chunk_blocks: 10, hedge_quantile: 0 };
    pool = new UpstreamPool(
      [
        { name: 'a', url: a.url, weight: 1 },
        { name: 'b', url: b.url, weight: 1 },
      ],
      settings,
      { maxBytes: 1 << 20 },
      EVM_PROTOCOL,
      'EVM',
    );
    await pool.checkHealth();
    backend = upstreamEvmBackend(pool);
  });

  afterEach(async () => {
    pool.stop();
    await Promise.all([a.close(), b.close()]);
  });

  const logCalls = () => [...a.calls, ...b.calls].filter((c) => c.method === 'eth_getLogs');

  it('splits a long range into chunks over both upstreams and joins them in order', async () => {
    const logs = await backend.getLogs({ fromBlock: { kind: 'number', number: 5n }, toBlock: { kind: 'number', number: 64n } }, { blockRange: 10_000, logs: 10_000 });
    expect(logs.map((l) => Number(l.blockNumber))).toEqual(Array.from({ length: 60 }, (_, i) => 5 + i));
    expect(logCalls()).toHaveLength(6);
    expect(a.calls.some((c) => c.method === 'eth_getLogs')).toBe(true);
    expect(b.calls.some((c) => c.method === 'eth_getLogs')).toBe(true);
    // The chunks are final: asked again, nothing goes upstream.
    await backend.getLogs({ fromBlock: { kind: 'number', number: 5n }, toBlock: { kind: 'number', number: 64n } }, { blockRange: 10_000, logs: 10_000 });
    expect(logCalls()).toHaveLength(6);
  });

  it('passes a short range with tags on as asked', async () => {
    await backend.getLogs({ fromBlock: { kind: 'number', number: 95n } }, { blockRange: 10_000, logs: 10_000 });
    expect(logCalls()).toEqual([{ method: 'eth_getLogs', params: [{ fromBlock: '0x5f', toBlock: 'latest' }] }]);
  });

  it('applies the range and log caps with Evmos texts', async () => {
    const range = { fromBlock: { kind: 'number' as const, number: 1n }, toBlock: { kind: 'number' as const, number: 90n } };
    await expect(backend.getLogs(range, { blockRange: 50, logs: 10_000 })).rejects.toThrow('maximum [from, to] blocks distance: 50');
    await expect(backend.getLogs(range, { blockRange: 10_000, logs: 20 })).rejects.toThrow('query returned more than 20 results');
  });

  it('keeps the upstream wire text of an object result and caches a past block', async () => {
    const block = await backend.getBlockByNumber({ kind: 'number', number: 7n }, false);
    expect(rawJsonOf(block)).toBe(JSON.stringify(block));
    const again = await backend.getBlockByNumber({ kind: 'number', number: 7n }, false);
    expect(again).toBe(block);
    expect(pool.cache.hits).toBe(1);
  });

  it('sends a raw transaction to one upstream only, and passes its error on', async () => {
    await expect(backend.sendRawTransaction(new Uint8Array([1, 2, 3]))).rejects.toEqual(new ApplicationError('nonce too low'));
    expect([...a.calls, ...b.calls].filter((c) => c.method === 'eth_sendRawTransaction')).toHaveLength(1);
  });

  it('after a receipt in a block beyond the head, answers a latest read afresh', async () => {
    const latest = { kind: 'tag' as const, tag: 'latest' as const };
    const address = `0x${'11'.repeat(20)}`;
    expect(await backend.getBalance(address, latest)).toBe(BigInt(HEAD));
    a.head = b.head = HEAD + 1;
    expect(await backend.getBalance(address, latest)).toBe(BigInt(HEAD));
    const receipt = await backend.getTransactionReceipt(`0x${'22'.repeat(32)}`);
    expect(receipt?.blockNumber).toBe(`0x${(HEAD + 1).toString(16)}`);
    expect(pool.head).toBe(BigInt(HEAD + 1));
    expect(await backend.getBalance(address, latest)).toBe(BigInt(HEAD + 1));
  });

  it('sends each call as its definition encodes it: the gas cap applied, `latest` left out of eth_estimateGas', async () => {
    const sent = (method: string) => [...a.calls, ...b.calls].filter((c) => c.method === method).map((c) => c.params);
    const limits = { gasCap: 100n, timeoutMs: 0 };
    const args = { to: `0x${'33'.repeat(20)}`, gas: 1000n, value: 1n, input: '0x1234' };
    const wire = { to: `0x${'33'.repeat(20)}`, gas: '0x64', value: '0x1', input: '0x1234', data: '0x1234' };
    await backend.call(args, { kind: 'number', number: 5n }, limits);
    expect(sent('eth_call')).toEqual([[wire, '0x5']]);
    expect(await backend.estimateGas(args, { kind: 'tag', tag: 'latest' }, limits)).toBe(21000n);
    await backend.estimateGas(args, { kind: 'tag', tag: 'pending' }, limits);
    // The two calls may go to either upstream: compared as a set.
    expect(sent('eth_estimateGas')).toHaveLength(2);
    expect(sent('eth_estimateGas')).toEqual(expect.arrayContaining([[wire], [wire, 'pending']]));
    await backend.traceCall(args, { kind: 'number', number: 5n }, { tracer: 'callTracer' }, limits);
    expect(sent('debug_traceCall')).toEqual([[wire, '0x5', { tracer: 'callTracer' }]]);
    await backend.feeHistory(4n, { kind: 'number', number: 7n }, [25, 75]);
    expect(sent('eth_feeHistory')).toEqual([['0x4', '0x7', [25, 75]]]);
    const blockHash = `0x${'44'.repeat(32)}`;
    await backend.getBlockReceipts({ kind: 'hash', hash: blockHash, requireCanonical: false });
    expect(sent('eth_getBlockReceipts')).toEqual([[{ blockHash, requireCanonical: false }]]);
  });

  it('returns no dev account keys', async () => {
    expect(await backend.devAccountKeys()).toEqual([]);
  });
});
