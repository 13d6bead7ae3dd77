/**
 * The backend is down for ten seconds while clients broadcast through a gateway in upstream mode whose
 * queue is on Redis: every tx the gateway accepted (broadcast_tx_async, broadcast_tx_sync,
 * eth_sendRawTransaction of one sender's consecutive nonces) is in a block once the backend is back,
 * and none is in a block twice.
 */
import { evmRpcFlags } from '../support/backends';
import { startUpstreamGateway, type UpstreamGateway } from '../support/upstream';
import { dropKeys, evmCall, evmTransfers, freshPrefix, kvTx, latestHeight, metric, nodeCall, queueFlags, startDevnet, waitForInclusion, type Devnet } from './queue-support';

jest.setTimeout(90_000);

describe('a backend outage of ten seconds', () => {
  const prefix = freshPrefix();
  let devnet: Devnet;
  let gw: UpstreamGateway;

  beforeAll(async () => {
    devnet = await startDevnet();
    gw = await startUpstreamGateway([{ name: 'devnet', url: devnet.nodeProxy.url }], {
      evm: [{ name: 'devnet', url: devnet.evmProxy.url }],
      flags: {
        ...evmRpcFlags('eth,net,web3'),
        ...queueFlags(prefix),
        'instrumentation.prometheus': 'true',
        'instrumentation.prometheus_listen_addr': '127.0.0.1:0',
      },
    });
  });

  afterAll(async () => {
    await gw?.close();
    await devnet?.close();
    await dropKeys(prefix);
  });

  it('loses no accepted tx and delivers none twice', async () => {
    const from = (await latestHeight(devnet.gw.url)) + 1;
    const evmTxs = await evmTransfers(devnet.gw.evmHttpUrl!, 5);
    await devnet.down();
    const downAt = Date.now();

    const kv = Array.from({ length: 10 }, (_, i) => kvTx(`outage-${prefix}-${i}`));
    const asyncAnswers = await Promise.all(kv.map((tx) => nodeCall(gw.url, 'broadcast_tx_async', { tx: tx.base64 })));
    expect(asyncAnswers.map((a) => a.result)).toEqual(kv.map((tx) => ({ code: 0, data: '', log: '', codespace: '', hash: tx.hash })));

    // eth_sendRawTransaction answers the hash once [queue] check_timeout passes without the node's answer.
    const evmHashes = [];
    for (const tx of evmTxs) evmHashes.push(await evmCall(gw.evmHttpUrl!, 'eth_sendRawTransaction', [tx.raw]));
    expect(evmHashes).toEqual(evmTxs.map((tx) => tx.hash));

    // broadcast_tx_sync cannot say the check: a clear error, and the tx stays queued.
    const syncTx = kvTx(`outage-${prefix}-sync`);
    const sync = await nodeCall(gw.url, 'broadcast_tx_sync', { tx: syncTx.base64 });
    expect(sync.error).toEqual({
      code: -32603,
      message: 'Internal error',
      data: `transaction ${syncTx.hash} is queued but the node has not checked it yet (the backend may be unavailable); the gateway keeps delivering it, and sending it again is safe`,
    });

    // Reads fail meanwhile (no healthy upstream); the queue retries.
    expect((await nodeCall(gw.url, 'status', {})).error).toBeDefined();
    expect(await metric(gw.metricsUrl!, 'rpcgw_queue_retries_total')).toBeGreaterThan(0);

    await new Promise((r) => setTimeout(r, Math.max(0, 10_000 - (Date.now() - downAt))));
    await devnet.up();

    const hashes = [...kv.map((tx) => tx.hash), syncTx.hash, ...evmTxs.map((tx) => tx.hash)];
    const seen = await waitForInclusion(devnet.gw.url, from, hashes);
    for (const hash of hashes) expect([hash, seen.get(hash)]).toEqual([hash, 1]);
    // Nothing else was put in those blocks: no tx twice under another guise.
    const kvAndEvm = [...seen.entries()].filter(([h]) => !h.startsWith('0x')).reduce((n, [, c]) => n + c, 0);
    expect(kvAndEvm).toBe(hashes.length);

    // The receipts are there, through the gateway, in nonce order.
    const receipts = await Promise.all(evmTxs.map((tx) => evmCall(gw.evmHttpUrl!, 'eth_getTransactionReceipt', [tx.hash])));
    expect(receipts.map((r) => r.status)).toEqual(evmTxs.map(() => '0x1'));
    expect(await metric(gw.metricsUrl!, 'rpcgw_queue_jobs_total', { outcome: 'delivered' })).toBe(hashes.length);
    expect(await metric(gw.metricsUrl!, 'rpcgw_queue_jobs', { state: 'waiting' })).toBe(0);
  });
});
