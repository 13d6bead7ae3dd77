import { txHash } from '../../../src/devnet/chain/hashing';
import { verifyMerkleProof } from '../../../src/devnet/chain/merkle';
import { bytes, errorOf, Harness, startDevnet } from './harness';

type Obj = Record<string, any>;
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex').toUpperCase();
const b64 = (s: string): string => Buffer.from(s).toString('base64');

describe('embedded devnet: kvstore transactions', () => {
  let h: Harness;
  /** height of each committed tx, by its text. */
  const heights = new Map<string, string>();

  beforeAll(async () => {
    h = await startDevnet();
    // Blocks: 2 = {a=1, b=2}, 3 = {c=3}, 4 = {name:satoshi} (proposed as name=satoshi), 5 empty.
    for (const group of [['a=1', 'b=2'], ['c=3'], ['name:satoshi'], []]) {
      for (const tx of group) await h.backend.mempool.broadcastTxSync(bytes(tx));
      await h.nextBlock();
      for (const tx of group) heights.set(tx, h.backend.devnet.latestHeight.toString());
    }
  });
  afterAll(() => h.stop());

  it('checks txs as the kvstore does', async () => {
    expect(await h.backend.mempool.checkTx(bytes('key=value'))).toEqual({
      code: 0, data: null, log: '', info: '', gas_wanted: '1', gas_used: '0', events: [], codespace: '',
    });
    for (const bad of ['=value', 'key=', 'a=b=c', 'a:b=c', 'noseparator', ':x', 'val=ed25519!notbase64!10', 'val=ed25519!AAAA!-1']) {
      expect(((await h.backend.mempool.checkTx(bytes(bad))) as Obj).code).toBe(2);
    }
    expect(((await h.backend.mempool.checkTx(bytes('key:value'))) as Obj).code).toBe(0);
  });

  it('answers abci_query for stored and missing keys', async () => {
    const found = ((await h.backend.abci.abciQuery('', bytes('a'), 0n, false)) as Obj).response;
    expect(found).toEqual({
      code: 0, log: 'exists', info: '', index: '0', key: b64('a'), value: b64('1'), proofOps: null,
      height: h.backend.devnet.latestHeight.toString(), codespace: '',
    });
    const proved = ((await h.backend.abci.abciQuery('/store', bytes('name'), 0n, true)) as Obj).response;
    expect(proved).toMatchObject({ log: 'exists', index: '-1', value: b64('satoshi'), proofOps: null });
    const missing = ((await h.backend.abci.abciQuery('', bytes('zzz'), 0n, false)) as Obj).response;
    expect(missing).toMatchObject({ log: 'does not exist', key: b64('zzz'), value: null });
    const info = ((await h.backend.abci.abciInfo()) as Obj).response;
    expect(info).toEqual({
      data: '{"size":4}',
      version: '2.0.0',
      app_version: '1',
      last_block_height: h.backend.devnet.latestHeight.toString(),
      last_block_app_hash: Buffer.from([8, 0, 0, 0, 0, 0, 0, 0]).toString('base64'),
    });
  });

  it('rewrites key:value to key=value in the proposal and drops the original from the mempool', async () => {
    const block = ((await h.backend.blocks.block(BigInt(heights.get('name:satoshi')!))) as Obj).block;
    expect(block.data.txs).toEqual([b64('name=satoshi')]);
    expect(((await h.backend.mempool.numUnconfirmedTxs()) as Obj).n_txs).toBe('0');
  });

  it('returns a tx by hash, with a merkle proof on request', async () => {
    const hash = txHash(bytes('b=2'));
    const tx = (await h.backend.txs.tx(hash, false)) as Obj;
    expect(tx).toEqual({
      hash: hex(hash),
      height: heights.get('b=2'),
      index: 1,
      tx_result: expect.objectContaining({ code: 0, gas_wanted: '0' }),
      tx: b64('b=2'),
    });
    expect(tx.tx_result.events.map((e: Obj) => e.attributes[1].value)).toEqual(['b', '2']);
    expect(tx.tx_result.events[0].attributes[3]).toEqual({ key: 'noindex_key', value: 'index is working', index: false });
    const proved = (await h.backend.txs.tx(hash, true)) as Obj;
    const header = ((await h.backend.blocks.header(BigInt(heights.get('b=2')!))) as Obj).header;
    expect(proved.proof.root_hash).toBe(header.data_hash);
    expect(proved.proof.proof).toMatchObject({ total: '2', index: '1' });
    const proof = {
      total: 2n, index: 1n,
      leafHash: Buffer.from(proved.proof.proof.leaf_hash, 'base64'),
      aunts: proved.proof.proof.aunts.map((a: string) => Buffer.from(a, 'base64')),
    };
    expect(verifyMerkleProof(proof, Buffer.from(header.data_hash, 'hex'), hash)).toBe(true);
    expect(await errorOf(h.backend.txs.tx(Buffer.alloc(32, 1), false))).toBe(`tx (${'01'.repeat(32).toUpperCase()}) not found`);
    expect(await errorOf(h.backend.txs.tx(new Uint8Array(0), false))).toBe('transaction hash cannot be empty');
  });

  it('searches txs by events, height and hash', async () => {
    const search = async (query: string, orderBy = ''): Promise<string[]> =>
      (((await h.backend.txs.txSearch(query, false, undefined, undefined, orderBy)) as Obj).txs as Obj[]).map((t) =>
        Buffer.from(t.tx, 'base64').toString(),
      );
    expect(await search("app.creator = 'Cosmoshi Netowoko'")).toEqual(['a=1', 'b=2', 'c=3', 'name=satoshi']);
    expect(await search("app.creator = 'Cosmoshi Netowoko'", 'desc')).toEqual(['name=satoshi', 'c=3', 'b=2', 'a=1']);
    expect(await search("app.key = 'c'")).toEqual(['c=3']);
    // The value is reported as `key` of the second event.
    expect(await search("app.key = '3'")).toEqual(['c=3']);
    // Conditions hold within one event: creator Cosmoshi goes with the value, not with the key.
    expect(await search("app.creator = 'Cosmoshi' AND app.key = 'c'")).toEqual([]);
    expect(await search("app.creator = 'Cosmoshi' AND app.key = '3'")).toEqual(['c=3']);
    expect(await search("app.key CONTAINS 'sat'")).toEqual(['name=satoshi']);
    expect(await search('app.key > 1 AND app.key <= 3')).toEqual(['b=2', 'c=3']);
    expect(await search('app.index_key EXISTS')).toHaveLength(4);
    // Not indexed.
    expect(await search("app.noindex_key = 'index is working'")).toEqual([]);
    expect(await search(`tx.height = ${heights.get('a=1')}`)).toEqual(['a=1', 'b=2']);
    expect(await search(`tx.height > ${heights.get('a=1')}`)).toEqual(['c=3', 'name=satoshi']);
    expect(await search(`tx.height >= ${heights.get('c=3')} AND app.key = 'name'`)).toEqual(['name=satoshi']);
    expect(await search(`tx.height = ${heights.get('c=3')} AND app.creator = 'Cosmoshi'`)).toEqual(['c=3']);
    // tx.hash is a direct lookup that ignores everything else.
    expect(await search(`tx.hash = '${hex(txHash(bytes('c=3')))}' AND app.key = 'zzz'`)).toEqual(['c=3']);
    expect(await search(`tx.hash = '${'00'.repeat(32)}'`)).toEqual([]);
    // tm.event is pubsub only: the indexer has no such key.
    expect(await search("tm.event = 'Tx'")).toEqual([]);
  });

  it('paginates tx_search and answers its errors', async () => {
    const page = (await h.backend.txs.txSearch("app.index_key EXISTS", false, 2, 3, 'asc')) as Obj;
    expect(page.total_count).toBe('4');
    expect(page.txs.map((t: Obj) => Buffer.from(t.tx, 'base64').toString())).toEqual(['name=satoshi']);
    expect(page.txs[0].proof).toBeUndefined();
    const proved = (await h.backend.txs.txSearch("app.key = 'a'", true, undefined, undefined, '')) as Obj;
    expect(proved.txs[0].proof.proof.total).toBe('2');
    expect(await errorOf(h.backend.txs.txSearch('app.index_key EXISTS', false, 3, 3, ''))).toBe('page should be within [1, 2] range, given 3');
    expect(await errorOf(h.backend.txs.txSearch("app.key = 'nothing'", false, 2, undefined, ''))).toBe('page should be within [1, 1] range, given 2');
    expect(await errorOf(h.backend.txs.txSearch("app.key = 'a'", false, undefined, undefined, 'up'))).toBe(
      'expected order_by to be either `asc` or `desc` or empty',
    );
    expect(await errorOf(h.backend.txs.txSearch(`app.key = '${'x'.repeat(600)}'`, false, undefined, undefined, ''))).toBe(
      'maximum query length exceeded',
    );
    expect(await errorOf(h.backend.txs.txSearch('', false, undefined, undefined, ''))).toBe('offset 0: EOF');
    expect(await errorOf(h.backend.txs.txSearch("tx.hash = 'XYZ'", false, undefined, undefined, ''))).toBe(
      "error during searching for a hash in the query: encoding/hex: invalid byte: U+0058 'X'",
    );
  });

  it('searches blocks by height, newest first by default', async () => {
    const heightsOf = async (query: string, orderBy = '', page?: number, perPage?: number): Promise<string[]> =>
      (((await h.backend.txs.blockSearch(query, page, perPage, orderBy)) as Obj).blocks as Obj[]).map((b) => b.block.header.height);
    expect(await heightsOf('block.height > 2 AND block.height <= 4')).toEqual(['4', '3']);
    expect(await heightsOf('block.height > 2 AND block.height <= 4', 'asc')).toEqual(['3', '4']);
    expect(await heightsOf('block.height = 3')).toEqual(['3']);
    expect(await heightsOf('block.height = 999')).toEqual([]);
    expect(await heightsOf("begin_event.foo = '100'")).toEqual([]);
    expect(await heightsOf('block.height >= 1', '', 2, 2)).toEqual(['3', '2']);
    const result = (await h.backend.txs.blockSearch('block.height = 2', undefined, undefined, '')) as Obj;
    expect(result.total_count).toBe('1');
    expect(result.blocks[0]).toEqual(await h.backend.blocks.block(2n));
    expect(await errorOf(h.backend.txs.blockSearch('block.height >= 1', undefined, undefined, 'random'))).toBe(
      'expected order_by to be either `asc` or `desc` or empty',
    );
    expect(await errorOf(h.backend.txs.blockSearch('block.height >>', undefined, undefined, ''))).toMatch(/^offset \d+: /);
  });

  it('answers broadcast_tx_sync in its shape', async () => {
    const sync = (await h.backend.mempool.broadcastTxSync(bytes('bad'))) as Obj;
    expect(sync).toEqual({ code: 2, data: '', log: '', codespace: '', hash: hex(txHash(bytes('bad'))) });
    // A rejected tx leaves the cache, so it can be sent again.
    expect(((await h.backend.mempool.broadcastTxSync(bytes('bad'))) as Obj).code).toBe(2);
  });
});
