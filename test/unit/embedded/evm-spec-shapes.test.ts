import { createBlockHeaderFromRPC } from '@ethereumjs/block';
import { decodeStorageSlot } from '../../../src/evm-rpc/codec/storage-slot';
import { compileProbe, EvmHarness, LATEST, NO_LIMITS, at, startEvmDevnet } from './evm-harness';

type Obj = Record<string, any>;

/** The execution-apis shapes the devnet serves: genesis block 0, yParity/blockTimestamp, access lists. */
describe('embedded devnet: execution-apis shapes', () => {
  let h: EvmHarness;
  let probe: string;
  const { abi } = compileProbe();

  beforeAll(async () => {
    h = await startEvmDevnet();
    probe = await h.deployProbe(h.wallets[0], 5n);
  });
  afterAll(() => h.stop());

  it('serves a genesis block 0 whose hash is block 1’s parent hash', async () => {
    const genesis = (await h.evm.getBlockByNumber(at(0), true)) as Obj;
    const first = (await h.evm.getBlockByNumber(at(1), false)) as Obj;
    expect(genesis).toMatchObject({ number: '0x0', parentHash: '0x' + '00'.repeat(32), transactions: [], gasUsed: '0x0', miner: '0x' + '00'.repeat(20) });
    expect(first.parentHash).toBe(genesis.hash);
    expect(genesis.hash).not.toBe(first.hash);
    // The hash is the Keccak-256 of a real Ethereum header with these fields.
    const common = h.backend.devnet.evm!.common;
    const header = createBlockHeaderFromRPC({ ...genesis, withdrawalsRoot: '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421', blobGasUsed: '0x0', excessBlobGas: '0x0', parentBeaconBlockRoot: '0x' + '00'.repeat(32) } as never, { common, skipConsensusFormatValidation: true });
    expect('0x' + Buffer.from(header.hash()).toString('hex')).toBe(genesis.hash);
    // Found by hash; its state is the genesis state (before any tx).
    expect(((await h.evm.getBlockByHash(genesis.hash, false)) as Obj).number).toBe('0x0');
    expect(await h.evm.getTransactionCount(h.wallets[0].address.toLowerCase(), at(0))).toBe(0n);
    expect(await h.evm.getCode(probe, at(0))).toBe('0x');
    expect(await h.evm.getBlockReceipts(at(0))).toEqual([]);
    expect(await h.evm.getBlockTransactionCount({ kind: 'hash', hash: genesis.hash, requireCanonical: false })).toBe(0n);
    const balance = await h.evm.getBalance(h.wallets[5].address.toLowerCase(), { kind: 'hash', hash: genesis.hash, requireCanonical: false });
    expect(balance).toBe(await h.evm.getBalance(h.wallets[5].address.toLowerCase(), LATEST));
    expect(await h.evm.getLogs({ fromBlock: at(0), toBlock: at(0) }, { blockRange: 10, logs: 10 })).toEqual([]);
  });

  it('gives typed transactions yParity and mined ones blockTimestamp; pending ones a null blockTimestamp', async () => {
    const typed = await h.send(h.wallets[1], { to: probe, value: 1n });
    expect(await h.evm.getTransactionByHash(typed)).toMatchObject({ blockTimestamp: null, yParity: expect.stringMatching(/^0x[01]$/) });
    const pending = (await h.evm.txpoolContent()).pending as Obj;
    expect(Object.values(Object.values(pending)[0])[0]).toMatchObject({ blockTimestamp: null, yParity: expect.any(String) });
    const legacy = await h.send(h.wallets[2], { type: 0, to: probe, value: 1n, gasPrice: 10n ** 10n, maxFeePerGas: undefined, maxPriorityFeePerGas: undefined });
    await h.nextBlock();
    const block = (await h.evm.getBlockByNumber(LATEST, true)) as Obj;
    const [a, b] = block.transactions as Obj[];
    expect(a).toMatchObject({ hash: typed, blockTimestamp: block.timestamp, yParity: a.v });
    expect(b).toMatchObject({ hash: legacy, type: '0x0', blockTimestamp: block.timestamp });
    expect(b).not.toHaveProperty('yParity');
    expect(await h.evm.getTransactionByBlockAndIndex(LATEST, 0n)).toMatchObject({ blockTimestamp: block.timestamp, yParity: a.v });
  });

  it('creates access lists as go-ethereum does: the touched slots, without sender, recipient and precompiles', async () => {
    const args = { from: h.wallets[3].address.toLowerCase(), to: probe, input: abi.encodeFunctionData('bump', ['x']) };
    const result = (await h.evm.createAccessList(args, LATEST, NO_LIMITS)) as Obj;
    expect(result.error).toBeUndefined();
    expect(result.accessList).toHaveLength(1);
    expect(result.accessList[0].address).toBe(probe);
    expect(result.accessList[0].storageKeys).toHaveLength(2);
    expect(result.accessList[0].storageKeys).toContain('0x' + '00'.repeat(32));
    // The gas used with the list: what an eth_call-like run with it costs, so estimate-able.
    expect(BigInt(result.gasUsed)).toBeGreaterThan(21_000n);
    const withList = await h.evm.estimateGas({ ...args, accessList: result.accessList }, LATEST, NO_LIMITS);
    expect(withList).toBeGreaterThanOrEqual(BigInt(result.gasUsed));
    // A reverting call still answers, with the error.
    const failed = (await h.evm.createAccessList({ ...args, input: abi.encodeFunctionData('fail') }, LATEST, NO_LIMITS)) as Obj;
    expect(failed).toMatchObject({ error: 'execution reverted', accessList: [] });
    // A plain transfer touches nothing.
    expect(await h.evm.createAccessList({ from: args.from, to: h.wallets[4].address.toLowerCase(), value: 1n }, LATEST, NO_LIMITS)).toEqual({ accessList: [], gasUsed: '0x5208' });
    expect(await h.evm.blobBaseFee()).toBe(1n);
  });

  it('refuses bad storage keys as go-ethereum does: invalid params', () => {
    expect(decodeStorageSlot('0x1')).toBe('0x' + '00'.repeat(31) + '01');
    expect(() => decodeStorageSlot('0x' + '00'.repeat(33))).toThrow(expect.objectContaining({ code: -32602, message: `storage key too long (want at most 32 bytes): "0x${'00'.repeat(33)}"` }));
    expect(() => decodeStorageSlot('0xzz')).toThrow(expect.objectContaining({ code: -32602, message: 'invalid hex in storage key: "0xzz"' }));
  });
});
