import { DevnetNode } from '../../../src/backends/embedded/devnet-node';
import { EventBus, parseQuery, type BusEvent } from '../../../src/events';
import { bytes, config, errorOf, tempHome } from './harness';
import { reach, startLeader, type FakeLeader } from './follower-leader';

jest.setTimeout(30_000);

let leader: FakeLeader;
const opened: DevnetNode[] = [];

beforeEach(async () => {
  leader = await startLeader();
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((f) => f.stop()));
  await leader.stop();
});

async function startFollower(overrides: Parameters<typeof config>[0] = {}, bus = new EventBus()): Promise<DevnetNode> {
  const follower = await DevnetNode.open(config({ follow: leader.url, blockTimeMs: 20, ...overrides }), bus);
  opened.push(follower);
  await follower.start();
  return follower;
}

async function leaderBlocks(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await leader.nextBlock();
}

const heightOf = (f: DevnetNode) => () => f.devnet.latestHeight;
const sync = async (f: DevnetNode) => (await f.info.status()).sync_info as Record<string, unknown>;

describe('a follower', () => {
  it('replays the leader’s blocks: same block ids, app hashes, results and tx index', async () => {
    await leader.backend.mempool.broadcastTxSync(bytes('name=satoshi'));
    await leaderBlocks(3);
    const bus = new EventBus();
    const events: BusEvent[] = [];
    bus.subscribe('t', parseQuery("tm.event = 'Tx'"), { bufferSize: 100, onEvent: (e) => void events.push(e), onCancel: () => undefined });
    const follower = await startFollower({}, bus);
    await reach(heightOf(follower), leader.backend.devnet.latestHeight);

    for (let h = 1n; h <= leader.backend.devnet.latestHeight; h++) {
      expect(await follower.blocks.block(h)).toEqual(await leader.backend.blocks.block(h));
      expect(await follower.blocks.commit(h)).toEqual(await leader.backend.blocks.commit(h));
      expect(await follower.blocks.blockResults(h)).toEqual(await leader.backend.blocks.blockResults(h));
    }
    expect(await follower.info.genesis()).toEqual(await leader.backend.info.genesis());
    const search = (b: DevnetNode) => b.txs.txSearch("app.key = 'name'", false, undefined, undefined, 'asc');
    expect(await search(follower)).toEqual(await search(leader.backend));
    expect((await follower.abci.abciQuery('', bytes('name'), 0n, false)).response).toMatchObject({ value: Buffer.from('satoshi').toString('base64') });
    expect(events).toHaveLength(1);
    expect(await sync(follower)).toMatchObject({ catching_up: false });
  });

  it('follows new blocks as the leader makes them', async () => {
    const follower = await startFollower();
    await reach(heightOf(follower), 1n);
    await leaderBlocks(2);
    await reach(heightOf(follower), 3n);
    expect((await follower.blocks.block(3n)).block_id).toEqual((await leader.backend.blocks.block(3n)).block_id);
  });

  it('lags while paused, says it is catching up, and catches up once resumed', async () => {
    const follower = await startFollower();
    await reach(heightOf(follower), 1n);
    follower.devnet.follower!.pause();
    await leaderBlocks(3);
    await reach(() => follower.devnet.follower!.leaderHeight, 4n);
    expect(follower.devnet.latestHeight).toBe(1n);
    expect(await sync(follower)).toMatchObject({ catching_up: true, latest_block_height: '1' });
    follower.devnet.follower!.resume();
    await reach(heightOf(follower), 4n);
    expect(await sync(follower)).toMatchObject({ catching_up: false, latest_block_height: '4' });
  });

  it('forwards broadcasts to the leader and keeps its own mempool empty', async () => {
    const follower = await startFollower();
    const sent = await follower.mempool.broadcastTxSync(bytes('k=v'));
    expect(sent).toMatchObject({ code: 0 });
    expect(leader.backend.devnet.mempool.size).toBe(1);
    expect(await follower.mempool.numUnconfirmedTxs()).toMatchObject({ n_txs: '0' });
    // The leader's refusals come back in its words.
    expect(await errorOf(follower.mempool.broadcastTxSync(bytes('k=v')))).toBe('tx already exists in cache');
    expect(await follower.mempool.broadcastTxSync(bytes('not a kv tx'))).toMatchObject({ code: 2 });
  });

  it('resumes from its stored height when restarted on the same home', async () => {
    const home = tempHome();
    try {
      await leaderBlocks(2);
      const first = await startFollower({ ephemeral: false, home: home.home });
      await reach(heightOf(first), 3n);
      await first.stop();
      opened.splice(opened.indexOf(first), 1);
      await leaderBlocks(2);
      const again = await startFollower({ ephemeral: false, home: home.home });
      expect(again.devnet.latestHeight).toBeGreaterThanOrEqual(3n);
      await reach(heightOf(again), 5n);
      expect((await again.blocks.block(5n)).block_id).toEqual((await leader.backend.blocks.block(5n)).block_id);
    } finally {
      home.remove();
    }
  });

  it('stops at a block whose app hash differs from the leader’s, and says so', async () => {
    const corrupt = Buffer.alloc(32, 0xab).toString('base64');
    leader.rewrite = (method, params, result) =>
      method === 'block_results' && params.height === '3' ? { ...result, app_hash: corrupt } : result;
    await leader.backend.mempool.broadcastTxSync(bytes('x=1'));
    await leaderBlocks(4);
    const follower = await startFollower();
    await reach(() => (follower.devnet.follower!.haltReason === undefined ? 0n : 1n), 1n);
    const ours = Buffer.from((await leader.backend.blocks.blockResults(3n)).app_hash as string, 'base64').toString('hex').toUpperCase();
    expect(follower.devnet.follower!.haltReason).toBe(`block 3 diverges from the leader: app hash ${ours} here, ${'AB'.repeat(32)} on the leader`);
    expect(follower.devnet.latestHeight).toBe(2n);
    expect(await sync(follower)).toMatchObject({ catching_up: true });
    expect(await errorOf(follower.info.health())).toMatch(/^not following the leader any more: block 3 diverges/);
  });

  it('stops at a block that does not hash to the leader’s block id', async () => {
    leader.rewrite = (method, params, result) =>
      method === 'block' && params.height === '2' ? { ...result, block_id: { ...(result.block_id as object), hash: '00'.repeat(32) } } : result;
    await leaderBlocks(2);
    const follower = await startFollower();
    await reach(() => (follower.devnet.follower!.haltReason === undefined ? 0n : 1n), 1n);
    expect(follower.devnet.follower!.haltReason).toMatch(/^block 2 diverges from the leader: block hash [0-9A-F]{64} here, 0{64} on the leader$/);
  });

  it('refuses to start when the leader runs the EVM and it does not', async () => {
    await leader.stop();
    leader = await startLeader({ evm: {} });
    await expect(DevnetNode.open(config({ follow: leader.url }), new EventBus())).rejects.toThrow(
      `[devnet] follow = "${leader.url}": the leader runs the EVM, this gateway does not`,
    );
  });

  it('refuses to start when the leader cannot be reached', async () => {
    await expect(DevnetNode.open(config({ follow: 'http://127.0.0.1:1' }), new EventBus())).rejects.toThrow(
      /^\[devnet\] follow = "http:\/\/127\.0\.0\.1:1": cannot read the leader's genesis and status: .*ECONNREFUSED/,
    );
  });
});
