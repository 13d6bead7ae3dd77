import { txHash } from '../../../src/devnet/chain/hashing';
import { parseQuery } from '../../../src/events';
import { bytes, flush, Harness, startDevnet } from './harness';

type Obj = Record<string, any>;
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex').toUpperCase();

describe('embedded devnet: events', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startDevnet();
    await flush();
  });
  afterAll(() => h.stop());

  it('publishes NewBlock, NewBlockHeader and NewBlockEvents for every block, in order', async () => {
    h.events.length = 0;
    await h.nextBlock();
    await flush();
    const height = h.backend.devnet.latestHeight.toString();
    expect(h.events.map((e) => e.type)).toEqual(['NewBlock', 'NewBlockHeader', 'NewBlockEvents']);
    const [newBlock, newHeader, newEvents] = h.events;
    const stored = (await h.backend.blocks.block()) as Obj;
    expect(newBlock.data).toEqual({
      type: 'tendermint/event/NewBlock',
      value: {
        block: stored.block,
        block_id: stored.block_id,
        result_finalize_block: { validator_updates: [], app_hash: 'AAAAAAAAAAA=' },
      },
    });
    expect(newBlock.events).toEqual({ 'tm.event': ['NewBlock'] });
    expect(newHeader.data).toEqual({ type: 'tendermint/event/NewBlockHeader', value: { header: stored.block.header } });
    expect(newHeader.events).toEqual({ 'tm.event': ['NewBlockHeader'] });
    expect(newEvents.data).toEqual({ type: 'tendermint/event/NewBlockEvents', value: { height, events: null, num_txs: '0' } });
  });

  it('publishes one Tx event per tx with its attribute map', async () => {
    h.events.length = 0;
    await h.backend.mempool.broadcastTxSync(bytes('first=1'));
    await h.backend.mempool.broadcastTxSync(bytes('second=2'));
    await h.nextBlock();
    await flush();
    const height = h.backend.devnet.latestHeight.toString();
    const txEvents = h.events.filter((e) => e.type === 'Tx');
    expect(h.events.map((e) => e.type)).toEqual(['NewBlock', 'NewBlockHeader', 'NewBlockEvents', 'Tx', 'Tx']);
    expect(txEvents[1].events).toEqual({
      'app.creator': ['Cosmoshi Netowoko', 'Cosmoshi'],
      'app.key': ['second', '2'],
      'app.index_key': ['index is working', 'index is working'],
      'app.noindex_key': ['index is working', 'index is working'],
      'tm.event': ['Tx'],
      'tx.hash': [hex(txHash(bytes('second=2')))],
      'tx.height': [height],
    });
    const first = (txEvents[0].data as Obj).value.TxResult;
    expect(Object.keys(first)).toEqual(['height', 'tx', 'result']);
    const second = (txEvents[1].data as Obj).value.TxResult;
    expect(Object.keys(second)).toEqual(['height', 'index', 'tx', 'result']);
    expect(second.index).toBe(1);
    const tx = (await h.backend.txs.tx(txHash(bytes('second=2')), false)) as Obj;
    expect(second.result).toEqual(tx.tx_result);
    const newBlock = (h.events[0].data as Obj).value;
    expect(newBlock.result_finalize_block.tx_results).toHaveLength(2);
    expect((h.events[2].data as Obj).value.num_txs).toBe('2');
    expect(parseQuery(`tm.event = 'Tx' AND app.key = 'second'`).matches(txEvents[1].events)).toBe(true);
  });

  it('publishes a block only once it can be read', async () => {
    const seen: Promise<unknown>[] = [];
    h.bus.subscribe('reader', parseQuery("tm.event = 'NewBlock'"), {
      bufferSize: 10,
      onEvent: (e) => {
        const height = BigInt((e.data as Obj).value.block.header.height);
        seen.push(h.backend.blocks.block(height));
      },
      onCancel: () => undefined,
    });
    await h.nextBlock();
    await flush();
    expect(seen).toHaveLength(1);
    expect(((await seen[0]) as Obj).block.header.height).toBe(h.backend.devnet.latestHeight.toString());
    h.bus.unsubscribeAll('reader');
  });
});
