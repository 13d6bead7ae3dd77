/**
 * What callers of a gateway in upstream mode get from the queue on Redis: a duplicate joins the job
 * under way (one delivery; every waiting caller gets the answer), a tx sent again after its delivery is
 * answered by the node as it answers a duplicate, a CheckTx refusal reaches its caller as the node gives
 * it and is not retried, a malformed tx is refused at once and never queued, broadcast_tx_commit waits
 * for the block through the upstream's events, and a tx whose attempts all fail is in the failed set.
 */
import { Wallet } from 'ethers';
import { evmRpcFlags } from '../support/backends';
import { startUpstreamGateway, type UpstreamGateway } from '../support/upstream';
import { dropKeys, evmCall, evmTransfers, freshPrefix, kvTx, latestHeight, metric, nodeCall, scrape, queueFlags, startDevnet, until, waitForInclusion, type Devnet } from './queue-support';

jest.setTimeout(90_000);

const OPERATOR = { ...evmRpcFlags('eth,net,web3,gateway'), 'rpc.unsafe': 'true', 'plugins.load': 'plugins/gateway' };
const METRICS = { 'instrumentation.prometheus': 'true', 'instrumentation.prometheus_listen_addr': '127.0.0.1:0' };

describe('the queue seen by its callers', () => {
  const prefix = freshPrefix();
  let devnet: Devnet;
  let gw: UpstreamGateway;

  /** How many broadcasts of each kind the devnet was sent. */
  const sentToNode = async () => {
    const m = await scrape(devnet.gw.metricsUrl!);
    const requests = (surface: string, method: string, outcome: string) => m.value('rpcgw_requests_total', { interface: surface, transport: 'jsonrpc', method, outcome }) ?? 0;
    return { sync: requests('node', 'broadcast_tx_sync', 'ok'), evm: requests('evm', 'eth_sendRawTransaction', 'ok'), evmRefused: requests('evm', 'eth_sendRawTransaction', '-32000') };
  };
  /** The gateway's finished jobs by outcome. */
  const jobs = async () => {
    const m = await scrape(gw.metricsUrl!);
    return Object.fromEntries(['delivered', 'rejected', 'failed', 'deduplicated'].map((outcome) => [outcome, m.value('rpcgw_queue_jobs_total', { outcome }) ?? 0]));
  };

  beforeAll(async () => {
    devnet = await startDevnet();
    gw = await startUpstreamGateway([{ name: 'devnet', url: devnet.nodeProxy.url }], {
      evm: [{ name: 'devnet', url: devnet.evmProxy.url }],
      flags: { ...OPERATOR, ...METRICS, ...queueFlags(prefix, { 'queue.check_timeout': '5s' }) },
    });
  });

  afterAll(async () => {
    await gw?.close();
    await devnet?.close();
    await dropKeys(prefix);
  });

  it('joins duplicates into one delivery, and every waiting caller gets the answer', async () => {
    const tx = kvTx(`dup-${prefix}`);
    const from = (await latestHeight(devnet.gw.url)) + 1;
    const before = await sentToNode();
    await devnet.down();
    const waiting = [
      nodeCall(gw.url, 'broadcast_tx_sync', { tx: tx.base64 }),
      nodeCall(gw.url, 'broadcast_tx_sync', { tx: tx.base64 }),
    ];
    const quick = await Promise.all([1, 2, 3].map(() => nodeCall(gw.url, 'broadcast_tx_async', { tx: tx.base64 })));
    expect(quick.map((a) => a.result?.hash)).toEqual([tx.hash, tx.hash, tx.hash]);
    await new Promise((r) => setTimeout(r, 300));
    await devnet.up();
    const answers = await Promise.all(waiting);
    // Whole answers compared: an error instead of a result shows in the failure.
    expect(answers).toEqual([0, 1].map(() => expect.objectContaining({ result: { code: 0, data: '', log: '', codespace: '', hash: tx.hash } })));
    expect((await sentToNode()).sync - before.sync).toBe(1);
    expect((await waitForInclusion(devnet.gw.url, from, [tx.hash])).get(tx.hash)).toBe(1);

    // Sent again once delivered: the node is asked, and answers as CometBFT answers a tx in its cache.
    expect((await nodeCall(gw.url, 'broadcast_tx_sync', { tx: tx.base64 })).error).toEqual({ code: -32603, message: 'Internal error', data: 'tx already exists in cache' });
    expect((await nodeCall(gw.url, 'broadcast_tx_commit', { tx: tx.base64 })).error).toEqual({
      code: -32603,
      message: 'Internal error',
      data: 'error on broadcastTxCommit: tx already exists in cache',
    });
  });

  it('tells a CheckTx refusal to its caller as the node gives it, and does not retry it', async () => {
    const bad = Buffer.from(`notkv-${prefix.replace(/\W/g, '')}`).toString('base64');
    const direct = await nodeCall(devnet.gw.url, 'check_tx', { tx: bad });
    expect(direct.result.code).toBe(2);
    const before = await sentToNode();
    const rejectedBefore = (await jobs()).rejected;
    const sync = await nodeCall(gw.url, 'broadcast_tx_sync', { tx: bad });
    expect(sync.result).toMatchObject({ code: 2, log: direct.result.log, codespace: direct.result.codespace });
    const commit = await nodeCall(gw.url, 'broadcast_tx_commit', { tx: bad });
    expect(commit.result).toMatchObject({ check_tx: { code: 2, log: direct.result.log }, tx_result: { code: 0 }, height: '0' });
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await sentToNode()).sync - before.sync).toBe(2);
    expect((await jobs()).rejected - rejectedBefore).toBe(2);
    expect((await evmCall(gw.evmHttpUrl!, 'gateway_queue', [])).failed).toEqual([]);
  });

  it('tells an EVM refusal as the node gives it, and does not retry it', async () => {
    // An account with nothing: insufficient funds, word for word as the devnet says it.
    const [broke] = await evmTransfers(devnet.gw.evmHttpUrl!, 1, Wallet.createRandom().privateKey);
    const before = await sentToNode();
    const viaQueue = await evmCall(gw.evmHttpUrl!, 'eth_sendRawTransaction', [broke.raw]).catch((err) => err.rpc);
    expect(viaQueue).toEqual({ code: -32000, message: expect.stringMatching(/^insufficient funds/) });
    await new Promise((r) => setTimeout(r, 1_000));
    const direct = await evmCall(devnet.gw.evmHttpUrl!, 'eth_sendRawTransaction', [broke.raw]).catch((err) => err.rpc);
    expect(viaQueue).toEqual(direct);
    // Once through the queue (not retried), once directly.
    expect((await sentToNode()).evmRefused - before.evmRefused).toBe(2);

    // A tx sent again after it was delivered: the node's own answer to a duplicate.
    const [sent] = await evmTransfers(devnet.gw.evmHttpUrl!, 1);
    expect(await evmCall(gw.evmHttpUrl!, 'eth_sendRawTransaction', [sent.raw])).toBe(sent.hash);
    const again = await evmCall(gw.evmHttpUrl!, 'eth_sendRawTransaction', [sent.raw]).catch((err) => err.rpc);
    const againDirect = await evmCall(devnet.gw.evmHttpUrl!, 'eth_sendRawTransaction', [sent.raw]).catch((err) => err.rpc);
    expect(again).toEqual(againDirect);
  });

  it('refuses a malformed tx at once with the node’s error, and queues nothing', async () => {
    const queuedBefore = await jobs();
    const badBase64 = await nodeCall(gw.url, 'broadcast_tx_sync', { tx: '!!!' });
    expect(badBase64.error).toEqual({ code: -32602, message: 'Invalid params', data: 'error converting json params to arguments: illegal base64 data at input byte 0' });
    const undecodable = await evmCall(gw.evmHttpUrl!, 'eth_sendRawTransaction', ['0x01']).catch((err) => err.rpc);
    const direct = await evmCall(devnet.gw.evmHttpUrl!, 'eth_sendRawTransaction', ['0x01']).catch((err) => err.rpc);
    expect(undecodable).toEqual(direct);
    expect(undecodable.code).toBe(-32000);
    expect(await jobs()).toEqual(queuedBefore);
  });

  it('broadcast_tx_commit answers with the block, seen through the upstream’s events', async () => {
    const tx = kvTx(`commit-${prefix}`);
    const commit = await nodeCall(gw.url, 'broadcast_tx_commit', { tx: tx.base64 });
    expect(commit.result).toMatchObject({ check_tx: { code: 0 }, tx_result: { code: 0 }, hash: tx.hash });
    expect(Number(commit.result.height)).toBeGreaterThan(0);
    const mined = await nodeCall(devnet.gw.url, 'tx', { hash: Buffer.from(tx.hash, 'hex').toString('base64') });
    expect(mined.result.height).toBe(commit.result.height);
    expect(await metric(gw.metricsUrl!, 'rpcgw_queue_job_duration_seconds_count')).toBeGreaterThan(0);
  });

  it('puts a tx whose every attempt failed in the failed set, shown by gateway_queue', async () => {
    const failing = await startUpstreamGateway([{ name: 'devnet', url: devnet.nodeProxy.url }], {
      flags: { ...OPERATOR, ...queueFlags(prefix, { 'queue.redis_key_prefix': `${prefix}:f`, 'queue.max_attempts': '2' }) },
    });
    try {
      await devnet.down();
      const tx = kvTx(`failing-${prefix}`);
      expect((await nodeCall(failing.url, 'broadcast_tx_async', { tx: tx.base64 })).result.hash).toBe(tx.hash);
      let view: any;
      await until(async () => (view = await evmCall(failing.evmHttpUrl!, 'gateway_queue', [])).failed.length > 0, 10_000, 'the failed job');
      expect(view).toMatchObject({ driver: 'redis', durable: true, up: true, workers: true });
      expect(view.lanes).toEqual([
        { lane: 'node', waiting: 0, active: 0, delayed: 0, failed: 1 },
        { lane: 'evm', waiting: 0, active: 0, delayed: 0, failed: 0 },
      ]);
      expect(view.failed).toEqual([
        {
          lane: 'node',
          hash: tx.hash,
          reason: expect.stringMatching(/^(no healthy upstream node available|upstream request failed)/),
          attempts: 2,
          queued_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          failed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        },
      ]);
      // Sent again, it leaves the failed set and is delivered once the node is back.
      await devnet.up();
      const from = (await latestHeight(devnet.gw.url)) + 1;
      await until(async () => (await nodeCall(failing.url, 'status', {})).result !== undefined, 10_000, 'a healthy upstream');
      expect((await nodeCall(failing.url, 'broadcast_tx_sync', { tx: tx.base64 })).result).toMatchObject({ code: 0, hash: tx.hash });
      expect((await waitForInclusion(devnet.gw.url, from, [tx.hash])).get(tx.hash)).toBe(1);
      expect((await evmCall(failing.evmHttpUrl!, 'gateway_queue', [])).failed).toEqual([]);
    } finally {
      await devnet.up().catch(() => undefined);
      await failing.close();
    }
  });
});
