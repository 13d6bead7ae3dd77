/**
 * The EVM definitions invoked through the upstream forward path over small in-process EVM JSON-RPC
 * servers (real HTTP): eth_getLogs split across the pool, the caps, immutable caching, raw wire text
 * kept, eth_sendRawTransaction not retried, a receipt beyond the head moving it, the params each call sends.
 */
import { Logger } from '@nestjs/common';
import { createServer, type Server } from 'node:http';
import { EVM_PROTOCOL } from '../../../src/backends/upstream/evm-protocol';
import { rawJsonOf, UnreadJson } from '../../../src/rpc/result-json';
import { UPSTREAM_DEFAULTS } from '../../../src/config/upstream-config';
import { UpstreamPool } from '../../../src/backends/upstream/upstream-pool';
import * as evm from '../../../src/evm-rpc/definitions';
import type { LogFilter } from '../../../src/evm-rpc/evm-types';
import { ApplicationError } from '../../../src/rpc/errors';
import type { Invoker } from '../../../src/rpc/invoker';
import { upstreamEvmInvoker, type EvmLimits } from '../../support/evm-methods';

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

describe('the EVM forward path', () => {
  beforeAll(() => Logger.overrideLogger(false));
  let a: FakeNode;
  let b: FakeNode;
  let pool: UpstreamPool;
  let backend: Invoker;

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
    backend = upstreamEvmInvoker(pool);
  });

  afterEach(async () => {
    pool.stop();
    await Promise.all([a.close(), b.close()]);
  });

  const logCalls = () => [...a.calls, ...b.calls].filter((c) => c.method === 'eth_getLogs');
  const getLogs = (criteria: LogFilter, limits: Partial<EvmLimits> = {}) => upstreamEvmInvoker(pool, limits).invoke(evm.eth_getLogs, { criteria });

  it('splits a long range into chunks over both upstreams and joins them in order', async () => {
    const logs = await getLogs({ fromBlock: { kind: 'number', number: 5n }, toBlock: { kind: 'number', number: 64n } });
    expect(logs.map((l) => Number(l.blockNumber))).toEqual(Array.from({ length: 60 }, (_, i) => 5 + i));
    expect(logCalls()).toHaveLength(6);
    expect(a.calls.some((c) => c.method === 'eth_getLogs')).toBe(true);
    expect(b.calls.some((c) => c.method === 'eth_getLogs')).toBe(true);
    // The chunks are final: asked again, nothing goes upstream.
    await getLogs({ fromBlock: { kind: 'number', number: 5n }, toBlock: { kind: 'number', number: 64n } });
    expect(logCalls()).toHaveLength(6);
  });

  it('passes a short range as asked (a bound left out is the latest block to the node)', async () => {
    await getLogs({ fromBlock: { kind: 'number', number: 95n } });
    expect(logCalls()).toEqual([{ method: 'eth_getLogs', params: [{ fromBlock: '0x5f' }] }]);
  });

  it('applies the range and log caps with Evmos texts', async () => {
    const range = { fromBlock: { kind: 'number' as const, number: 1n }, toBlock: { kind: 'number' as const, number: 90n } };
    await expect(getLogs(range, { 'block-range-cap': 50 })).rejects.toThrow('maximum [from, to] blocks distance: 50');
    await expect(getLogs(range, { 'logs-cap': 20 })).rejects.toThrow('query returned more than 20 results');
    // One chunk alone over the cap too.
    await expect(getLogs({ fromBlock: range.fromBlock, toBlock: { kind: 'number', number: 5n } }, { 'logs-cap': 3 })).rejects.toThrow('query returned more than 3 results');
  });

  it('keeps the upstream wire text of an object result and caches a past block', async () => {
    const read = () => backend.invoke(evm.eth_getBlockByNumber, { block: { kind: 'number', number: 7n }, fullTransactions: false });
    const block = await read();
    expect(rawJsonOf(block)).toBe(JSON.stringify(block));
    const again = await read();
    expect(again).toBe(block);
    expect(pool.cache.hits).toBe(1);
  });

  it("hands a client's answer on as the node's text, unparsed; the gateway's own call of the same read gets its value", async () => {
    const args = { block: { kind: 'number' as const, number: 7n }, fullTransactions: false };
    const request = { method: evm.eth_getBlockByNumber.name, params: ['0x7', false], id: 1 };
    const answer = await backend.run(evm.eth_getBlockByNumber, args, request, { transport: 'jsonrpc', remote: 'test', requestId: 1 });
    expect(answer).toBeInstanceOf(UnreadJson);
    const text = (answer as UnreadJson).text;
    expect(JSON.parse(text)).toEqual({ number: '0x7', hash: `0x${'ab'.repeat(32)}`, transactions: [] });
    // Cached as it came; read from the cache by the gateway itself, it is the value.
    const block = await backend.invoke(evm.eth_getBlockByNumber, args);
    expect(block).toEqual(JSON.parse(text));
    expect(rawJsonOf(block)).toBe(text);
    expect(pool.cache.hits).toBe(1);
  });

  it('reads a client answer a hook of its definition reads (a receipt shows its block)', async () => {
    const request = { method: evm.eth_getTransactionReceipt.name, params: [`0x${'11'.repeat(32)}`], id: 1 };
    const answer = await backend.run(evm.eth_getTransactionReceipt, { hash: `0x${'11'.repeat(32)}` }, request, { transport: 'jsonrpc', remote: 'test', requestId: 1 });
    expect(answer).not.toBeInstanceOf(UnreadJson);
    expect(answer).toMatchObject({ transactionHash: `0x${'11'.repeat(32)}` });
  });

  it('sends a raw transaction to one upstream only, and passes its error on', async () => {
    await expect(backend.invoke(evm.eth_sendRawTransaction, { data: '0x010203' })).rejects.toEqual(new ApplicationError('nonce too low'));
    expect([...a.calls, ...b.calls].filter((c) => c.method === 'eth_sendRawTransaction')).toHaveLength(1);
  });

  it('after a receipt in a block beyond the head, answers a latest read afresh', async () => {
    const latest = { kind: 'tag' as const, tag: 'latest' as const };
    const address = `0x${'11'.repeat(20)}`;
    const balance = async () => BigInt(await backend.invoke(evm.eth_getBalance, { address, block: latest }));
    // A latest answer is kept from its second answer (docs/upstream.md#cache).
    expect(await balance()).toBe(BigInt(HEAD));
    expect(await balance()).toBe(BigInt(HEAD));
    a.head = b.head = HEAD + 1;
    expect(await balance()).toBe(BigInt(HEAD));
    const receipt = await backend.invoke(evm.eth_getTransactionReceipt, { hash: `0x${'22'.repeat(32)}` });
    expect(receipt?.blockNumber).toBe(`0x${(HEAD + 1).toString(16)}`);
    expect(pool.head).toBe(BigInt(HEAD + 1));
    expect(await balance()).toBe(BigInt(HEAD + 1));
  });

  it('sends each call as its definition encodes it: the gas cap applied, a left-out block left out', async () => {
    const sent = (method: string) => [...a.calls, ...b.calls].filter((c) => c.method === method).map((c) => c.params);
    const capped = upstreamEvmInvoker(pool, { 'gas-cap': 100 });
    const args = { to: `0x${'33'.repeat(20)}`, gas: 1000n, value: 1n, input: '0x1234' };
    const wire = { to: `0x${'33'.repeat(20)}`, gas: '0x64', value: '0x1', input: '0x1234', data: '0x1234' };
    await capped.invoke(evm.eth_call, { args, block: { kind: 'number', number: 5n } });
    expect(sent('eth_call')).toEqual([[wire, '0x5']]);
    expect(await capped.invoke(evm.eth_estimateGas, { args })).toBe('0x5208');
    await capped.invoke(evm.eth_estimateGas, { args, block: { kind: 'tag', tag: 'pending' } });
    // The two calls may go to either upstream: compared as a set.
    expect(sent('eth_estimateGas')).toHaveLength(2);
    expect(sent('eth_estimateGas')).toEqual(expect.arrayContaining([[wire], [wire, 'pending']]));
    await capped.invoke(evm.debug_traceCall, { args, block: { kind: 'number', number: 5n }, config: { tracer: 'callTracer' } });
    expect(sent('debug_traceCall')).toEqual([[wire, '0x5', { tracer: 'callTracer' }]]);
    await backend.invoke(evm.eth_feeHistory, { blockCount: 4n, lastBlock: { kind: 'number', number: 7n }, rewardPercentiles: [25, 75] });
    expect(sent('eth_feeHistory')).toEqual([['0x4', '0x7', [25, 75]]]);
    const blockHash = `0x${'44'.repeat(32)}`;
    await backend.invoke(evm.eth_getBlockReceipts, { block: { kind: 'hash', hash: blockHash, requireCanonical: false } });
    expect(sent('eth_getBlockReceipts')).toEqual([[{ blockHash, requireCanonical: false }]]);
    // A state read without a block gets `latest` written out (Evmos and anvil require it).
    await backend.invoke(evm.eth_getBalance, { address: `0x${'55'.repeat(20)}` });
    expect(sent('eth_getBalance').at(-1)).toEqual([`0x${'55'.repeat(20)}`, 'latest']);
  });
});
