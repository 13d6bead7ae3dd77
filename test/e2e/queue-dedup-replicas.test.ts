/**
 * The same tx sent at once through two gateway replicas (upstream mode, one Redis queue, both
 * delivering), many times: the node is sent each tx once, and every caller gets the answer of that one
 * delivery (the node's check for broadcast_tx_sync, the hash for eth_sendRawTransaction), never the
 * node's refusal of a second delivery (`tx already exists in cache`, `already known`).
 */
import { evmRpcFlags } from '../support/backends';
import { startUpstreamGateway, type UpstreamGateway } from '../support/upstream';
import { dropKeys, evmCall, evmTransfers, freshPrefix, kvTx, latestHeight, nodeCall, queueFlags, scrape, startDevnet, waitForInclusion, type Devnet } from './queue-support';

jest.setTimeout(120_000);

describe('one tx sent at once through two replicas', () => {
  const prefix = freshPrefix();
  let devnet: Devnet;
  let replicas: UpstreamGateway[];

  /** What the devnet was sent: broadcasts it took, and those it refused (a duplicate is refused). */
  const sentToNode = async () => {
    const m = await scrape(devnet.gw.metricsUrl!);
    const requests = (surface: string, method: string, outcome: string) => m.value('rpcgw_requests_total', { interface: surface, transport: 'jsonrpc', method, outcome }) ?? 0;
    return {
      sync: requests('node', 'broadcast_tx_sync', 'ok'),
      syncRefused: requests('node', 'broadcast_tx_sync', '-32603'),
      evm: requests('evm', 'eth_sendRawTransaction', 'ok'),
      evmRefused: requests('evm', 'eth_sendRawTransaction', '-32000'),
    };
  };

  beforeAll(async () => {
    devnet = await startDevnet();
    const start = () =>
      startUpstreamGateway([{ name: 'devnet', url: devnet.nodeProxy.url }], {
        evm: [{ name: 'devnet', url: devnet.evmProxy.url }],
        flags: { ...evmRpcFlags('eth,net,web3'), ...queueFlags(prefix, { 'queue.check_timeout': '5s' }) },
      });
    replicas = await Promise.all([start(), start()]);
  });

  afterAll(async () => {
    await Promise.all((replicas ?? []).map((r) => r.close()));
    await devnet?.close();
    await dropKeys(prefix);
  });

  it('delivers each node tx once, and both callers get its check', async () => {
    const before = await sentToNode();
    const from = (await latestHeight(devnet.gw.url)) + 1;
    const txs = Array.from({ length: 40 }, (_, i) => kvTx(`twice-${prefix}-${i}`));
    // Ten at a time, each through both replicas at once.
    const answers: Awaited<ReturnType<typeof nodeCall>>[] = [];
    for (let i = 0; i < txs.length; i += 10) {
      const round = txs.slice(i, i + 10).flatMap((tx) => replicas.map((r) => nodeCall(r.url, 'broadcast_tx_sync', { tx: tx.base64 })));
      answers.push(...(await Promise.all(round)));
    }
    expect(answers.filter((a) => a.error !== undefined)).toEqual([]);
    expect(answers.map((a) => [a.result.code, a.result.hash])).toEqual(txs.flatMap((tx) => [[0, tx.hash], [0, tx.hash]]));
    const after = await sentToNode();
    expect([after.sync - before.sync, after.syncRefused - before.syncRefused]).toEqual([txs.length, 0]);
    const seen = await waitForInclusion(devnet.gw.url, from, txs.map((tx) => tx.hash));
    expect(txs.filter((tx) => seen.get(tx.hash) !== 1)).toEqual([]);
  });

  it('delivers each EVM tx once, and both callers get its hash', async () => {
    const before = await sentToNode();
    const txs = await evmTransfers(devnet.gw.evmHttpUrl!, 10);
    const answers = await Promise.all(txs.flatMap((tx) => replicas.map((r) => evmCall(r.evmHttpUrl!, 'eth_sendRawTransaction', [tx.raw]).catch((err: { rpc?: unknown }) => err.rpc))));
    expect(answers).toEqual(txs.flatMap((tx) => [tx.hash, tx.hash]));
    const after = await sentToNode();
    expect([after.evm - before.evm, after.evmRefused - before.evmRefused]).toEqual([txs.length, 0]);
  });
});
