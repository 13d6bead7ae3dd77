/**
 * Two gateway replicas (processes, upstream mode) and a separate `rpc-gateway worker` process on one
 * Redis queue. Every tx is sent through both replicas while the backend is down, some through one only;
 * once it is back, each tx reaches the node once (the devnet counts the broadcasts it was sent) and is
 * in a block once. Replica B only queues (`[queue] workers = false`): the worker and replica A deliver,
 * and the worker alone once A is stopped.
 */
import { evmRpcFlags } from '../support/backends';
import { dropKeys, evmCall, evmTransfers, freshPrefix, homeWith, kvTx, latestHeight, metric, nodeCall, queueFlags, removeHome, startDevnet, startProcess, upstreamGatewayToml, waitForInclusion, type Devnet, type GatewayProc } from './queue-support';

jest.setTimeout(120_000);

describe('two replicas and a worker on one queue', () => {
  const prefix = freshPrefix();
  let devnet: Devnet;
  let home: string;
  let a: GatewayProc;
  let b: GatewayProc;
  let worker: GatewayProc;

  beforeAll(async () => {
    devnet = await startDevnet();
    home = homeWith(upstreamGatewayToml(devnet));
    const flags = { ...queueFlags(prefix, { 'queue.check_timeout': '5s' }), ...evmRpcFlags('eth,net,web3,gateway'), 'rpc.unsafe': 'true', 'plugins.load': 'plugins/gateway' };
    [a, b, worker] = await Promise.all([
      startProcess('start', home, { ...flags, 'queue.concurrency': '1' }),
      startProcess('start', home, { ...flags, 'queue.workers': 'false' }),
      startProcess('worker', home, queueFlags(prefix)),
    ]);
  });

  afterAll(async () => {
    await Promise.all([a, b, worker].map((p) => p?.kill()));
    await devnet?.close();
    if (home) removeHome(home);
    await dropKeys(prefix);
  });

  it('delivers each tx once', async () => {
    const from = (await latestHeight(devnet.gw.url)) + 1;
    const sentBefore = await metric(devnet.gw.metricsUrl!, 'rpcgw_requests_total', { interface: 'node', transport: 'jsonrpc', method: 'broadcast_tx_sync', outcome: 'ok' });
    const evmBefore = await metric(devnet.gw.metricsUrl!, 'rpcgw_requests_total', { interface: 'evm', transport: 'jsonrpc', method: 'eth_sendRawTransaction', outcome: 'ok' });
    const evmTxs = await evmTransfers(devnet.gw.evmHttpUrl!, 2);
    await devnet.down();

    const both = Array.from({ length: 6 }, (_, i) => kvTx(`both-${prefix}-${i}`));
    const onlyA = Array.from({ length: 3 }, (_, i) => kvTx(`a-${prefix}-${i}`));
    const onlyB = Array.from({ length: 3 }, (_, i) => kvTx(`b-${prefix}-${i}`));
    const async = (gw: GatewayProc, tx: { base64: string }) => nodeCall(gw.url!, 'broadcast_tx_async', { tx: tx.base64 });
    const answers = await Promise.all([
      ...both.flatMap((tx) => [async(a, tx), async(b, tx)]),
      ...onlyA.map((tx) => async(a, tx)),
      ...onlyB.map((tx) => async(b, tx)),
    ]);
    expect(answers.every((x) => x.result?.code === 0)).toBe(true);
    // The same EVM tx through both replicas: one job.
    const evmAnswers = await Promise.all(evmTxs.flatMap((tx) => [a, b].map((gw) => evmCall(gw.evmUrl!, 'eth_sendRawTransaction', [tx.raw]))));
    expect(evmAnswers).toEqual(evmTxs.flatMap((tx) => [tx.hash, tx.hash]));

    // B only queues: the jobs wait in Redis, as its view shows.
    const view = await evmCall(b.evmUrl!, 'gateway_queue', []);
    expect(view).toMatchObject({ driver: 'redis', durable: true, up: true, workers: false });
    const queued = view.lanes.reduce((n: number, l: any) => n + l.waiting + l.delayed + l.active, 0);
    expect(queued).toBe(both.length + onlyA.length + onlyB.length + evmTxs.length);
    const deduplicated = (await metric(a.metricsUrl!, 'rpcgw_queue_jobs_total', { outcome: 'deduplicated' })) + (await metric(b.metricsUrl!, 'rpcgw_queue_jobs_total', { outcome: 'deduplicated' }));
    expect(deduplicated).toBe(both.length + evmTxs.length);

    await new Promise((r) => setTimeout(r, 2_000));
    await devnet.up();
    const kv = [...both, ...onlyA, ...onlyB];
    const hashes = [...kv.map((tx) => tx.hash), ...evmTxs.map((tx) => tx.hash)];
    const seen = await waitForInclusion(devnet.gw.url, from, hashes);
    for (const hash of hashes) expect([hash, seen.get(hash)]).toEqual([hash, 1]);

    // The node was sent each tx once.
    const sent = (await metric(devnet.gw.metricsUrl!, 'rpcgw_requests_total', { interface: 'node', transport: 'jsonrpc', method: 'broadcast_tx_sync', outcome: 'ok' })) - sentBefore;
    const evmSent = (await metric(devnet.gw.metricsUrl!, 'rpcgw_requests_total', { interface: 'evm', transport: 'jsonrpc', method: 'eth_sendRawTransaction', outcome: 'ok' })) - evmBefore;
    expect([sent, evmSent]).toEqual([kv.length, evmTxs.length]);
    const delivered = await Promise.all([a, b, worker].map((p) => metric(p.metricsUrl!, 'rpcgw_queue_jobs_total', { outcome: 'delivered' })));
    expect(delivered[0] + delivered[2]).toBe(hashes.length);
    expect(delivered[1]).toBe(0);

    // With A stopped (gracefully), the worker alone delivers what B queues.
    expect(await a.stop()).toBe(0);
    const last = kvTx(`last-${prefix}`);
    const lastFrom = await latestHeight(devnet.gw.url);
    expect((await nodeCall(b.url!, 'broadcast_tx_sync', { tx: last.base64 })).result).toMatchObject({ code: 0, hash: last.hash });
    expect((await waitForInclusion(devnet.gw.url, lastFrom, [last.hash])).get(last.hash)).toBe(1);
    expect(await metric(worker.metricsUrl!, 'rpcgw_queue_jobs_total', { outcome: 'delivered' })).toBe(delivered[2] + 1);
  });
});
