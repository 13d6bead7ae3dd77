import { bytes, errorOf, Harness, startDevnet } from './harness';

type Obj = Record<string, any>;

describe('embedded devnet: mempool', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await startDevnet({ mempoolSize: 3, maxTxBytes: 16 });
  });
  afterEach(() => h.stop());

  it('keeps txs in arrival order and reports them', async () => {
    for (const tx of ['k1=v', 'k2=v', 'k3=v']) await h.backend.mempool.broadcastTxSync(bytes(tx));
    expect(await h.backend.mempool.numUnconfirmedTxs()).toEqual({ n_txs: '3', total: '3', total_bytes: '12', txs: null });
    expect(await h.backend.mempool.unconfirmedTxs()).toEqual({
      n_txs: '3',
      total: '3',
      total_bytes: '12',
      txs: ['k1=v', 'k2=v', 'k3=v'].map((t) => Buffer.from(t).toString('base64')),
    });
    expect(((await h.backend.mempool.unconfirmedTxs(2)) as Obj).txs).toHaveLength(2);
    await h.nextBlock();
    const block = ((await h.backend.blocks.block()) as Obj).block;
    expect(block.data.txs.map((t: string) => Buffer.from(t, 'base64').toString())).toEqual(['k1=v', 'k2=v', 'k3=v']);
    expect(await h.backend.mempool.unconfirmedTxs()).toEqual({ n_txs: '0', total: '0', total_bytes: '0', txs: [] });
  });

  it('refuses txs when full, too large or already seen', async () => {
    for (const tx of ['k1=v', 'k2=v', 'k3=v']) await h.backend.mempool.broadcastTxSync(bytes(tx));
    expect(await errorOf(h.backend.mempool.broadcastTxSync(bytes('k4=v')))).toBe(
      'mempool is full: number of txs 3 (max: 3), total txs bytes 12 (max: 1073741824)',
    );
    await h.backend.mempool.unsafeFlushMempool();
    expect(await errorOf(h.backend.mempool.broadcastTxSync(bytes('a-very-long-key=value')))).toBe('Tx too large. Max size is 16, but got 21');
    await h.backend.mempool.broadcastTxSync(bytes('k1=v'));
    expect(await errorOf(h.backend.mempool.broadcastTxSync(bytes('k1=v')))).toBe('tx already exists in cache');
    // Committed txs stay in the cache.
    await h.nextBlock();
    expect(await errorOf(h.backend.mempool.broadcastTxSync(bytes('k1=v')))).toBe('tx already exists in cache');
  });

  it('does not keep txs that fail CheckTx', async () => {
    const res = (await h.backend.mempool.broadcastTxSync(bytes('invalid'))) as Obj;
    expect(res.code).toBe(2);
    expect(((await h.backend.mempool.numUnconfirmedTxs()) as Obj).n_txs).toBe('0');
  });

  it('empties itself and its cache on unsafe_flush_mempool', async () => {
    await h.backend.mempool.broadcastTxSync(bytes('k1=v'));
    expect(await h.backend.mempool.unsafeFlushMempool()).toEqual({});
    expect(((await h.backend.mempool.numUnconfirmedTxs()) as Obj).n_txs).toBe('0');
    expect(((await h.backend.mempool.broadcastTxSync(bytes('k1=v'))) as Obj).code).toBe(0);
  });
});
