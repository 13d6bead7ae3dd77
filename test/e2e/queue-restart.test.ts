/**
 * A gateway process in upstream mode is SIGKILLed with broadcasts still queued (its backend down): the
 * jobs are in Redis, and a gateway started again on the same queue delivers every one, none twice.
 */
import { Queue } from 'bullmq';
import { evmRpcFlags } from '../support/backends';
import { dropKeys, evmCall, evmTransfers, freshPrefix, homeWith, kvTx, latestHeight, metric, nodeCall, queueFlags, REDIS_URL, removeHome, startDevnet, startProcess, until, upstreamGatewayToml, waitForInclusion, type Devnet, type GatewayProc } from './queue-support';

jest.setTimeout(120_000);

describe('a gateway killed with jobs queued', () => {
  const prefix = freshPrefix();
  let devnet: Devnet;
  let home: string;
  const procs: GatewayProc[] = [];
  const flags = () => ({ ...queueFlags(prefix), ...evmRpcFlags('eth,net,web3') });

  beforeAll(async () => {
    devnet = await startDevnet();
    home = homeWith(upstreamGatewayToml(devnet));
  });

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill()));
    await devnet?.close();
    if (home) removeHome(home);
    await dropKeys(prefix);
  });

  it('delivers them all after a restart, none twice', async () => {
    const first = await startProcess('start', home, flags());
    procs.push(first);
    const from = (await latestHeight(devnet.gw.url)) + 1;
    const evmTxs = await evmTransfers(devnet.gw.evmHttpUrl!, 3);
    await devnet.down();

    const kv = Array.from({ length: 8 }, (_, i) => kvTx(`restart-${prefix}-${i}`));
    for (const tx of kv) expect((await nodeCall(first.url!, 'broadcast_tx_async', { tx: tx.base64 })).result).toMatchObject({ code: 0, hash: tx.hash });
    for (const tx of evmTxs) expect(await evmCall(first.evmUrl!, 'eth_sendRawTransaction', [tx.raw])).toBe(tx.hash);
    // Attempts have failed and been put off: the jobs wait in Redis for their next attempt.
    await until(async () => (await metric(first.metricsUrl!, 'rpcgw_queue_retries_total')) >= kv.length, 10_000, 'retries');

    await first.kill();
    const queues = ['node', 'evm'].map((lane) => new Queue(lane, { connection: { url: REDIS_URL }, prefix }));
    try {
      const counts = await Promise.all(queues.map((q) => q.getJobCounts('waiting', 'delayed', 'active', 'completed', 'failed')));
      expect(counts.map((c) => c.waiting + c.delayed + c.active)).toEqual([kv.length, evmTxs.length]);
      expect(counts.map((c) => c.completed + c.failed)).toEqual([0, 0]);
    } finally {
      await Promise.all(queues.map((q) => q.close()));
    }

    await devnet.up();
    const second = await startProcess('start', home, flags());
    procs.push(second);
    const hashes = [...kv.map((tx) => tx.hash), ...evmTxs.map((tx) => tx.hash)];
    const seen = await waitForInclusion(devnet.gw.url, from, hashes);
    for (const hash of hashes) expect([hash, seen.get(hash)]).toEqual([hash, 1]);
    expect(await metric(second.metricsUrl!, 'rpcgw_queue_jobs_total', { outcome: 'delivered' })).toBe(hashes.length);
    // A graceful stop ends with status 0.
    expect(await second.stop()).toBe(0);
  });
});
