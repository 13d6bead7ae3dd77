/**
 * The EVM JSON-RPC against the execution-apis specification (vendored YAML, see README.md): after real
 * activity, every method the spec lists and the gateway serves answers a result valid against the
 * method's result schema, over the embedded devnet and in upstream mode over anvil; the spec methods
 * Evmos-family nodes do not serve answer -32601 (docs/evm-rpc.md).
 */
import { AbiCoder, Wallet, id } from 'ethers';
import { ANVIL_KEY_0 } from '../../support/anvil';
import { anvilEvmTarget, devnetEvmTarget } from '../../support/backends';
import { compileProbe } from '../../unit/embedded/evm-harness';
import { createActivity, loadSpec, rpcCall, type Activity } from './spec-client';

/** In the spec, not served by Evmos-family nodes (nor by the gateway): -32601. */
export const NOT_SERVED = [
  'eth_baseFee',
  'eth_capabilities',
  'eth_config',
  'eth_fillTransaction',
  'eth_getBlockAccessList',
  'eth_getStorageValues',
  'eth_signTransaction',
  'eth_simulateV1',
];

/** The devnet and anvil both fund this key (the well-known development mnemonic's first account). */
const KEY = ANVIL_KEY_0;

const { methods, validator } = loadSpec();
const { abi } = compileProbe();

interface Target {
  url: string;
  close(): Promise<void>;
  /** The gateway signs for its dev accounts on the devnet; in upstream mode it holds no keys. */
  keystore: boolean;
  /** What the upstream adds outside the spec, which the gateway passes through as the node sent it. */
  upstreamQuirks(method: string, result: any): any;
}

/**
 * anvil adds `blockTimestamp` to receipts as a JSON number (the spec's receipt has no such member and
 * admits no other); the gateway forwards receipts as the node sent them, so it is taken out here.
 */
function withoutAnvilReceiptTimestamp(method: string, result: any): any {
  const strip = (r: any) => (r === null ? r : (({ blockTimestamp: _, ...rest }) => rest)(r));
  if (method === 'eth_getTransactionReceipt') return strip(result);
  if (method === 'eth_getBlockReceipts') return result === null ? null : result.map(strip);
  return result;
}

const TARGETS: [string, () => Promise<Target>][] = [
  [
    'the embedded devnet',
    async () => ({ ...(await devnetEvmTarget()), keystore: true, upstreamQuirks: (_m, r) => r }),
  ],
  [
    'upstream mode over anvil',
    async () => ({ ...(await anvilEvmTarget()), keystore: false, upstreamQuirks: withoutAnvilReceiptTimestamp }),
  ],
];

describe.each(TARGETS)('execution-apis result schemas, %s', (_, start) => {
  let target: Target;
  let a: Activity;
  let filters: { logs: string; blocks: string; pending: string };
  const q = (n: number | bigint) => '0x' + BigInt(n).toString(16);

  beforeAll(async () => {
    target = await start();
    const newFilter = async (method: string, params: unknown[] = []) => (await rpcCall(target.url, method, params)).result as string;
    filters = {
      logs: await newFilter('eth_newFilter', [{ fromBlock: '0x1' }]),
      blocks: await newFilter('eth_newBlockFilter'),
      pending: await newFilter('eth_newPendingTransactionFilter'),
    };
    a = await createActivity(target.url, KEY);
  }, 90_000);
  afterAll(() => target?.close());

  /** [spec method, params] for every served method, several per method where shapes differ. */
  function calls(): [string, unknown[]][] {
    const tx = (r: { hash: string }) => r.hash;
    const block = (r: { blockNumber: number }) => q(r.blockNumber);
    const mined = [a.probeCreation, a.transfer1559, a.transferLegacy, a.bump, a.accessListTx, a.revert];
    const bumpCall = { from: a.from, to: a.probe, data: abi.encodeFunctionData('bump', ['x']) };
    return [
      ['eth_accounts', []],
      ['eth_blobBaseFee', []],
      ['eth_blockNumber', []],
      ['eth_call', [{ to: a.probe, data: abi.encodeFunctionData('count') }, 'latest']],
      ['eth_call', [{ to: a.probe, data: abi.encodeFunctionData('count') }]],
      ['eth_chainId', []],
      ['eth_coinbase', []],
      ['eth_createAccessList', [bumpCall, 'latest']],
      // A failing call: go-ethereum answers the list with an `error` member; anvil answers a revert
      // error instead, which the gateway passes through in upstream mode.
      ...(target.keystore ? [['eth_createAccessList', [{ ...bumpCall, data: abi.encodeFunctionData('fail') }]] as [string, unknown[]]] : []),
      ['eth_estimateGas', [bumpCall]],
      ['eth_estimateGas', [{ from: a.from, to: '0x' + '78'.repeat(20), value: '0x1' }, 'latest']],
      ['eth_feeHistory', ['0x4', 'latest', [25, 75]]],
      ['eth_feeHistory', ['0x2', block(a.bump), []]],
      ['eth_gasPrice', []],
      ['eth_getBalance', [a.from, 'latest']],
      ['eth_getBalance', [a.from]],
      ['eth_getBalance', [a.from, '0x0']],
      ...mined.flatMap((r): [string, unknown[]][] => [
        ['eth_getBlockByHash', [r.blockHash, true]],
        ['eth_getBlockByHash', [r.blockHash, false]],
        ['eth_getBlockByNumber', [block(r), true]],
        ['eth_getBlockReceipts', [block(r)]],
        ['eth_getBlockTransactionCountByHash', [r.blockHash]],
        ['eth_getBlockTransactionCountByNumber', [block(r)]],
        ['eth_getTransactionByBlockHashAndIndex', [r.blockHash, q(r.index)]],
        ['eth_getTransactionByBlockNumberAndIndex', [block(r), q(r.index)]],
        ['eth_getTransactionByHash', [tx(r)]],
        ['eth_getTransactionReceipt', [tx(r)]],
      ]),
      ['eth_getBlockByNumber', ['0x0', true]],
      ['eth_getBlockByNumber', ['latest', false]],
      ['eth_getBlockByNumber', ['0xffffffff', false]],
      ['eth_getBlockByHash', ['0x' + 'ab'.repeat(32), false]],
      ['eth_getBlockReceipts', ['latest']],
      ['eth_getTransactionByHash', ['0x' + 'ab'.repeat(32)]],
      ['eth_getTransactionReceipt', ['0x' + 'ab'.repeat(32)]],
      ['eth_getCode', [a.probe, 'latest']],
      ['eth_getCode', [a.probe]],
      ['eth_getFilterChanges', [filters.logs]],
      ['eth_getFilterChanges', [filters.blocks]],
      ['eth_getFilterChanges', [filters.pending]],
      ['eth_getFilterLogs', [filters.logs]],
      ['eth_getLogs', [{ fromBlock: block(a.probeCreation), toBlock: 'latest' }]],
      ['eth_getLogs', [{ blockHash: a.bump.blockHash, address: a.probe, topics: [id('Counted(address,uint256,string)')] }]],
      ['eth_getProof', [a.probe, ['0x0', '0x1'], 'latest']],
      ['eth_getProof', [a.from, []]],
      ['eth_getStorageAt', [a.probe, '0x0', 'latest']],
      ['eth_getStorageAt', [a.probe, '0x0']],
      ['eth_getTransactionCount', [a.from, 'latest']],
      ['eth_getTransactionCount', [a.from]],
      ['eth_maxPriorityFeePerGas', []],
      ['eth_newBlockFilter', []],
      ['eth_newFilter', [{ address: a.probe }]],
      ['eth_newPendingTransactionFilter', []],
      ['eth_syncing', []],
      ['eth_uninstallFilter', [filters.pending]],
      ['net_version', []],
    ];
  }

  it('answers every served spec method with a result of its schema', async () => {
    const failures: unknown[] = [];
    const seen = new Set<string>();
    for (const [method, params] of calls()) {
      const spec = methods.get(method);
      expect([method, spec !== undefined]).toEqual([method, true]);
      const answer = await rpcCall(target.url, method, params);
      seen.add(method);
      if (answer.error !== undefined) {
        failures.push([method, params, answer.error]);
        continue;
      }
      const errors = validator.validate(target.upstreamQuirks(method, answer.result), spec!.result!.schema);
      if (errors.length > 0) failures.push([method, params, errors]);
    }
    expect(failures).toEqual([]);
    // The signing and sending methods, below; together they cover every spec method but NOT_SERVED.
    for (const m of ['eth_sendRawTransaction', 'eth_sendTransaction', 'eth_sign']) seen.add(m);
    expect([...methods.keys()].filter((m) => !seen.has(m) && !NOT_SERVED.includes(m)).sort()).toEqual([]);
  });

  it('sends raw transactions, and signs and sends with the gateway’s keystore where it has one', async () => {
    const wallet = new Wallet(KEY);
    const nonce = BigInt((await rpcCall(target.url, 'eth_getTransactionCount', [a.from, 'pending'])).result);
    const raw = await wallet.signTransaction({ type: 2, chainId: 9000n, nonce: Number(nonce), to: '0x' + '56'.repeat(20), value: 1n, gasLimit: 21_000n, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n });
    const sent = await rpcCall(target.url, 'eth_sendRawTransaction', [raw]);
    expect(validator.validate(sent.result, methods.get('eth_sendRawTransaction')!.result!.schema)).toEqual([]);
    const send = await rpcCall(target.url, 'eth_sendTransaction', [{ from: a.from, to: '0x' + '56'.repeat(20), value: '0x1' }]);
    const sign = await rpcCall(target.url, 'eth_sign', [a.from, '0x68656c6c6f']);
    if (target.keystore) {
      expect(validator.validate(send.result, methods.get('eth_sendTransaction')!.result!.schema)).toEqual([]);
      expect(validator.validate(sign.result, methods.get('eth_sign')!.result!.schema)).toEqual([]);
    } else {
      // The gateway signs only with its own keystore, which upstream mode leaves empty (anvil would sign
      // with its unlocked accounts; the gateway never forwards a request to sign).
      expect(send.error?.message).toBe('unknown account');
      expect(sign.error?.message).toBe('unknown account');
    }
  });

  it('answers the spec methods Evmos-family nodes do not serve with -32601', async () => {
    for (const method of NOT_SERVED) {
      expect([method, (await rpcCall(target.url, method, [])).error]).toEqual([method, { code: -32601, message: `the method ${method} does not exist/is not available` }]);
    }
  });

  it('validates what the issue named: yParity, blockTimestamp, block 0, optional blocks, -32602', async () => {
    const t = (await rpcCall(target.url, 'eth_getTransactionByHash', [a.accessListTx.hash])).result;
    expect(t).toMatchObject({ type: '0x1', yParity: expect.stringMatching(/^0x[01]$/), blockTimestamp: expect.stringMatching(/^0x/) });
    const [zero, one] = [(await rpcCall(target.url, 'eth_getBlockByNumber', ['0x0', false])).result, (await rpcCall(target.url, 'eth_getBlockByNumber', ['0x1', false])).result];
    expect(zero.number).toBe('0x0');
    expect(one.parentHash).toBe(zero.hash);
    expect((await rpcCall(target.url, 'eth_getStorageAt', [a.probe, '0x' + '00'.repeat(33)])).error?.code).toBe(-32602);
    const head = BigInt((await rpcCall(target.url, 'eth_blockNumber')).result);
    expect((await rpcCall(target.url, 'eth_getLogs', [{ fromBlock: q(head), toBlock: q(head - 1n) }])).error).toMatchObject({ code: -32602, message: 'invalid block range params' });
    // The count slot holds 3 + 2 bumps.
    expect(BigInt((await rpcCall(target.url, 'eth_getStorageAt', [a.probe, '0x0'])).result)).toBe(5n);
    expect(AbiCoder.defaultAbiCoder().decode(['uint256'], (await rpcCall(target.url, 'eth_call', [{ to: a.probe, data: abi.encodeFunctionData('count') }])).result)[0]).toBe(5n);
  });
});
