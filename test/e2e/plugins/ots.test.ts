/**
 * The shipped `ots` plugin (Otterscan's namespace) over the embedded devnet, loaded by default: ethers
 * makes real activity (value transfers, a contract creation with logs, CREATE and CREATE2 by a
 * contract, an internal value transfer, view calls, a reverted inner call, a self-destruct, a revert),
 * then every ots_* method is called over HTTP, in one batch and over WebSocket, each answer checked
 * against the shapes recorded from Otterscan's docs and erigon's code (fixtures/ots-shapes.json) and
 * for what this chain decides. Also: the namespace is gated by `[json-rpc] api`, and in upstream mode
 * the calls go to the upstream as sent (its answers, or its "method not available", come back).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AbiCoder, ContractFactory, getCreate2Address, getCreateAddress, id, JsonRpcProvider, keccak256, Wallet, type Contract } from 'ethers';
import { loadPlugins } from '../../../src/plugins/loader';
import { evmRpcFlags } from '../../support/backends';
import { post, startTestGateway, waitForHeight, type TestGateway } from '../../support/gateway';
import { startUpstreamGateway, type UpstreamGateway } from '../../support/upstream';
import { WsClient } from '../../support/ws-client';
import { explorerContracts } from './fixtures/explorer-contracts';
import docAnswers from './fixtures/otterscan-doc-answers.json';
import { shapeErrors, shapeOf } from './fixtures/shapes';
import { testProvider } from '../../support/ethers-provider';

/** The first two accounts of the well-known development mnemonic, prefunded by the devnet. */
const KEY_A = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const KEY_B = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const errorData = (reason: string): string => '0x08c379a0' + AbiCoder.defaultAbiCoder().encode(['string'], [reason]).slice(2);
const hex = (n: number | bigint): string => '0x' + n.toString(16);

interface Activity {
  makeBlockHash?: string;
  a: string;
  b: string;
  c: string;
  factory: string;
  plain: string;
  salted: string;
  vanished: string;
  tx: Record<'transfer' | 'deploy' | 'make' | 'relay' | 'fail' | 'vanish', string>;
  block: Record<'transfer' | 'deploy' | 'make' | 'relay' | 'fail' | 'vanish', number>;
}

const makeBlockHashOf = (act: Activity): string => act.makeBlockHash!;

/** One call and what its answer must be (besides its recorded shape). */
interface Case {
  readonly name: string;
  readonly method: string;
  readonly params: unknown[];
  readonly check: (result: any) => void;
  /** The answer depends on the head (it may differ between transports). */
  readonly moving?: boolean;
}

async function makeActivity(provider: JsonRpcProvider): Promise<Activity> {
  const { Factory, Child } = explorerContracts();
  const walletA = new Wallet(KEY_A, provider);
  const a = walletA.address.toLowerCase();
  const b = new Wallet(KEY_B).address.toLowerCase();
  const c = Wallet.createRandom().address.toLowerCase();
  const mined = async (hash: string) => {
    const receipt = (await provider.waitForTransaction(hash))!;
    return { hash, block: receipt.blockNumber };
  };
  const transfer = await mined((await walletA.sendTransaction({ to: b, value: 10n ** 18n })).hash);
  const contract = (await new ContractFactory(Factory.abi, Factory.bytecode, walletA).deploy()) as Contract;
  const deploy = await mined(contract.deploymentTransaction()!.hash);
  const factory = (await contract.getAddress()).toLowerCase();
  const make = await mined((await contract.make(id('one'), { value: 2n })).hash);
  const plain = getCreateAddress({ from: factory, nonce: 1 }).toLowerCase();
  const salted = getCreate2Address(factory, id('one'), keccak256(Child.bytecode)).toLowerCase();
  const relay = await mined((await contract.relay(c, plain, { value: 5n })).hash);
  // A transaction (ethers would only call a pure function), with its own gas limit (an estimate fails on the revert).
  const fail = await mined((await walletA.sendTransaction({ to: factory, data: Factory.abi.encodeFunctionData('fail'), gasLimit: 100_000n })).hash);
  const vanish = await mined((await contract.makeAndVanish(id('two'), b, { value: 7n })).hash);
  const vanished = getCreate2Address(factory, id('two'), keccak256(Child.bytecode)).toLowerCase();
  const all = { transfer, deploy, make, relay, fail, vanish };
  return {
    a,
    b,
    c,
    factory,
    plain,
    salted,
    vanished,
    tx: Object.fromEntries(Object.entries(all).map(([k, v]) => [k, v.hash])) as Activity['tx'],
    block: Object.fromEntries(Object.entries(all).map(([k, v]) => [k, v.block])) as Activity['block'],
  };
}

/** The cases: every ots_* method, with the values this chain's activity decides. */
function cases(act: Activity): Case[] {
  const { a, b, c, factory, plain, salted, vanished, tx, block } = act;
  const hashes = (r: any) => r.txs.map((t: any) => t.hash);
  const { Factory } = explorerContracts();
  return [
    { name: 'api level', method: 'ots_getApiLevel', params: [], check: (r) => expect(r).toBe(8) },
    { name: 'code at latest', method: 'ots_hasCode', params: [factory, 'latest'], check: (r) => expect(r).toBe(true) },
    { name: 'no code on an EOA', method: 'ots_hasCode', params: [a, 'latest'], check: (r) => expect(r).toBe(false) },
    { name: 'no code before the deployment (a bare decimal block)', method: 'ots_hasCode', params: [factory, block.deploy - 1], check: (r) => expect(r).toBe(false) },
    { name: 'code at the deployment (a hex block)', method: 'ots_hasCode', params: [factory, hex(block.deploy)], check: (r) => expect(r).toBe(true) },
    {
      name: 'block details',
      method: 'ots_getBlockDetails',
      params: [block.make],
      check: (r) => {
        expect(r.block.number).toBe(hex(block.make));
        expect(r.block.transactionCount).toBe(1);
        expect(Object.keys(r.block)).toEqual([...Object.keys(r.block)].sort());
        expect(r.issuance).toEqual({ blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' });
      },
    },
    { name: 'block details by a quoted decimal number', method: 'ots_getBlockDetails', params: [String(block.make)], check: (r) => expect(r.block.number).toBe(hex(block.make)) },
    { name: 'block details by a hex number', method: 'ots_getBlockDetails', params: [hex(block.make)], check: (r) => expect(r.block.number).toBe(hex(block.make)) },
    { name: 'block details at latest', method: 'ots_getBlockDetails', params: ['latest'], moving: true, check: (r) => expect(r.block.transactionCount).toBeGreaterThanOrEqual(0) },
    { name: 'block details of a block to come', method: 'ots_getBlockDetails', params: [10_000_000], check: (r) => expect(r).toBeNull() },
    {
      name: 'block details by hash',
      method: 'ots_getBlockDetailsByHash',
      params: ['$makeBlockHash'],
      check: (r) => expect(r.block.number).toBe(hex(block.make)),
    },
    { name: 'block details of an unknown hash', method: 'ots_getBlockDetailsByHash', params: ['0x' + 'ab'.repeat(32)], check: (r) => expect(r).toBeNull() },
    {
      name: 'block transactions',
      method: 'ots_getBlockTransactions',
      params: [block.make, 0, 25],
      check: (r) => {
        expect(r.fullblock.transactionCount).toBe(1);
        expect(r.fullblock.transactions.map((t: any) => t.hash)).toEqual([tx.make]);
        expect(r.fullblock.transactions[0].input).toBe(Factory.abi.getFunction('make')!.selector);
        expect(r.receipts[0]).toMatchObject({ transactionHash: tx.make, status: '0x1', logs: null, logsBloom: null });
      },
    },
    {
      name: 'block transactions past the last page',
      method: 'ots_getBlockTransactions',
      params: [block.make, 1, 25],
      check: (r) => expect([r.fullblock.transactions, r.receipts, r.fullblock.transactionCount]).toEqual([[], [], 1]),
    },
    { name: 'the revert data of a failed tx', method: 'ots_getTransactionError', params: [tx.fail], check: (r) => expect(r).toBe(errorData('factory says no')) },
    { name: 'no revert data for a success', method: 'ots_getTransactionError', params: [tx.relay], check: (r) => expect(r).toBe('0x') },
    {
      name: 'internal CREATE and CREATE2',
      method: 'ots_getInternalOperations',
      params: [tx.make],
      check: (r) =>
        expect(r).toEqual([
          { type: 2, from: factory, to: plain, value: '0x1' },
          { type: 3, from: factory, to: salted, value: '0x0' },
        ]),
    },
    { name: 'an internal transfer', method: 'ots_getInternalOperations', params: [tx.relay], check: (r) => expect(r).toEqual([{ type: 0, from: factory, to: c, value: '0x5' }]) },
    {
      name: 'a self-destruct',
      method: 'ots_getInternalOperations',
      params: [tx.vanish],
      check: (r) =>
        expect(r).toEqual([
          { type: 3, from: factory, to: vanished, value: '0x7' },
          { type: 1, from: vanished, to: b, value: '0x7' },
        ]),
    },
    { name: 'no internal operations in a plain transfer', method: 'ots_getInternalOperations', params: [tx.transfer], check: (r) => expect(r).toEqual([]) },
    {
      name: 'the trace of calls, view calls and a reverted inner call',
      method: 'ots_traceTransaction',
      params: [tx.relay],
      check: (r) => {
        expect(r.map((e: any) => [e.type, e.depth, e.from, e.to, e.value])).toEqual([
          ['CALL', 0, a, factory, '0x5'],
          ['CALL', 1, factory, c, '0x5'],
          ['STATICCALL', 1, factory, factory, null],
          ['STATICCALL', 1, factory, plain, null],
        ]);
        expect(r[0].input.startsWith(Factory.abi.getFunction('relay')!.selector)).toBe(true);
        expect(r[2].output).toBe(errorData('boom'));
        expect(BigInt(r[3].output)).toBe(1n);
      },
    },
    {
      name: 'the trace of a creation and a self-destruct',
      method: 'ots_traceTransaction',
      params: [tx.vanish],
      check: (r) =>
        expect(r.map((e: any) => [e.type, e.depth, e.from, e.to, e.value])).toEqual([
          ['CALL', 0, a, factory, '0x7'],
          ['CREATE2', 1, factory, vanished, '0x7'],
          ['CALL', 1, factory, vanished, '0x0'],
          ['SELFDESTRUCT', 2, vanished, b, '0x7'],
        ]),
    },
    {
      name: 'the trace of a deployment',
      method: 'ots_traceTransaction',
      params: [tx.deploy],
      check: (r) => expect(r.map((e: any) => [e.type, e.depth, e.from, e.to])).toEqual([['CREATE', 0, a, factory]]),
    },
    {
      name: "an address's history, from the latest block",
      method: 'ots_searchTransactionsBefore',
      params: [a, 0, 25],
      check: (r) => {
        expect(hashes(r)).toEqual([tx.vanish, tx.fail, tx.relay, tx.make, tx.deploy, tx.transfer]);
        expect(r.receipts.map((x: any) => x.transactionHash)).toEqual(hashes(r));
        expect(r.receipts.map((x: any) => x.status)).toEqual(['0x1', '0x0', '0x1', '0x1', '0x1', '0x1']);
        expect([r.firstPage, r.lastPage]).toEqual([true, true]);
      },
    },
    {
      name: 'a page before a block',
      method: 'ots_searchTransactionsBefore',
      params: [a, block.relay, 2],
      check: (r) => expect([hashes(r), r.firstPage, r.lastPage]).toEqual([[tx.make, tx.deploy], false, false]),
    },
    {
      name: 'the oldest page',
      method: 'ots_searchTransactionsAfter',
      params: [a, 0, 2],
      check: (r) => expect([hashes(r), r.firstPage, r.lastPage]).toEqual([[tx.deploy, tx.transfer], false, true]),
    },
    {
      name: 'a page after a block, up to the latest',
      method: 'ots_searchTransactionsAfter',
      params: [a, block.relay, 25],
      check: (r) => expect([hashes(r), r.firstPage, r.lastPage]).toEqual([[tx.vanish, tx.fail], true, false]),
    },
    {
      name: 'an address seen only in an internal transfer',
      method: 'ots_searchTransactionsAfter',
      params: [c, 0, 25],
      check: (r) => expect([hashes(r), r.firstPage, r.lastPage]).toEqual([[tx.relay], true, true]),
    },
    {
      name: 'a beneficiary and a recipient',
      method: 'ots_searchTransactionsBefore',
      params: [b, 0, 25],
      check: (r) => expect(hashes(r)).toEqual([tx.vanish, tx.transfer]),
    },
    { name: 'a tx by sender and nonce', method: 'ots_getTransactionBySenderAndNonce', params: [a, 2], check: (r) => expect(r).toBe(tx.make) },
    { name: 'a nonce not used yet', method: 'ots_getTransactionBySenderAndNonce', params: [a, 1000], check: (r) => expect(r).toBeNull() },
    { name: 'a deployed contract’s creator', method: 'ots_getContractCreator', params: [factory], check: (r) => expect(r).toEqual({ hash: tx.deploy, creator: a }) },
    { name: 'a contract made by a contract', method: 'ots_getContractCreator', params: [salted], check: (r) => expect(r).toEqual({ hash: tx.make, creator: factory }) },
    { name: 'no creator for an EOA', method: 'ots_getContractCreator', params: [b], check: (r) => expect(r).toBeNull() },
    {
      name: 'a header, erigon’s way',
      method: 'erigon_getHeaderByNumber',
      params: [block.make],
      check: (r) => {
        expect(r.number).toBe(hex(block.make));
        expect(r.hash).toBe(makeBlockHashOf(act));
        expect(Object.keys(r)).toEqual(Object.keys(shapeOf('erigon_getHeaderByNumber') as object).map((k) => k.replace(/\?$/, '')).filter((k) => k !== '$comment' && k in r));
      },
    },
    { name: 'the latest header', method: 'erigon_getHeaderByNumber', params: ['latest'], moving: true, check: (r) => expect(Number(r.number)).toBeGreaterThanOrEqual(block.vanish) },
    { name: 'no creator for a destroyed contract', method: 'ots_getContractCreator', params: [vanished], check: (r) => expect(r).toBeNull() },
  ];
}

/** Errors the ots methods answer, exactly. */
function errorCases(act: Activity): { name: string; method: string; params: unknown[]; error: { code: number; message: string } }[] {
  const unknown = '0x' + 'cd'.repeat(32);
  return [
    { name: 'an unknown tx', method: 'ots_traceTransaction', params: [unknown], error: { code: -32000, message: `transaction ${unknown} not found` } },
    { name: 'an unknown tx', method: 'ots_getTransactionError', params: [unknown], error: { code: -32000, message: `transaction ${unknown} not found` } },
    { name: 'a page too large', method: 'ots_searchTransactionsBefore', params: [act.a, 0, 26], error: { code: -32000, message: 'max allowed page size: 25' } },
    {
      name: 'a page size as a string',
      method: 'ots_searchTransactionsAfter',
      params: [act.a, 0, '25'],
      error: { code: -32602, message: 'invalid argument 2: json: cannot unmarshal string into Go value of type uint16' },
    },
    {
      name: 'a page number out of range',
      method: 'ots_getBlockTransactions',
      params: [1, 256, 25],
      error: { code: -32602, message: 'invalid argument 1: json: cannot unmarshal number 256 into Go value of type uint8' },
    },
    { name: 'a missing address', method: 'ots_hasCode', params: [], error: { code: -32602, message: 'missing value for required argument 0' } },
    { name: 'a block to come', method: 'erigon_getHeaderByNumber', params: [10_000_000], error: { code: -32000, message: 'block header not found: 10000000' } },
  ];
}

/** The EVM RPC with namespaces `api`, the ots plugin loaded (`[plugins] load`). */
const otsFlags = (api: string): Record<string, string> => ({ ...evmRpcFlags(api), 'plugins.load': 'plugins/ots' });

const notAvailable = (method: string) => ({ code: -32601, message: `the method ${method} does not exist/is not available` });

it('the recorded shapes accept the answers quoted in Otterscan’s docs', () => {
  for (const [method, answers] of Object.entries(docAnswers)) {
    if (method.startsWith('$')) continue;
    for (const answer of answers as unknown[]) expect([method, shapeErrors(answer, shapeOf(method))]).toEqual([method, []]);
  }
});

describe('the ots plugin over the embedded devnet', () => {
  let gw: TestGateway;
  let provider: JsonRpcProvider;
  let act: Activity;
  let all: Case[];
  let ws: WsClient;
  /** Answers over plain HTTP, by case index: compared with the batch's and the WebSocket's. */
  const overHttp: unknown[] = [];

  beforeAll(async () => {
    gw = await startTestGateway(otsFlags('eth,net,web3,ots,erigon'));
    await waitForHeight(gw.url, 1);
    provider = testProvider(gw.evmHttpUrl!);
    act = await makeActivity(provider);
    const makeBlockHash = (await provider.getBlock(act.block.make))!.hash!;
    act.makeBlockHash = makeBlockHash;
    all = cases(act).map((c) => ({
      ...c,
      params: c.params.map((p) => (p === '$makeBlockHash' ? makeBlockHash : p)),
    }));
    ws = await WsClient.open(gw.evmWsUrl!);
  }, 120_000);

  afterAll(async () => {
    await ws?.close();
    provider?.destroy();
    await gw?.close();
  });

  /** One call over the WebSocket, answered by id. */
  const overWs = (id: number, method: string, params: unknown[]) => {
    ws.send({ jsonrpc: '2.0', id, method, params });
    return ws.next((m) => m.id === id);
  };
  const rpc = async (method: string, params: unknown[]) => (await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 1, method, params })).json;

  it('serves every ots method over HTTP, each answer of its recorded shape and this chain’s values', async () => {
    const methods = new Set<string>();
    for (const [i, c] of all.entries()) {
      const answer = await rpc(c.method, c.params);
      expect([c.name, answer.error]).toEqual([c.name, undefined]);
      expect([c.name, shapeErrors(answer.result, shapeOf(c.method))]).toEqual([c.name, []]);
      c.check(answer.result);
      overHttp[i] = answer.result;
      methods.add(c.method);
    }
    expect([...methods].sort()).toEqual(
      [
        'ots_getApiLevel',
        'ots_getBlockDetails',
        'ots_getBlockDetailsByHash',
        'ots_getBlockTransactions',
        'ots_getContractCreator',
        'ots_getInternalOperations',
        'ots_getTransactionBySenderAndNonce',
        'ots_getTransactionError',
        'ots_hasCode',
        'ots_searchTransactionsAfter',
        'ots_searchTransactionsBefore',
        'ots_traceTransaction',
        'erigon_getHeaderByNumber',
      ].sort(),
    );
  }, 60_000);

  it('answers the same in one batch', async () => {
    const body = all.map((c, i) => ({ jsonrpc: '2.0', id: i, method: c.method, params: c.params }));
    const answers = (await post(gw.evmHttpUrl!, body)).json as any[];
    expect(answers).toHaveLength(all.length);
    for (const answer of answers) {
      const c = all[answer.id];
      expect([c.name, shapeErrors(answer.result, shapeOf(c.method))]).toEqual([c.name, []]);
      c.check(answer.result);
      if (!c.moving) expect([c.name, answer.result]).toEqual([c.name, overHttp[answer.id]]);
    }
  }, 60_000);

  it('answers the same over WebSocket', async () => {
    for (const [i, c] of all.entries()) {
      const answer = await overWs(1000 + i, c.method, c.params);
      expect([c.name, answer.error]).toEqual([c.name, undefined]);
      c.check(answer.result);
      if (!c.moving) expect([c.name, answer.result]).toEqual([c.name, overHttp[i]]);
    }
  }, 60_000);

  it('agrees with the standard methods', async () => {
    const details = await rpc('ots_getBlockDetails', [act.block.make]);
    const receipt = await provider.getTransactionReceipt(act.tx.make);
    expect(BigInt(details.result.totalFees)).toBe(receipt!.gasUsed * receipt!.gasPrice);
    const block = await rpc('eth_getBlockByNumber', [hex(act.block.make), false]);
    const { transactions, logsBloom, ...rest } = block.result;
    expect(details.result.block).toEqual({ ...rest, logsBloom: null, transactionCount: transactions.length });
    const search = (await rpc('ots_searchTransactionsBefore', [act.a, 0, 25])).result;
    for (const [i, t] of search.txs.entries()) {
      expect(t).toEqual((await rpc('eth_getTransactionByHash', [t.hash])).result);
      const { timestamp, ...own } = search.receipts[i];
      expect(own).toEqual((await rpc('eth_getTransactionReceipt', [t.hash])).result);
      expect(timestamp).toBe(Number((await rpc('eth_getBlockByNumber', [t.blockNumber, false])).result.timestamp));
      expect(Object.keys(search.receipts[i])).toEqual(Object.keys(search.receipts[i]).sort());
    }
    expect((await rpc('ots_getTransactionBySenderAndNonce', [act.a, 0])).result).toBe(act.tx.transfer);
  });

  it('rpc_modules lists ots', async () => {
    expect((await rpc('rpc_modules', [])).result).toMatchObject({ eth: '1.0', ots: '1.0', erigon: '1.0' });
  });

  it('answers errors with go-ethereum’s codes and texts, alone, in a batch and over WebSocket', async () => {
    const errors = errorCases(act);
    for (const e of errors) expect([e.method, e.name, (await rpc(e.method, e.params)).error]).toEqual([e.method, e.name, e.error]);
    const batch = (await post(gw.evmHttpUrl!, errors.map((e, i) => ({ jsonrpc: '2.0', id: i, method: e.method, params: e.params })))).json as any[];
    for (const answer of batch) expect(answer.error).toEqual(errors[answer.id].error);
    for (const [i, e] of errors.entries()) expect((await overWs(2000 + i, e.method, e.params)).error).toEqual(e.error);
  });

  it('traces a failed deployment as a CREATE to the address it would have had', async () => {
    // Gas for the intrinsic cost and the constructor, not for storing the code: the creation fails.
    const { Factory } = explorerContracts();
    const code = Buffer.from(Factory.bytecode.slice(2), 'hex');
    const intrinsic = 53_000 + code.reduce((gas, byte) => gas + (byte === 0 ? 4 : 16), 0) + 2 * Math.ceil(code.length / 32);
    const walletA = new Wallet(KEY_A, provider);
    const nonce = await provider.getTransactionCount(walletA.address, 'pending');
    const sent = await walletA.sendTransaction({ data: Factory.bytecode, gasLimit: BigInt(intrinsic + 30_000), nonce });
    expect((await provider.waitForTransaction(sent.hash))!.status).toBe(0);
    const would = getCreateAddress({ from: walletA.address, nonce }).toLowerCase();
    const trace = (await rpc('ots_traceTransaction', [sent.hash])).result;
    expect(trace.map((e: any) => [e.type, e.depth, e.to])).toEqual([['CREATE', 0, would]]);
    expect((await rpc('ots_getTransactionError', [sent.hash])).result).toBe('0x');
    expect((await rpc('ots_getContractCreator', [would])).result).toBeNull();
  });
});

describe('the ots and erigon namespaces are served only where [json-rpc] api lists them', () => {
  let gw: TestGateway;
  let ws: WsClient;

  beforeAll(async () => {
    gw = await startTestGateway(otsFlags('eth,net,web3'));
    ws = await WsClient.open(gw.evmWsUrl!);
  }, 60_000);
  afterAll(async () => {
    await ws?.close();
    await gw?.close();
  });

  it.each(['ots_getApiLevel', 'ots_searchTransactionsBefore', 'ots_traceTransaction', 'erigon_getHeaderByNumber'])('%s does not exist, alone, in a batch and over WebSocket', async (method) => {
    expect((await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 1, method, params: [] })).json).toEqual({ jsonrpc: '2.0', id: 1, error: notAvailable(method) });
    const batch = (await post(gw.evmHttpUrl!, [{ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }, { jsonrpc: '2.0', id: 2, method, params: [] }])).json;
    expect(batch[1]).toEqual({ jsonrpc: '2.0', id: 2, error: notAvailable(method) });
    expect(await ws.call(3, method, [])).toEqual({ jsonrpc: '2.0', id: 3, error: notAvailable(method) });
  });

  it('rpc_modules lists them only where they are served', async () => {
    const modules = (await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 1, method: 'rpc_modules', params: [] })).json.result;
    expect([modules.ots, modules.erigon]).toEqual([undefined, undefined]);
  });
});

describe('[plugins.ots] max_page_size', () => {
  const home = mkdtempSync(join(tmpdir(), 'rpcgw-ots-'));
  let gw: TestGateway;

  beforeAll(async () => {
    mkdirSync(join(home, 'config'));
    // The file says 5; the flag, read over it, 2.
    writeFileSync(join(home, 'config', 'gateway.toml'), '[plugins.ots]\nmax_page_size = 5\n');
    gw = await startTestGateway({ ...otsFlags('eth,ots'), 'plugins.ots.max_page_size': '2' }, home);
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('caps the searches’ page size', async () => {
    const address = new Wallet(KEY_A).address;
    const search = (size: number) => post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 1, method: 'ots_searchTransactionsAfter', params: [address, 0, size] });
    expect((await search(3)).json.error).toEqual({ code: -32000, message: 'max allowed page size: 2' });
    expect((await search(2)).json.result).toMatchObject({ txs: [], receipts: [], firstPage: true, lastPage: true });
  });

  it('is checked at start-up', () => {
    const plugins = (table: Record<string, unknown>) => ({ load: ['plugins/ots'], node_api: [], tables: { ots: table } });
    expect(() => loadPlugins(plugins({ max_page_size: 0 }), home)).toThrow(
      'config/gateway.toml: [plugins.ots] max_page_size = 0: expected an integer from 1 to 65535',
    );
    expect(() => loadPlugins(plugins({ page: 5 }), home)).toThrow('config/gateway.toml: [plugins.ots] page = 5: unknown key');
    expect(loadPlugins(plugins({}), home)[0].config).toEqual({ max_page_size: 25 });
  });
});

describe('the ots methods in upstream mode are forwarded as sent', () => {
  let withOts: TestGateway;
  let withoutOts: TestGateway;
  let overOts: UpstreamGateway;
  let overPlain: UpstreamGateway;
  let hash: string;

  const upstreamOver = async (node: TestGateway) =>
    startUpstreamGateway([{ name: 'devnet', url: node.url }], {
      evm: [{ name: 'devnet', url: node.evmHttpUrl!, ws: node.evmWsUrl! }],
      settings: { health_check_interval: '1s' },
      flags: otsFlags('eth,net,web3,ots'),
    });

  beforeAll(async () => {
    withOts = await startTestGateway(otsFlags('eth,net,web3,ots'));
    withoutOts = await startTestGateway(otsFlags('eth,net,web3'));
    await waitForHeight(withOts.url, 1);
    await waitForHeight(withoutOts.url, 1);
    const provider = testProvider(withOts.evmHttpUrl!);
    const sent = await new Wallet(KEY_A, provider).sendTransaction({ to: new Wallet(KEY_B).address, value: 3n });
    await provider.waitForTransaction(sent.hash);
    hash = sent.hash;
    provider.destroy();
    overOts = await upstreamOver(withOts);
    overPlain = await upstreamOver(withoutOts);
  }, 120_000);
  afterAll(async () => {
    await overOts?.close();
    await overPlain?.close();
    await withOts?.close();
    await withoutOts?.close();
  });

  const answer = async (gw: TestGateway, method: string, params: unknown[]) => (await post(gw.evmHttpUrl!, { jsonrpc: '2.0', id: 7, method, params })).json;

  it('an upstream serving ots answers them', async () => {
    const sender = new Wallet(KEY_A).address.toLowerCase();
    for (const [method, params] of [
      ['ots_getApiLevel', []],
      ['ots_traceTransaction', [hash]],
      ['ots_searchTransactionsBefore', [sender, 0, 25]],
      ['ots_getTransactionBySenderAndNonce', [sender, 0]],
    ] as [string, unknown[]][]) {
      const forwarded = await answer(overOts, method, params);
      expect([method, forwarded]).toEqual([method, await answer(withOts, method, params)]);
      expect(forwarded.result).toBeDefined();
    }
  });

  it('an upstream without ots answers its own "method not available"', async () => {
    for (const [method, params] of [
      ['ots_getApiLevel', []],
      ['ots_getContractCreator', [new Wallet(KEY_B).address]],
    ] as [string, unknown[]][]) {
      expect(await answer(overPlain, method, params)).toEqual({ jsonrpc: '2.0', id: 7, error: notAvailable(method) });
    }
  });
});
