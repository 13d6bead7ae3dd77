/**
 * The real CometBFT client (CosmJS Comet38Client) drives the gateway and decodes every answer, over the
 * embedded devnet and in upstream mode in front of one.
 */
import { Comet38Client } from '@cosmjs/tendermint-rpc';
import { newBlockHeights } from '../support/comet';
import { BACKENDS, startGatewayOver } from '../support/backends';
import { waitForHeight, type TestGateway } from '../support/gateway';

const enc = (s: string) => new TextEncoder().encode(s);

describe.each(BACKENDS)('over the %s backend', (kind) => {
  let gw: TestGateway;
  let client: Comet38Client;

  beforeAll(async () => {
    gw = await startGatewayOver(kind);
    await waitForHeight(gw.url, 2);
    client = await Comet38Client.connect(gw.url);
  });

  afterAll(async () => {
    client?.disconnect();
    await gw?.close();
  });

  it('status, block, blockResults, validatorsAll', async () => {
    const status = await client.status();
    expect(status.nodeInfo.network).toBe('rpcgw-devnet-1');
    expect(status.syncInfo.latestBlockHeight).toBeGreaterThanOrEqual(2);
    const block = await client.block(2);
    expect(block.block.header.height).toBe(2);
    expect(block.blockId.hash).toHaveLength(32);
    expect(block.block.lastCommit?.signatures[0].signature).toHaveLength(64);
    const results = await client.blockResults(2);
    expect(results.height).toBe(2);
    const validators = await client.validatorsAll(2);
    expect(validators.total).toBe(1);
    expect(validators.validators[0].pubkey?.algorithm).toBe('ed25519');
  });

  it('broadcastTxSync/Commit, abciQuery, txSearch, blockSearch', async () => {
    const sync = await client.broadcastTxSync({ tx: enc(`cosmjs-sync-${Date.now()}=1`) });
    expect(sync.code).toBe(0);
    const commit = await client.broadcastTxCommit({ tx: enc('cosmjs=works') });
    expect(commit.checkTx.code).toBe(0);
    expect(commit.txResult?.code).toBe(0);
    expect(commit.height).toBeGreaterThan(0);

    const query = await client.abciQuery({ path: '/store', data: enc('cosmjs') });
    expect(new TextDecoder().decode(query.value)).toBe('works');

    const found = await client.txSearch({ query: `tx.height=${commit.height}` });
    expect(found.totalCount).toBeGreaterThanOrEqual(1);
    expect(found.txs.some((t) => Buffer.from(t.hash).equals(Buffer.from(commit.hash)))).toBe(true);

    const blocks = await client.blockSearch({ query: `block.height=${commit.height}` });
    expect(blocks.totalCount).toBe(1);
    expect(blocks.blocks[0].block.header.height).toBe(commit.height);
  });

  it('abciQuery reads an update as soon as its tx is committed or found', async () => {
    const key = `cosmjs-update-${Date.now()}`;
    const read = async () => new TextDecoder().decode((await client.abciQuery({ path: '/store', data: enc(key) })).value);
    await client.broadcastTxCommit({ tx: enc(`${key}=old`) });
    expect(await read()).toBe('old');
    await client.broadcastTxCommit({ tx: enc(`${key}=new`) });
    expect(await read()).toBe('new');
    const { hash } = await client.broadcastTxSync({ tx: enc(`${key}=newer`) });
    for (;;) {
      const found = await client.tx({ hash }).catch(() => undefined);
      if (found) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await read()).toBe('newer');
  });

  it('subscribes to NewBlock over WebSocket', async () => {
    const heights = await newBlockHeights(gw.url, 2);
    expect(heights[1]).toBe(heights[0] + 1);
  });
});
