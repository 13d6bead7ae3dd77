import { commitHash, dataHash, headerHash, lastResultsHash, txHash } from '../../../src/devnet/chain/hashing';
import { verify } from '../../../src/devnet/chain/keys';
import { precommitSignBytes } from '../../../src/devnet/chain/vote';
import { parseTimestamp, timestampToNanos } from '../../../src/devnet/time';
import { bytes, CHAIN_ID, errorOf, Harness, startDevnet } from './harness';

type Obj = Record<string, any>;
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex').toUpperCase();

describe('embedded devnet: blocks', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startDevnet();
    for (let i = 0; i < 4; i++) await h.nextBlock();
  });
  afterAll(() => h.stop());

  it('produces a chain of blocks from height 1', async () => {
    const status = (await h.backend.info.status()) as Obj;
    expect(status.sync_info.latest_block_height).toBe('5');
    expect(status.sync_info.earliest_block_height).toBe('1');
    expect(status.sync_info.catching_up).toBe(false);
    for (let height = 2n; height <= 5n; height++) {
      const prev = (await h.backend.blocks.block(height - 1n)) as Obj;
      const cur = (await h.backend.blocks.block(height)) as Obj;
      expect(cur.block.header.last_block_id).toEqual(prev.block_id);
      expect(cur.block.last_commit.height).toBe((height - 1n).toString());
      expect(cur.block.last_commit.block_id).toEqual(prev.block_id);
    }
  });

  it('starts from the genesis: time, empty last commit, the InitChain app hash', async () => {
    const genesis = ((await h.backend.info.genesis()) as Obj).genesis;
    const first = ((await h.backend.blocks.block(1n)) as Obj).block;
    expect(first.header.time).toBe(genesis.genesis_time);
    expect(first.header.last_block_id).toEqual({ hash: '', parts: { total: 0, hash: '' } });
    expect(first.last_commit).toEqual({ height: '0', round: 0, block_id: { hash: '', parts: { total: 0, hash: '' } }, signatures: [] });
    expect(first.header.last_commit_hash).toBe('E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855');
    expect(first.header.last_results_hash).toBe('');
    expect(first.header.app_hash).toBe('0000000000000000');
    expect(first.header.version).toEqual({ block: '11', app: '1' });
    expect(genesis).toMatchObject({ chain_id: CHAIN_ID, initial_height: '1', app_hash: '' });
    expect(genesis.validators).toHaveLength(1);
    expect(genesis.validators[0].power).toBe('10');
  });

  it('hashes the header, data, results and app state consistently', async () => {
    const { store } = h.backend.devnet;
    await h.backend.mempool.broadcastTxSync(bytes('alpha=1'));
    await h.backend.mempool.broadcastTxSync(bytes('beta=2'));
    await h.nextBlock();
    const height = h.backend.devnet.latestHeight;
    const block = (await store.loadBlock(height))!;
    const meta = (await store.loadMeta(height))!;
    const results = (await store.loadResults(height))!;
    expect(block.txs).toHaveLength(2);
    expect(hex(meta.blockId.hash)).toBe(hex(headerHash(block.header)));
    expect(hex(block.header.dataHash)).toBe(hex(dataHash(block.txs)));
    expect(hex(block.header.lastCommitHash)).toBe(hex(commitHash(block.lastCommit)));

    await h.nextBlock();
    const next = (await store.loadBlock(height + 1n))!;
    expect(hex(next.header.lastResultsHash)).toBe(hex(lastResultsHash(results.txResults)));
    expect(hex(next.header.appHash)).toBe(hex(results.appHash));
    // The kvstore's app hash: txs executed so far, as a zig-zag varint (2 txs → 4).
    expect(hex(results.appHash)).toBe('0400000000000000');
    const wire = ((await h.backend.blocks.block(height)) as Obj).block;
    expect(wire.data.txs).toEqual([Buffer.from('alpha=1').toString('base64'), Buffer.from('beta=2').toString('base64')]);
    expect(((await h.backend.txs.tx(txHash(bytes('alpha=1')), false)) as Obj).height).toBe(height.toString());
  });

  it('signs commits with the validator key, seen for the latest height and canonical below', async () => {
    const key = h.backend.devnet.identity.validatorKey;
    const latest = h.backend.devnet.latestHeight;
    const seen = (await h.backend.blocks.commit()) as Obj;
    expect(seen.canonical).toBe(false);
    expect(seen.signed_header.header.height).toBe(latest.toString());
    const canonical = (await h.backend.blocks.commit(latest - 1n)) as Obj;
    expect(canonical.canonical).toBe(true);
    for (const height of [latest - 1n, latest]) {
      const commit = height === latest ? (await h.backend.devnet.store.loadSeenCommit(height))! : (await h.backend.devnet.store.loadBlock(height + 1n))!.lastCommit;
      const [sig] = commit.signatures;
      expect(sig.blockIdFlag).toBe(2);
      expect(hex(sig.validatorAddress)).toBe(hex(key.address));
      expect(verify(key.pubKey, precommitSignBytes(CHAIN_ID, height, 0, commit.blockId, sig.timestamp), sig.signature)).toBe(true);
      const meta = (await h.backend.devnet.store.loadMeta(height))!;
      expect(hex(commit.blockId.hash)).toBe(hex(meta.blockId.hash));
    }
    // BFT time: block H carries the time of the validator's precommit for H-1.
    const block = ((await h.backend.blocks.block(latest)) as Obj).block;
    expect(block.header.time).toBe(block.last_commit.signatures[0].timestamp);
    const previousTime = parseTimestamp(((await h.backend.blocks.header(latest - 1n)) as Obj).header.time)!;
    expect(timestampToNanos(parseTimestamp(block.header.time)!)).toBeGreaterThan(timestampToNanos(previousTime));
  });

  it('answers the height errors of CometBFT', async () => {
    const latest = h.backend.devnet.latestHeight;
    expect(await errorOf(h.backend.blocks.block(0n))).toBe('height must be greater than 0, but got 0');
    expect(await errorOf(h.backend.blocks.block(-3n))).toBe('height must be greater than 0, but got -3');
    expect(await errorOf(h.backend.blocks.block(99n))).toBe(`height 99 must be less than or equal to the current blockchain height ${latest}`);
    expect(await errorOf(h.backend.blocks.header(99n))).toBe(`height 99 must be less than or equal to the current blockchain height ${latest}`);
    expect(await errorOf(h.backend.blocks.blockResults(99n))).toContain('must be less than or equal');
    expect(await errorOf(h.backend.blocks.commit(99n))).toContain('must be less than or equal');
    expect(await errorOf(h.backend.blocks.validators(99n))).toBe(`height 99 must be less than or equal to the current blockchain height ${latest + 1n}`);
    expect(await errorOf(h.backend.blocks.consensusParams(99n))).toBe(`height 99 must be less than or equal to the current blockchain height ${latest + 1n}`);
  });

  it('finds blocks and headers by hash, and answers misses as a success', async () => {
    const latest = (await h.backend.blocks.block()) as Obj;
    const hash = Buffer.from(latest.block_id.hash, 'hex');
    expect(await h.backend.blocks.blockByHash(hash)).toEqual(latest);
    expect(await h.backend.blocks.headerByHash(hash)).toEqual({ header: latest.block.header });
    const missing = Buffer.alloc(32, 7);
    expect(await h.backend.blocks.blockByHash(missing)).toEqual({ block_id: { hash: '', parts: { total: 0, hash: '' } }, block: null });
    expect(await h.backend.blocks.headerByHash(missing)).toEqual({ header: null });
  });

  it('lists block metas highest first with blockchain, clamped and validated', async () => {
    const latest = h.backend.devnet.latestHeight;
    const all = (await h.backend.blocks.blockchain(0n, 0n)) as Obj;
    expect(all.last_height).toBe(latest.toString());
    expect(all.block_metas.map((m: Obj) => m.header.height)).toEqual(
      Array.from({ length: Number(latest) }, (_, i) => (latest - BigInt(i)).toString()),
    );
    expect(Object.keys(all.block_metas[0])).toEqual(['block_id', 'block_size', 'header', 'num_txs']);
    const some = (await h.backend.blocks.blockchain(2n, 3n)) as Obj;
    expect(some.block_metas.map((m: Obj) => m.header.height)).toEqual(['3', '2']);
    expect(((await h.backend.blocks.blockchain(2n, 1000n)) as Obj).block_metas[0].header.height).toBe(latest.toString());
    expect(await errorOf(h.backend.blocks.blockchain(-1n, 2n))).toBe('heights must be non-negative');
    expect(await errorOf(h.backend.blocks.blockchain(5n, 2n))).toBe("min height 5 can't be greater than max height 2");
  });

  it('limits blockchain to 20 metas', async () => {
    while (h.backend.devnet.latestHeight < 25n) await h.nextBlock();
    const metas = ((await h.backend.blocks.blockchain(1n, 25n)) as Obj).block_metas;
    expect(metas).toHaveLength(20);
    expect(metas[0].header.height).toBe('25');
    expect(metas[19].header.height).toBe('6');
  });

  it('serves block_results in the stored form', async () => {
    const empty = (await h.backend.blocks.blockResults(1n)) as Obj;
    expect(empty).toEqual({
      height: '1',
      txs_results: null,
      finalize_block_events: null,
      validator_updates: null,
      consensus_param_updates: null,
      app_hash: 'AAAAAAAAAAA=',
    });
    const withTxs = (await h.backend.blocks.blockResults(6n)) as Obj;
    expect(withTxs.txs_results).toHaveLength(2);
    expect(withTxs.txs_results[0]).toMatchObject({ code: 0, data: null, log: '', gas_wanted: '0', gas_used: '0', codespace: '' });
    expect(withTxs.txs_results[0].events[0].attributes[0]).toEqual({ key: 'creator', value: 'Cosmoshi Netowoko', index: true });
  });

  it('serves validators and consensus params for the next height by default', async () => {
    const latest = h.backend.devnet.latestHeight;
    const key = h.backend.devnet.identity.validatorKey;
    const vals = (await h.backend.blocks.validators()) as Obj;
    expect(vals).toEqual({
      block_height: (latest + 1n).toString(),
      validators: [
        {
          address: hex(key.address),
          pub_key: { type: 'tendermint/PubKeyEd25519', value: Buffer.from(key.pubKey).toString('base64') },
          voting_power: '10',
          proposer_priority: '0',
        },
      ],
      count: '1',
      total: '1',
    });
    expect(await errorOf(h.backend.blocks.validators(undefined, 2))).toBe('page should be within [1, 1] range, given 2');
    expect(await errorOf(h.backend.blocks.validators(undefined, 0))).toBe('page should be within [1, 1] range, given 0');
    const params = (await h.backend.blocks.consensusParams(1n)) as Obj;
    expect(params).toEqual({
      block_height: '1',
      consensus_params: {
        block: { max_bytes: '22020096', max_gas: '-1' },
        evidence: { max_age_num_blocks: '100000', max_age_duration: '172800000000000', max_bytes: '1048576' },
        validator: { pub_key_types: ['ed25519'] },
        version: { app: '0' },
        abci: { vote_extensions_enable_height: '0' },
      },
    });
  });

  it('describes the node in status, net_info and the consensus state', async () => {
    const status = (await h.backend.info.status()) as Obj;
    const { identity } = h.backend.devnet;
    expect(status.node_info).toEqual({
      protocol_version: { p2p: '8', block: '11', app: '1' },
      id: identity.nodeKey.id,
      listen_addr: 'tcp://0.0.0.0:26656',
      network: CHAIN_ID,
      version: '0.38.25',
      channels: '40202122233038606100',
      moniker: 'test-node',
      other: { tx_index: 'on', rpc_address: 'tcp://127.0.0.1:26657' },
    });
    expect(status.validator_info.voting_power).toBe('10');
    const latest = (await h.backend.blocks.block()) as Obj;
    expect(status.sync_info.latest_block_hash).toBe(latest.block_id.hash);
    expect(status.sync_info.latest_block_time).toBe(latest.block.header.time);
    expect(await h.backend.info.netInfo()).toEqual({ listening: true, listeners: ['Listener(@)'], n_peers: '0', peers: [] });
    expect(await h.backend.info.health()).toEqual({});
    const simple = ((await h.backend.consensus.consensusState()) as Obj).round_state;
    expect(simple['height/round/step']).toBe(`${h.backend.devnet.latestHeight + 1n}/0/1`);
    expect(simple.proposer).toEqual({ address: hex(identity.validatorKey.address), index: 0 });
    const dump = (await h.backend.consensus.dumpConsensusState()) as Obj;
    expect(dump.peers).toEqual([]);
    expect(dump.round_state.last_commit.votes_bit_array).toBe('BA{1:x} 10/10 = 1.00');
    expect(dump.round_state.last_commit.votes[0]).toMatch(/^Vote\{0:[0-9A-F]{12} \d+\/00\/SIGNED_MSG_TYPE_PRECOMMIT\(Precommit\) /);
  });

  it('chunks the genesis and answers chunk errors', async () => {
    const chunk = (await h.backend.info.genesisChunked(0)) as Obj;
    expect(chunk.chunk).toBe('0');
    expect(chunk.total).toBe('1');
    expect(JSON.parse(Buffer.from(chunk.data, 'base64').toString())).toEqual(((await h.backend.info.genesis()) as Obj).genesis);
    expect(await errorOf(h.backend.info.genesisChunked(1))).toBe('there are 0 chunks, 1 is invalid');
  });
});

describe('embedded devnet: the block timer', () => {
  it('produces blocks every block_time, empty ones included, and stops cleanly', async () => {
    const h = await startDevnet({ blockTimeMs: 50 });
    await new Promise((resolve) => setTimeout(resolve, 400));
    await h.stop();
    const height = h.backend.devnet.latestHeight;
    expect(height).toBeGreaterThanOrEqual(4n);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(h.backend.devnet.latestHeight).toBe(height);
  });
});
