import { genTransactionsTrieRoot } from '@ethereumjs/block';
import { createTxFromRLP } from '@ethereumjs/tx';
import { Bloom } from '@ethereumjs/vm';
import { getAddress, id, keccak256, parseEther, toBeHex, zeroPadValue } from 'ethers';
import { commonFor } from '../../../src/devnet/app/evm/evm-params';
import { txHash } from '../../../src/devnet/chain/hashing';
import { bytes } from './harness';
import { compileProbe, EvmHarness, GWEI, LATEST, NO_LIMITS, PENDING, at, startEvmDevnet } from './evm-harness';

type Obj = Record<string, any>;
const hexOf = (b64: string): string => '0x' + Buffer.from(b64, 'base64').toString('hex');
const COUNTED = id('Counted(address,uint256,string)');

describe('embedded devnet: EVM transactions', () => {
  let h: EvmHarness;
  let probe: string;

  beforeAll(async () => {
    h = await startEvmDevnet();
    probe = await h.deployProbe(h.wallets[0], 5n);
  });
  afterAll(() => h.stop());

  it('funds the ten dev accounts of the well-known mnemonic at genesis', async () => {
    expect(h.wallets.map((w) => w.address)).toHaveLength(10);
    expect(h.wallets[0].address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    expect(h.wallets[9].address).toBe('0xa0Ee7A142d267C1f36714E4a8F75612F20a79720');
    for (const wallet of h.wallets.slice(1)) expect(await h.evm.getBalance(wallet.address.toLowerCase(), at(1))).toBe(parseEther('10000'));
  });

  it('answers the chain identity', async () => {
    expect(await h.evm.chainId()).toBe(9000n);
    expect(await h.evm.networkId()).toBe('9000');
    expect(await h.evm.syncing()).toBe(false);
    expect(await h.evm.netInfo()).toEqual({ listening: true, peerCount: 0 });
    expect(await h.evm.clientVersion()).toMatch(/^rpc-gateway\/embedded-devnet\//);
    const coinbase = await h.evm.coinbase();
    expect(coinbase).toBe(getAddress(coinbase));
    expect(coinbase.toLowerCase()).toBe('0x' + Buffer.from(h.backend.devnet.identity.validatorKey.address).toString('hex'));
    expect(await h.evm.blockNumber()).toBe(h.backend.devnet.latestHeight);
  });

  it('deploys a contract sent with broadcast_tx_sync, indexed with Evmos events', async () => {
    const { abi, bytecode } = compileProbe();
    const raw = await h.sign(h.wallets[0], { data: bytecode + abi.encodeDeploy([7n]).slice(2) });
    const checked = (await h.backend.mempool.broadcastTxSync(raw)) as Obj;
    expect(checked).toMatchObject({ code: 0, log: '', hash: Buffer.from(txHash(raw)).toString('hex').toUpperCase() });
    await h.nextBlock();
    const hash = keccak256(raw);
    const receipt = (await h.evm.getTransactionReceipt(hash)) as Obj;
    expect(receipt).toMatchObject({ status: '0x1', to: null, from: h.wallets[0].address.toLowerCase(), transactionHash: hash, type: '0x2' });
    const address = receipt.contractAddress as string;
    expect(await h.evm.getCode(address, LATEST)).toMatch(/^0x60806040/);
    expect(BigInt(await h.evm.call({ to: address, input: abi.encodeFunctionData('count') }, LATEST, NO_LIMITS))).toBe(7n);

    const found = (await h.backend.txs.tx(txHash(raw), false)) as Obj;
    expect(found.tx).toBe(Buffer.from(raw).toString('base64'));
    expect(found.tx_result).toMatchObject({ code: 0, gas_wanted: '1000000', gas_used: BigInt(receipt.gasUsed).toString() });
    // Evmos's events: tx_log is there, empty, when the tx has no logs.
    expect(found.tx_result.events.map((e: Obj) => e.type)).toEqual(['ethereum_tx', 'tx_log', 'message']);
    const [ethereumTx, txLog, message] = found.tx_result.events;
    expect(txLog.attributes).toEqual([]);
    expect(ethereumTx.type).toBe('ethereum_tx');
    expect(Object.fromEntries(ethereumTx.attributes.map((a: Obj) => [a.key, a.value]))).toEqual({
      amount: '0',
      ethereumTxHash: hash,
      txIndex: '0',
      txGasUsed: BigInt(receipt.gasUsed).toString(),
      txHash: found.hash,
    });
    expect(message).toEqual({
      type: 'message',
      attributes: [
        { key: 'module', value: 'evm', index: true },
        { key: 'sender', value: h.wallets[0].address, index: true },
        { key: 'txType', value: '2', index: true },
      ],
    });
    const searched = (await h.backend.txs.txSearch(`ethereum_tx.ethereumTxHash = '${hash}'`, false, undefined, undefined, '')) as Obj;
    expect(searched.total_count).toBe('1');
  });

  it('mines a transfer sent with eth_sendRawTransaction, shown pending until then', async () => {
    const to = '0x' + '42'.repeat(20);
    const before = await h.evm.getBalance(h.wallets[1].address.toLowerCase(), LATEST);
    const hash = await h.send(h.wallets[1], { to, value: 1234n, gasLimit: 21000n });
    expect(await h.evm.getTransactionByHash(hash)).toMatchObject({
      blockHash: null, blockNumber: null, transactionIndex: null, hash, to, value: '0x4d2', gasPrice: '0x2540be400', maxFeePerGas: '0x2540be400',
    });
    expect(await h.evm.getTransactionCount(h.wallets[1].address.toLowerCase(), PENDING)).toBe(1n);
    expect(await h.evm.getTransactionCount(h.wallets[1].address.toLowerCase(), LATEST)).toBe(0n);
    await h.nextBlock();
    const height = h.backend.devnet.latestHeight;
    const block = (await h.evm.getBlockByNumber(LATEST, false)) as Obj;
    const mined = (await h.evm.getTransactionByHash(hash)) as Obj;
    expect(Object.keys(mined)).toEqual([
      'blockHash', 'blockNumber', 'blockTimestamp', 'from', 'gas', 'gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas', 'hash', 'input', 'nonce', 'to',
      'transactionIndex', 'value', 'type', 'accessList', 'chainId', 'v', 'r', 's', 'yParity',
    ]);
    expect(mined).toMatchObject({ blockHash: block.hash, blockNumber: '0x' + height.toString(16), blockTimestamp: block.timestamp, transactionIndex: '0x0', chainId: '0x2328' });
    expect(mined.yParity).toBe(mined.v);
    // A mined dynamic-fee tx shows its effective price: base fee + tip.
    expect(BigInt(mined.gasPrice)).toBe(BigInt(block.baseFeePerGas) + GWEI);
    const receipt = (await h.evm.getTransactionReceipt(hash)) as Obj;
    expect(receipt).toMatchObject({ status: '0x1', gasUsed: '0x5208', cumulativeGasUsed: '0x5208', effectiveGasPrice: mined.gasPrice, logs: [] });
    expect(await h.evm.getBalance(to, LATEST)).toBe(1234n);
    expect(await h.evm.getBalance(h.wallets[1].address.toLowerCase(), LATEST)).toBe(before - 1234n - 21000n * BigInt(mined.gasPrice));
    expect(await h.evm.getTransactionCount(h.wallets[1].address.toLowerCase(), LATEST)).toBe(1n);
  });

  it('is one block seen two ways: same height, hash, parent and tx bytes as the node block', async () => {
    const kvRaw = bytes('color=blue');
    await h.backend.mempool.broadcastTxSync(kvRaw);
    const ethHash = await h.send(h.wallets[2], { to: probe, data: compileProbe().abi.encodeFunctionData('bump', ['mixed']) });
    await h.nextBlock();
    const height = h.backend.devnet.latestHeight;
    const node = (await h.backend.blocks.block(height)) as Obj;
    const evmBlock = (await h.evm.getBlockByNumber(at(height), true)) as Obj;
    expect(evmBlock.hash).toBe('0x' + node.block_id.hash.toLowerCase());
    expect(evmBlock.number).toBe('0x' + height.toString(16));
    expect(evmBlock.parentHash).toBe('0x' + node.block.header.last_block_id.hash.toLowerCase());
    expect(evmBlock.timestamp).toBe('0x' + Math.floor(Date.parse(node.block.header.time) / 1000).toString(16));
    expect(evmBlock.miner).toBe('0x' + node.block.header.proposer_address.toLowerCase());
    expect(await h.evm.getBlockByHash(evmBlock.hash as string, true)).toEqual(evmBlock);
    // Both txs are in the node block; only the Ethereum one is in the EVM block.
    expect(node.block.data.txs).toEqual([Buffer.from(kvRaw).toString('base64'), expect.any(String)]);
    const [ethTx] = evmBlock.transactions as Obj[];
    expect(evmBlock.transactions).toHaveLength(1);
    expect(ethTx).toMatchObject({ hash: ethHash, transactionIndex: '0x0', blockHash: evmBlock.hash });
    expect(keccak256(hexOf(node.block.data.txs[1]))).toBe(ethHash);
    expect(((await h.evm.getBlockByNumber(at(height), false)) as Obj).transactions).toEqual([ethHash]);
    expect(await h.evm.getBlockTransactionCount(at(height))).toBe(1n);
    expect(await h.evm.getTransactionByBlockAndIndex({ kind: 'hash', hash: evmBlock.hash as string, requireCanonical: false }, 0n)).toEqual(ethTx);
    expect(await h.evm.getTransactionByBlockAndIndex(at(height), 1n)).toBeNull();
    // The node sees the kvstore tx's result at 0 and the EVM tx's at 1.
    const results = ((await h.backend.blocks.blockResults(height)) as Obj).txs_results;
    expect(results[0].events[0].type).toBe('app');
    expect(results[1].events.map((e: Obj) => e.type)).toEqual(['ethereum_tx', 'tx_log', 'message']);
  });

  it('computes real roots and blooms from the EVM txs', async () => {
    const height = h.backend.devnet.latestHeight;
    const block = (await h.evm.getBlockByNumber(at(height), false)) as Obj;
    const node = (await h.backend.blocks.block(height)) as Obj;
    const common = commonFor(9000n);
    const txs = node.block.data.txs.slice(1).map((b64: string) => createTxFromRLP(Buffer.from(b64, 'base64'), { common }));
    expect('0x' + Buffer.from(await genTransactionsTrieRoot(txs)).toString('hex')).toBe(block.transactionsRoot);
    expect(block.receiptsRoot).not.toBe('0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421');
    const receipt = (await h.evm.getTransactionReceipt(block.transactions[0] as string)) as Obj;
    expect(receipt.logsBloom).toBe(block.logsBloom);
    const bloom = new Bloom(Buffer.from((receipt.logsBloom as string).slice(2), 'hex'));
    expect(bloom.check(Buffer.from(probe.slice(2), 'hex'))).toBe(true);
    expect(bloom.check(Buffer.from(COUNTED.slice(2), 'hex'))).toBe(true);
    expect(bloom.check(Buffer.from('11'.repeat(20), 'hex'))).toBe(false);
    // An empty block: empty-trie roots and a zero bloom.
    await h.nextBlock();
    const empty = (await h.evm.getBlockByNumber(LATEST, false)) as Obj;
    expect(empty).toMatchObject({
      transactions: [],
      transactionsRoot: '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421',
      receiptsRoot: '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421',
      logsBloom: '0x' + '00'.repeat(256),
      gasUsed: '0x0',
      stateRoot: block.stateRoot,
    });
  });

  it('returns receipts with their logs and the tx_log events of Evmos', async () => {
    const { abi } = compileProbe();
    const first = await h.send(h.wallets[3], { to: probe, data: abi.encodeFunctionData('bump', ['one']) });
    const second = await h.send(h.wallets[3], { to: probe, data: abi.encodeFunctionData('bump', ['two']) });
    await h.nextBlock();
    const height = h.backend.devnet.latestHeight;
    const receipts = (await h.evm.getBlockReceipts(at(height))) as Obj[];
    expect(receipts.map((r) => r.transactionHash)).toEqual([first, second]);
    const receipt = receipts[1];
    expect(Object.keys(receipt)).toEqual([...Object.keys(receipt)].sort());
    expect(BigInt(receipt.cumulativeGasUsed)).toBe(BigInt(receipts[0].gasUsed) + BigInt(receipt.gasUsed));
    const [log] = receipt.logs as Obj[];
    expect(Object.keys(log)).toEqual(['address', 'topics', 'data', 'blockNumber', 'transactionHash', 'transactionIndex', 'blockHash', 'logIndex', 'removed']);
    expect(log).toMatchObject({
      address: probe,
      topics: [COUNTED, zeroPadValue(h.wallets[3].address, 32).toLowerCase(), toBeHex(8, 32)],
      transactionHash: second,
      transactionIndex: '0x1',
      logIndex: '0x1',
      removed: false,
    });
    expect(abi.decodeEventLog('Counted', log.data, log.topics).note).toBe('two');
    const events = ((await h.backend.blocks.blockResults(height)) as Obj).txs_results[1].events;
    const txLog = JSON.parse(events.find((e: Obj) => e.type === 'tx_log').attributes[0].value);
    expect(txLog).toEqual({
      address: getAddress(probe),
      topics: log.topics,
      data: Buffer.from((log.data as string).slice(2), 'hex').toString('base64'),
      blockNumber: Number(height),
      transactionHash: second,
      transactionIndex: 1,
      blockHash: log.blockHash,
      logIndex: 1,
    });
  });

  it('records a reverted tx as failed, with its gas spent', async () => {
    const hash = await h.send(h.wallets[4], { to: probe, data: compileProbe().abi.encodeFunctionData('fail'), gasLimit: 100_000n });
    await h.nextBlock();
    const receipt = (await h.evm.getTransactionReceipt(hash)) as Obj;
    expect(receipt.status).toBe('0x0');
    expect(BigInt(receipt.gasUsed)).toBeGreaterThan(21000n);
    const result = ((await h.backend.blocks.blockResults()) as Obj).txs_results[0];
    expect(result.code).toBe(0);
    expect(result.events[0].attributes).toContainEqual({ key: 'ethereumTxFailed', value: 'execution reverted', index: true });
    expect(await h.evm.getTransactionCount(h.wallets[4].address.toLowerCase(), LATEST)).toBe(1n);
  });

  it('lists mempool txs in the txpool namespace', async () => {
    const sender = h.wallets[5];
    const a = await h.send(sender, { to: probe, value: 1n, gasLimit: 50_000n, data: compileProbe().abi.encodeFunctionData('bump', ['x']) });
    const b = await h.send(sender, { data: '0x00', gasLimit: 60_000n });
    expect(await h.evm.txpoolStatus()).toEqual({ pending: '0x2', queued: '0x0' });
    const content = await h.evm.txpoolContent();
    expect(Object.keys(content.pending as Obj)).toEqual([sender.address]);
    expect((content.pending as Obj)[sender.address]['0']).toMatchObject({ hash: a, blockHash: null, nonce: '0x0' });
    expect((content.pending as Obj)[sender.address]['1']).toMatchObject({ hash: b, to: null });
    expect(content.queued).toEqual({});
    expect(await h.evm.txpoolContentFrom(sender.address.toLowerCase())).toEqual({ pending: (content.pending as Obj)[sender.address], queued: {} });
    expect(await h.evm.txpoolContentFrom(h.wallets[6].address.toLowerCase())).toEqual({ pending: {}, queued: {} });
    expect(await h.evm.txpoolInspect()).toEqual({
      pending: {
        [sender.address]: {
          '0': `${getAddress(probe)}: 1 wei + 50000 gas × 10000000000 wei`,
          '1': 'contract creation: 0 wei + 60000 gas × 10000000000 wei',
        },
      },
      queued: {},
    });
    await h.nextBlock();
    expect(await h.evm.txpoolStatus()).toEqual({ pending: '0x0', queued: '0x0' });
  });

  it('suggests fees and reports the fee history', async () => {
    const latest = (await h.evm.getBlockByNumber(LATEST, false)) as Obj;
    expect(await h.evm.maxPriorityFeePerGas()).toBe(GWEI);
    expect(await h.evm.gasPrice()).toBe(BigInt(latest.baseFeePerGas) + GWEI);
    const history = await h.evm.feeHistory(3n, LATEST, [10, 90]);
    expect(Object.keys(history)).toEqual(['oldestBlock', 'reward', 'baseFeePerGas', 'gasUsedRatio']);
    expect(history.oldestBlock).toBe('0x' + (h.backend.devnet.latestHeight - 2n).toString(16));
    expect(history.baseFeePerGas).toHaveLength(4);
    expect((history.baseFeePerGas as string[])[2]).toBe(latest.baseFeePerGas);
    expect(history.gasUsedRatio).toHaveLength(3);
    expect((history.reward as string[][])[2]).toEqual(['0x3b9aca00', '0x3b9aca00']);
    expect(await h.evm.feeHistory(2n, LATEST, [])).not.toHaveProperty('reward');
    await expect(h.evm.feeHistory(2n, LATEST, [50, 10])).rejects.toThrow('invalid reward percentile: #0:50.000000 >= #1:10.000000');
    await expect(h.evm.feeHistory(2n, at(1000), [])).rejects.toThrow(`request beyond head block: requested 1000, head ${h.backend.devnet.latestHeight}`);
  });

  it('answers null for what does not exist', async () => {
    const unknown = '0x' + 'ab'.repeat(32);
    expect(await h.evm.getBlockByNumber(at(10_000), false)).toBeNull();
    expect(await h.evm.getBlockByHash(unknown, false)).toBeNull();
    expect(await h.evm.getTransactionByHash(unknown)).toBeNull();
    expect(await h.evm.getTransactionReceipt(unknown)).toBeNull();
    expect(await h.evm.getBlockReceipts(at(10_000))).toBeNull();
    expect(await h.evm.getBlockTransactionCount(at(10_000))).toBeNull();
    // `earliest` is the first node block; 0 is the EVM genesis block.
    expect(((await h.evm.getBlockByNumber({ kind: 'tag', tag: 'earliest' }, false)) as Obj).number).toBe('0x1');
    expect(((await h.evm.getBlockByNumber(at(0), false)) as Obj).number).toBe('0x0');
    await expect(h.evm.getBalance(unknown.slice(0, 42), at(10_000))).rejects.toThrow('header not found');
    await expect(h.evm.getBalance(unknown.slice(0, 42), { kind: 'hash', hash: unknown, requireCanonical: false })).rejects.toThrow('header for hash not found');
  });
});
