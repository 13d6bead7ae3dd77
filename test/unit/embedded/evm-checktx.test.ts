import { Wallet, keccak256 } from 'ethers';
import { bytes, errorOf } from './harness';
import { EVM_CHAIN_ID, EvmHarness, GWEI, LATEST, PENDING, startEvmDevnet } from './evm-harness';

type Obj = Record<string, any>;
const TO = '0x' + '56'.repeat(20);
const raw = (hex: string): Uint8Array => Buffer.from(hex.slice(2), 'hex');

describe('embedded devnet: admission of Ethereum transactions', () => {
  let h: EvmHarness;

  beforeAll(async () => {
    h = await startEvmDevnet();
  });
  afterAll(() => h.stop());

  /** broadcast_tx_sync's answer and eth_sendRawTransaction's error for the same tx. */
  async function refusal(tx: Uint8Array): Promise<{ code: number; log: string; rpc: string }> {
    const checked = (await h.backend.mempool.checkTx(tx)) as Obj;
    return { code: checked.code, log: checked.log, rpc: await errorOf(h.evm.sendRawTransaction(tx)) };
  }

  it('accepts consecutive nonces before a block and counts them as pending', async () => {
    const wallet = h.wallets[0];
    const first = await h.sign(wallet, { to: TO, value: 1n, gasLimit: 21000n });
    const second = await h.sign(wallet, { to: TO, value: 1n, gasLimit: 21000n, nonce: 1 });
    expect(((await h.backend.mempool.broadcastTxSync(first)) as Obj).code).toBe(0);
    expect(await h.evm.sendRawTransaction(second)).toBe(keccak256(second));
    expect(await h.evm.getTransactionCount(wallet.address.toLowerCase(), PENDING)).toBe(2n);
    await h.nextBlock();
    expect(await h.evm.getTransactionCount(wallet.address.toLowerCase(), LATEST)).toBe(2n);
    expect(await h.evm.getTransactionCount(wallet.address.toLowerCase(), PENDING)).toBe(2n);
  });

  it('refuses a nonce that is used or out of order', async () => {
    const wallet = h.wallets[0];
    const low = await refusal(await h.sign(wallet, { to: TO, value: 2n, gasLimit: 21000n, nonce: 0 }));
    expect(low).toEqual({ code: 32, log: 'nonce too low: next nonce 2, tx nonce 0', rpc: 'nonce too low: next nonce 2, tx nonce 0' });
    const high = await refusal(await h.sign(wallet, { to: TO, value: 2n, gasLimit: 21000n, nonce: 5 }));
    expect(high).toEqual({ code: 32, log: 'nonce too high: next nonce 2, tx nonce 5', rpc: 'nonce too high: next nonce 2, tx nonce 5' });
  });

  it('refuses a tx the sender cannot pay for', async () => {
    const poor = Wallet.createRandom();
    const tx = await h.sign(poor as unknown as Wallet, { to: TO, value: 5n, gasLimit: 21000n, nonce: 0 });
    const refused = await refusal(tx);
    expect(refused.code).toBe(5);
    expect(refused.log).toBe('insufficient funds for gas * price + value: balance 0, tx cost 210000000000005, overshot 210000000000005');
    expect(refused.rpc).toBe(refused.log);
    // What earlier mempool txs will spend counts too.
    const rich = h.wallets[1];
    const balance = await h.evm.getBalance(rich.address.toLowerCase(), LATEST);
    const fee = 21000n * 10n * GWEI;
    await h.send(rich, { to: TO, value: balance - fee - 1000n, gasLimit: 21000n });
    expect((await refusal(await h.sign(rich, { to: TO, value: 5000n, gasLimit: 21000n }))).log).toMatch(/^insufficient funds for gas \* price \+ value: balance 1000, /);
    await h.nextBlock();
  });

  it('refuses unprotected (pre-EIP-155) txs unless allowed', async () => {
    const legacy = raw(await h.wallets[2].signTransaction({ type: 0, chainId: 0, nonce: 0, gasLimit: 21000, gasPrice: 10n * GWEI, to: TO, value: 1 }));
    expect(await refusal(legacy)).toEqual({
      code: 37,
      log: 'only replay-protected (EIP-155) transactions allowed over RPC',
      rpc: 'only replay-protected (EIP-155) transactions allowed over RPC',
    });
    const lenient = await startEvmDevnet({ evm: { allowUnprotectedTxs: true } });
    try {
      const hash = await lenient.evm.sendRawTransaction(legacy);
      await lenient.nextBlock();
      const tx = (await lenient.evm.getTransactionByHash(hash)) as Obj;
      expect(tx).toMatchObject({ type: '0x0', chainId: '0x2328' });
      expect(['0x1b', '0x1c']).toContain(tx.v);
      expect(((await lenient.evm.getTransactionReceipt(hash)) as Obj).status).toBe('0x1');
    } finally {
      await lenient.stop();
    }
    // A protected legacy tx is fine.
    const protectedTx = raw(await h.wallets[2].signTransaction({ type: 0, chainId: EVM_CHAIN_ID, nonce: 0, gasLimit: 21000, gasPrice: 10n * GWEI, to: TO }));
    expect(await h.evm.sendRawTransaction(protectedTx)).toBe(keccak256(protectedTx));
  });

  it('refuses txs that break the stateless rules', async () => {
    const wallet = h.wallets[3];
    expect(await refusal(await h.sign(wallet, { to: TO, gasLimit: 20000n }))).toEqual({
      code: 11, log: 'intrinsic gas too low: gas 20000, minimum needed 21000', rpc: 'intrinsic gas too low: gas 20000, minimum needed 21000',
    });
    expect((await refusal(await h.sign(wallet, { to: TO, gasLimit: 40_000_000n }))).log).toBe('exceeds block gas limit');
    const otherChain = raw(await wallet.signTransaction({ type: 2, chainId: 1, nonce: 0, gasLimit: 21000, maxFeePerGas: GWEI, maxPriorityFeePerGas: 1, to: TO }));
    expect(await refusal(otherChain)).toEqual({
      code: 28,
      log: 'invalid sender: invalid chain id for signer: have 1 want 9000',
      rpc: 'invalid sender: invalid chain id for signer: have 1 want 9000',
    });
    const cheap = await refusal(await h.sign(wallet, { to: TO, gasLimit: 21000n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }));
    expect(cheap.code).toBe(13);
    expect(cheap.log).toMatch(new RegExp(`^max fee per gas less than block base fee: address ${wallet.address}, maxFeePerGas: 1, baseFee: \\d+$`));
  });

  it('knows a tx it has seen', async () => {
    const tx = await h.sign(h.wallets[4], { to: TO, value: 9n, gasLimit: 21000n });
    await h.evm.sendRawTransaction(tx);
    expect(await errorOf(h.evm.sendRawTransaction(tx))).toBe('already known');
    await h.nextBlock();
    expect(await errorOf(h.evm.sendRawTransaction(tx))).toBe('already known');
  });

  it('tells undecodable raw transactions apart', async () => {
    expect(await errorOf(h.evm.sendRawTransaction(new Uint8Array(0)))).toBe('typed transaction too short');
    expect(await errorOf(h.evm.sendRawTransaction(bytes('a=b')))).toBe('transaction type not supported');
    expect(await errorOf(h.evm.sendRawTransaction(Uint8Array.of(0x83, 1, 2, 3)))).toBe('rlp: expected input list for types.LegacyTx');
    expect(await errorOf(h.evm.sendRawTransaction(Uint8Array.of(0x03, 0xc0)))).toBe('transaction type not supported');
  });

  it('still gives every other tx to the kvstore', async () => {
    expect(((await h.backend.mempool.broadcastTxSync(bytes('name=satoshi'))) as Obj).code).toBe(0);
    expect(((await h.backend.mempool.checkTx(bytes('not a kv tx'))) as Obj).code).toBe(2);
    await h.nextBlock();
    const query = ((await h.backend.abci.abciQuery('', bytes('name'), 0n, false)) as Obj).response;
    expect(Buffer.from(query.value, 'base64').toString()).toBe('satoshi');
  });
});
