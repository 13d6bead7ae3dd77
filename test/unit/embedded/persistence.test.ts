import { existsSync, readFileSync } from 'fs';
import { join } from 'path';
import { txHash } from '../../../src/devnet/chain/hashing';
import { bytes, startDevnet, tempHome } from './harness';

type Obj = Record<string, any>;

describe('embedded devnet: persistence', () => {
  const dir = tempHome();
  afterAll(() => dir.remove());

  it('initialises the home as cometbft init does and resumes the chain after a restart', async () => {
    const first = await startDevnet({ ephemeral: false, home: dir.home });
    await first.backend.mempool.broadcastTxSync(bytes('saved=yes'));
    await first.nextBlock();
    await first.nextBlock();
    const before = {
      status: (await first.backend.info.status()) as Obj,
      block2: await first.backend.blocks.block(2n),
      validators: await first.backend.blocks.validators(),
      genesis: await first.backend.info.genesis(),
    };
    await first.stop();

    for (const file of ['config/genesis.json', 'config/priv_validator_key.json', 'config/node_key.json', 'data/priv_validator_state.json']) {
      expect(existsSync(join(dir.home, file))).toBe(true);
    }
    const genesisFile = JSON.parse(readFileSync(join(dir.home, 'config/genesis.json'), 'utf8'));
    expect(Object.keys(genesisFile)).toEqual(['genesis_time', 'chain_id', 'initial_height', 'consensus_params', 'validators', 'app_hash']);
    const keyFile = JSON.parse(readFileSync(join(dir.home, 'config/priv_validator_key.json'), 'utf8'));
    expect(keyFile.address).toBe(before.status.validator_info.address);

    const second = await startDevnet({ ephemeral: false, home: dir.home, chainId: 'ignored-once-initialised' });
    try {
      const after = (await second.backend.info.status()) as Obj;
      const latest = Number(before.status.sync_info.latest_block_height);
      // Starting produces the next block at once.
      expect(after.sync_info.latest_block_height).toBe(String(latest + 1));
      expect(after.node_info.id).toBe(before.status.node_info.id);
      expect(after.node_info.network).toBe(before.status.node_info.network);
      expect(after.validator_info).toEqual(before.status.validator_info);
      expect(await second.backend.blocks.block(2n)).toEqual(before.block2);
      expect(await second.backend.info.genesis()).toEqual(before.genesis);
      expect(await second.backend.blocks.validators(BigInt(latest + 1))).toEqual(before.validators);
      const next = ((await second.backend.blocks.block(BigInt(latest + 1))) as Obj).block;
      expect(next.header.last_block_id.hash).toBe(before.status.sync_info.latest_block_hash);
      expect(next.header.app_hash).toBe(before.status.sync_info.latest_app_hash);
      expect(next.last_commit.height).toBe(String(latest));
      const query = ((await second.backend.abci.abciQuery('', bytes('saved'), 0n, false)) as Obj).response;
      expect(Buffer.from(query.value, 'base64').toString()).toBe('yes');
      expect(((await second.backend.abci.abciInfo()) as Obj).response.data).toBe('{"size":1}');
      expect(((await second.backend.txs.tx(txHash(bytes('saved=yes')), false)) as Obj).height).toBe('2');
      const found = (await second.backend.txs.txSearch("app.key = 'saved'", false, undefined, undefined, '')) as Obj;
      expect(found.total_count).toBe('1');
    } finally {
      await second.stop();
    }
  });
});
