/**
 * The devnet's address index, built as blocks commit: who took part in each EVM tx (sender,
 * recipient, created contracts, internal calls, a self-destruct's beneficiary), senders' nonces and
 * contracts' creators; Otterscan's page order and flags over it; kept across a restart, and caught up
 * when a database holds blocks it never indexed.
 */
import { Logger } from '@nestjs/common';
import { getCreateAddress, getCreate2Address, id, keccak256, Wallet } from 'ethers';
import { Database } from '../../../src/devnet/store/database';
import { databasePath } from '../../../src/devnet/genesis/node-home';
import { explorerContracts } from '../../e2e/plugins/fixtures/explorer-contracts';
import { startEvmDevnet, type EvmHarness } from '../embedded/evm-harness';
import { tempHome } from '../embedded/harness';

Logger.overrideLogger(false);

const lower = (address: string): string => address.toLowerCase();

interface Chain {
  a: string;
  b: string;
  c: string;
  factory: string;
  plain: string;
  salted: string;
  vanished: string;
  undone: string;
  /** Tx hashes by name; the block of each. */
  tx: Record<string, string>;
  block: Record<string, bigint>;
}

/**
 * Five blocks: (1) a→b transfer, a deploys Factory; (2) a: make (CREATE + CREATE2), b→a transfer;
 * (3) a: relay value to c; (4) a: tryMakeThenFail, a: fail (reverts); (5) a: makeAndVanish to b.
 */
async function makeActivity(h: EvmHarness): Promise<Chain> {
  const { Factory, Child } = explorerContracts();
  const [walletA, walletB] = h.wallets;
  const a = lower(walletA.address);
  const b = lower(walletB.address);
  const c = lower(Wallet.createRandom().address);
  const factory = lower(getCreateAddress({ from: a, nonce: 1 }));
  const call = (fn: string, args: unknown[]) => Factory.abi.encodeFunctionData(fn, args);
  const tx: Record<string, string> = {};
  const block: Record<string, bigint> = {};
  const mined = async (...names: string[]) => {
    await h.nextBlock();
    for (const name of names) block[name] = BigInt((await h.evm.getTransactionReceipt(tx[name]))!.blockNumber as string);
  };

  tx.transfer = await h.send(walletA, { to: b, value: 10n ** 18n });
  tx.deploy = await h.send(walletA, { data: Factory.bytecode, gasLimit: 3_000_000n });
  await mined('transfer', 'deploy');
  tx.make = await h.send(walletA, { to: factory, data: call('make', [id('one')]), value: 2n });
  tx.back = await h.send(walletB, { to: a, value: 1n });
  await mined('make', 'back');
  const plain = lower(getCreateAddress({ from: factory, nonce: 1 }));
  const salted = lower(getCreate2Address(factory, id('one'), keccak256(Child.bytecode)));
  tx.relay = await h.send(walletA, { to: factory, data: call('relay', [c, plain]), value: 5n });
  await mined('relay');
  tx.tryUndone = await h.send(walletA, { to: factory, data: call('tryMakeThenFail', []) });
  tx.fail = await h.send(walletA, { to: factory, data: call('fail', []) });
  await mined('tryUndone', 'fail');
  // The reverted frame's CREATE took the factory's next nonce (3), and gave it back.
  const undone = lower(getCreateAddress({ from: factory, nonce: 3 }));
  tx.vanish = await h.send(walletA, { to: factory, data: call('makeAndVanish', [id('two'), b]), value: 7n });
  await mined('vanish');
  const vanished = lower(getCreate2Address(factory, id('two'), keccak256(Child.bytecode)));
  for (const name of Object.keys(tx)) {
    const status = (await h.evm.getTransactionReceipt(tx[name]))!.status;
    expect([name, status]).toEqual([name, name === 'fail' ? '0x0' : '0x1']);
  }
  return { a, b, c, factory, plain, salted, vanished, undone, tx, block };
}

describe('the address index', () => {
  let h: EvmHarness;
  let chain: Chain;

  beforeAll(async () => {
    h = await startEvmDevnet();
    chain = await makeActivity(h);
  }, 60_000);
  afterAll(() => h?.stop());

  const all = (address: string) => h.evm.history.transactions(address, 0n, 'before', 100);

  it('indexes senders, recipients, created contracts and internal participants', async () => {
    const { tx } = chain;
    expect((await all(chain.c)).hashes).toEqual([tx.relay]);
    expect((await all(chain.plain)).hashes).toEqual([tx.relay, tx.make]);
    expect((await all(chain.salted)).hashes).toEqual([tx.make]);
    expect((await all(chain.b)).hashes).toEqual([tx.vanish, tx.back, tx.transfer]);
    expect((await all(chain.factory)).hashes).toEqual([tx.vanish, tx.fail, tx.tryUndone, tx.relay, tx.make, tx.deploy]);
    expect((await all(chain.vanished)).hashes).toEqual([tx.vanish]);
    // A creation that was undone still names its address as a participant, as erigon's trace index does.
    expect((await all(chain.undone)).hashes).toEqual([tx.tryUndone]);
    expect(await all('0x' + '77'.repeat(20))).toEqual({ hashes: [], firstPage: true, lastPage: true });
  });

  it('pages before a block, latest first, finishing the last block reached', async () => {
    const { a, tx, block } = chain;
    expect(await h.evm.history.transactions(a, 0n, 'before', 1)).toEqual({ hashes: [tx.vanish], firstPage: true, lastPage: false });
    expect(await h.evm.history.transactions(a, block.vanish, 'before', 1)).toEqual({ hashes: [tx.fail, tx.tryUndone], firstPage: false, lastPage: false });
    expect(await h.evm.history.transactions(a, block.relay, 'before', 1)).toEqual({ hashes: [tx.back, tx.make], firstPage: false, lastPage: false });
    expect(await h.evm.history.transactions(a, block.make, 'before', 5)).toEqual({ hashes: [tx.deploy, tx.transfer], firstPage: false, lastPage: true });
    expect(await h.evm.history.transactions(a, block.transfer, 'before', 5)).toEqual({ hashes: [], firstPage: false, lastPage: true });
  });

  it('pages after a block, answering latest first', async () => {
    const { a, tx, block } = chain;
    expect(await h.evm.history.transactions(a, 0n, 'after', 3)).toEqual({
      hashes: [tx.back, tx.make, tx.deploy, tx.transfer],
      firstPage: false,
      lastPage: true,
    });
    expect(await h.evm.history.transactions(a, block.make, 'after', 1)).toEqual({ hashes: [tx.relay], firstPage: false, lastPage: false });
    expect(await h.evm.history.transactions(a, block.fail, 'after', 25)).toEqual({ hashes: [tx.vanish], firstPage: true, lastPage: false });
    expect(await h.evm.history.transactions(a, block.vanish + 100n, 'after', 25)).toEqual({ hashes: [], firstPage: true, lastPage: false });
  });

  it('finds a sender’s tx by nonce', async () => {
    const { a, b, tx } = chain;
    expect(await h.evm.history.bySenderAndNonce(a, 0n)).toBe(tx.transfer);
    expect(await h.evm.history.bySenderAndNonce(a, 2n)).toBe(tx.make);
    expect(await h.evm.history.bySenderAndNonce(a, 5n)).toBe(tx.fail);
    expect(await h.evm.history.bySenderAndNonce(b.toUpperCase().replace('0X', '0x'), 0n)).toBe(tx.back);
    expect(await h.evm.history.bySenderAndNonce(a, 99n)).toBeNull();
  });

  it('names each contract’s creator: the sender of a deployment, or the contract that created it', async () => {
    const { a, factory, tx } = chain;
    expect(await h.evm.history.contractCreator(factory)).toEqual({ hash: tx.deploy, creator: a });
    expect(await h.evm.history.contractCreator(chain.plain)).toEqual({ hash: tx.make, creator: factory });
    expect(await h.evm.history.contractCreator(chain.salted)).toEqual({ hash: tx.make, creator: factory });
    // Destroyed in the tx that made it (EIP-6780): no code, no creator; an EOA has none either.
    expect(await h.evm.history.contractCreator(chain.vanished)).toBeNull();
    expect(await h.evm.history.contractCreator(a)).toBeNull();
    // A creation undone by a failed frame is not recorded at all.
    expect(await h.backend.devnet.evm!.addresses.creation(chain.undone)).toBeUndefined();
    expect(await h.backend.devnet.evm!.addresses.creation(chain.vanished)).toEqual({ hash: tx.vanish, creator: factory });
  });
});

describe('the address index across restarts', () => {
  const dir = tempHome();
  afterAll(() => dir.remove());

  const snapshot = async (h: EvmHarness, chain: Chain) => ({
    a: await h.evm.history.transactions(chain.a, 0n, 'before', 100),
    c: await h.evm.history.transactions(chain.c, 0n, 'after', 100),
    nonce: await h.evm.history.bySenderAndNonce(chain.a, 3n),
    creator: await h.evm.history.contractCreator(chain.plain),
  });

  it('keeps the index in the database, and rebuilds one the database lacks', async () => {
    const first = await startEvmDevnet({ ephemeral: false, home: dir.home });
    let chain: Chain;
    let before;
    try {
      chain = await makeActivity(first);
      before = await snapshot(first, chain);
      expect(before.a.hashes).toHaveLength(8);
    } finally {
      await first.stop();
    }

    const second = await startEvmDevnet({ ephemeral: false, home: dir.home });
    try {
      expect(await snapshot(second, chain)).toEqual(before);
    } finally {
      await second.stop();
    }

    // A database written before the index existed: no entries, no indexed height.
    const db = await Database.open(databasePath(dir.home));
    const batch = db.batch();
    let removed = 0;
    for (const name of ['evm.address-txs', 'evm.sender-nonces', 'evm.contract-creations', 'evm.address-index-head']) {
      const table = db.table<unknown>(name);
      for await (const [key] of table.byPrefix('')) {
        batch.del(table, key);
        removed++;
      }
    }
    await batch.write();
    await db.close();
    expect(removed).toBeGreaterThan(20);

    const third = await startEvmDevnet({ ephemeral: false, home: dir.home });
    try {
      expect(await snapshot(third, chain)).toEqual(before);
      expect(await third.backend.devnet.evm!.addresses.indexedHeight()).toBe(third.backend.devnet.latestHeight);
    } finally {
      await third.stop();
    }
  }, 90_000);
});
