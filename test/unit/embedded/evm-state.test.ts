import { verifyMerkleProof } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { bytesToBigInt, createAccountFromRLP } from '@ethereumjs/util';
import { keccak256, parseEther, toBeHex } from 'ethers';
import { compileProbe, EvmHarness, LATEST, NO_LIMITS, at, startEvmDevnet } from './evm-harness';
import { tempHome } from './harness';

const bytesOf = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex.slice(2), 'hex'));
const RECIPIENT = '0x' + '61'.repeat(20);

type Obj = Record<string, any>;

describe('embedded devnet: EVM state', () => {
  let h: EvmHarness;
  let probe: string;
  let beforeTransfer: bigint;
  let afterTransfer: bigint;

  beforeAll(async () => {
    h = await startEvmDevnet();
    probe = await h.deployProbe(h.wallets[0], 3n);
    beforeTransfer = h.backend.devnet.latestHeight;
    await h.send(h.wallets[1], { to: RECIPIENT, value: parseEther('2'), gasLimit: 21000n });
    await h.nextBlock();
    afterTransfer = h.backend.devnet.latestHeight;
    await h.send(h.wallets[1], { to: RECIPIENT, value: parseEther('3'), gasLimit: 21000n });
    await h.nextBlock();
  });
  afterAll(() => h.stop());

  it('answers balances, nonces, code and storage at past blocks', async () => {
    expect(await h.evm.getBalance(RECIPIENT, at(beforeTransfer))).toBe(0n);
    expect(await h.evm.getBalance(RECIPIENT, at(afterTransfer))).toBe(parseEther('2'));
    expect(await h.evm.getBalance(RECIPIENT, LATEST)).toBe(parseEther('5'));
    const blockHash = ((await h.evm.getBlockByNumber(at(afterTransfer), false)) as Obj).hash as string;
    expect(await h.evm.getBalance(RECIPIENT, { kind: 'hash', hash: blockHash, requireCanonical: true })).toBe(parseEther('2'));
    expect(await h.evm.getTransactionCount(h.wallets[1].address.toLowerCase(), at(afterTransfer))).toBe(1n);
    expect(await h.evm.getCode(probe, at(beforeTransfer - 1n))).toBe('0x');
    expect(await h.evm.getCode(probe, at(beforeTransfer))).toMatch(/^0x6080/);
    expect(await h.evm.getStorageAt(probe, '0x0', LATEST)).toBe(toBeHex(3, 32));
    expect(await h.evm.getStorageAt(probe, '0x' + '00'.repeat(31) + '07', LATEST)).toBe(toBeHex(0, 32));
  });

  it('proves accounts and storage against the block state root (EIP-1186)', async () => {
    const block = (await h.evm.getBlockByNumber(LATEST, false)) as Obj;
    const root = bytesOf(block.stateRoot as string);
    const proof = await h.evm.getProof(probe, ['0x0', '0x1'], LATEST);
    expect(Object.keys(proof)).toEqual(['address', 'accountProof', 'balance', 'codeHash', 'nonce', 'storageHash', 'storageProof']);
    const accountRlp = await verifyMerkleProof(bytesOf(keccak256(probe)), (proof.accountProof as string[]).map(bytesOf), { root });
    const account = createAccountFromRLP(accountRlp!);
    expect(proof).toMatchObject({ address: probe, nonce: '0x1', balance: '0x0', codeHash: keccak256(await h.evm.getCode(probe, LATEST)) });
    expect('0x' + Buffer.from(account.storageRoot).toString('hex')).toBe(proof.storageHash);
    const [slot0, slot1] = proof.storageProof as { key: string; value: string; proof: string[] }[];
    expect(slot0).toMatchObject({ key: '0x0', value: '0x3' });
    const stored = await verifyMerkleProof(bytesOf(keccak256(toBeHex(0, 32))), slot0.proof.map(bytesOf), { root: account.storageRoot });
    expect(bytesToBigInt(RLP.decode(stored!) as Uint8Array)).toBe(3n);
    expect(slot1).toMatchObject({ key: '0x1', value: '0x0' });
    expect(await verifyMerkleProof(bytesOf(keccak256(toBeHex(1, 32))), slot1.proof.map(bytesOf), { root: account.storageRoot })).toBeNull();
    // An account that does not exist: a proof of absence.
    const absent = await h.evm.getProof('0x' + '62'.repeat(20), ['0x0'], LATEST);
    expect(absent).toMatchObject({ balance: '0x0', nonce: '0x0', storageProof: [{ key: '0x0', value: '0x0', proof: [] }] });
    expect(await verifyMerkleProof(bytesOf(keccak256('0x' + '62'.repeat(20))), (absent.accountProof as string[]).map(bytesOf), { root })).toBeNull();
    // At a past block, against that block's root.
    const past = (await h.evm.getBlockByNumber(at(afterTransfer), false)) as Obj;
    const pastProof = await h.evm.getProof(RECIPIENT, [], at(afterTransfer));
    const pastAccount = await verifyMerkleProof(bytesOf(keccak256(RECIPIENT)), (pastProof.accountProof as string[]).map(bytesOf), { root: bytesOf(past.stateRoot as string) });
    expect(createAccountFromRLP(pastAccount!).balance).toBe(parseEther('2'));
  });

  it('covers the EVM state root with the app hash', async () => {
    const before = (await h.backend.abci.abciInfo() as Record<string, any>).response.last_block_app_hash;
    await h.send(h.wallets[2], { to: RECIPIENT, value: 1n, gasLimit: 21000n });
    await h.nextBlock();
    const after = (await h.backend.abci.abciInfo() as Record<string, any>).response.last_block_app_hash;
    expect(after).not.toBe(before);
    await h.nextBlock();
    const header = ((await h.backend.blocks.header()) as Record<string, any>).header;
    expect(Buffer.from(after, 'base64').toString('hex').toUpperCase()).toBe(header.app_hash);
  });
});

describe('embedded devnet: EVM state across a restart', () => {
  const dir = tempHome();
  afterAll(() => dir.remove());

  it('keeps the state, receipts and history in the home', async () => {
    const { abi } = compileProbe();
    const first = await startEvmDevnet({ ephemeral: false, home: dir.home });
    let probe: string;
    let hash: string;
    let bumpedAt: bigint;
    try {
      probe = await first.deployProbe(first.wallets[0], 10n);
      hash = await first.send(first.wallets[1], { to: probe, data: abi.encodeFunctionData('bump', ['before restart']) });
      await first.nextBlock();
      bumpedAt = first.backend.devnet.latestHeight;
      await first.send(first.wallets[1], { to: RECIPIENT, value: 77n, gasLimit: 21000n });
      await first.nextBlock();
    } finally {
      await first.stop();
    }
    const second = await startEvmDevnet({ ephemeral: false, home: dir.home });
    try {
      expect(second.backend.devnet.latestHeight).toBe(bumpedAt + 2n);
      expect(BigInt(await second.evm.call({ to: probe, input: abi.encodeFunctionData('count') }, LATEST, NO_LIMITS))).toBe(11n);
      expect(await second.evm.getBalance(RECIPIENT, LATEST)).toBe(77n);
      expect(await second.evm.getBalance(RECIPIENT, at(bumpedAt))).toBe(0n);
      expect(((await second.evm.getTransactionReceipt(hash)) as Obj).status).toBe('0x1');
      expect(await second.evm.getTransactionCount(second.wallets[1].address.toLowerCase(), LATEST)).toBe(2n);
      // The chain goes on from there: nonces and base fee continue.
      const next = await second.send(second.wallets[1], { to: probe, data: abi.encodeFunctionData('bump', ['after restart']) });
      await second.nextBlock();
      expect(((await second.evm.getTransactionReceipt(next)) as Obj).status).toBe('0x1');
      expect(BigInt(await second.evm.call({ to: probe, input: abi.encodeFunctionData('count') }, LATEST, NO_LIMITS))).toBe(12n);
    } finally {
      await second.stop();
    }
  });

  it('refuses to open an EVM chain without the EVM, and the reverse', async () => {
    await expect(startEvmDevnet({ ephemeral: false, home: dir.home, evm: undefined })).rejects.toThrow(
      'the database holds a chain that runs the EVM, but the devnet is configured without it',
    );
    const plain = tempHome();
    try {
      const { startDevnet } = await import('./harness');
      const kv = await startDevnet({ ephemeral: false, home: plain.home });
      await kv.stop();
      await expect(startEvmDevnet({ ephemeral: false, home: plain.home })).rejects.toThrow('the database holds a chain started without the EVM');
    } finally {
      plain.remove();
    }
  });
});
