/**
 * A tx checked while a block commits: without the mempool's update lock it is counted in the
 * application's fresh check state, then refused by its own recheck and silently dropped.
 */
import type { Application, CheckTxResult } from '../../../src/devnet/app/application';
import { Mempool } from '../../../src/devnet/mempool/mempool';

/** A check state like the EVM application's: each sender's next nonce, reset at every commit. */
class NonceApp {
  committedNonce = 0;
  private pendingNonce: number | undefined;

  async checkTx(tx: Uint8Array): Promise<CheckTxResult> {
    await new Promise((r) => setImmediate(r));
    const expected = this.pendingNonce ?? this.committedNonce;
    if (tx[0] !== expected) return { code: 1, gasWanted: 0n } as CheckTxResult;
    this.pendingNonce = tx[0] + 1;
    return { code: 0, gasWanted: 0n } as CheckTxResult;
  }

  commit(): void {
    this.pendingNonce = undefined;
  }
}

it('keeps a tx that arrives while a block commits', async () => {
  const app = new NonceApp();
  const mempool = new Mempool(app as unknown as Application, { size: 10, maxTxBytes: 100, maxTxsBytes: 1000, cacheSize: 100 }, 1000);
  const tx0 = Uint8Array.of(0);
  const tx1 = Uint8Array.of(1);
  expect((await mempool.add(tx0)).code).toBe(0);
  let arrived: Promise<CheckTxResult> | undefined;
  await mempool.commitBlock(
    async () => {
      app.committedNonce = 1;
      app.commit();
      // The store write takes a while; tx1 (nonce 1) arrives meanwhile.
      arrived = mempool.add(tx1);
      await new Promise((r) => setTimeout(r, 20));
    },
    [tx0],
    [0],
    [tx0],
    1000,
  );
  expect((await arrived!).code).toBe(0);
  expect(mempool.list(10)).toEqual([tx1]);
});
