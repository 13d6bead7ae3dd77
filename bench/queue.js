'use strict';
/**
 * The broadcast queue against the embedded devnet.
 *
 * Enqueue throughput: unique kvstore txs as fast as BENCH_CONNECTIONS connections (default 32) send
 * them, by broadcast_tx_async (answered once the tx is queued; the gateway's workers deliver meanwhile,
 * on the same cores) and by broadcast_tx_sync (answered once a worker delivered it and the devnet
 * checked it: the queue's round trip), with the BullMQ driver (Redis at REDIS_URL, default
 * redis://127.0.0.1:6379, under a fresh key prefix removed afterwards), with it and no worker in the
 * gateway (`[queue] workers = false`: what a replica that only queues takes), and with the in-memory
 * driver as the reference. Each case on a fresh gateway. Prints requests/s, p50/p99 and the gateway's
 * CPU per request.
 *
 * Enqueue-to-inclusion latency with the BullMQ driver: BENCH_TXS txs (default 300) sent by
 * broadcast_tx_async at BENCH_RATE per second (default 50), each timed from the moment it is sent to
 * the moment its Tx event arrives on a WebSocket subscription to the same gateway; with blocks every
 * 1 s (the default) and every 200 ms. Prints p50/p99/max and that every tx arrived once. Also the
 * queue's own enqueue-to-delivery time (rpcgw_queue_job_duration_seconds) over that run.
 */
const { createHash, randomUUID } = require('node:crypto');
const WebSocket = require('ws');
const { Redis } = require('ioredis');
const { freePort, startGateway, measureCase, table } = require('./lib');

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const TXS = Number(process.env.BENCH_TXS ?? 300);
const RATE = Number(process.env.BENCH_RATE ?? 50);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const RUN = randomUUID().slice(0, 8);
const now = () => performance.timeOrigin + performance.now();

/** A gateway on the devnet with the queue in Redis (under `prefix`) or in memory (no prefix). */
async function gateway(prefix, extra = []) {
  const metricsPort = await freePort();
  const flags = [
    '--set', 'devnet.mempool_size=1000000',
    '--set', 'instrumentation.prometheus=true',
    '--set', `instrumentation.prometheus_listen_addr=127.0.0.1:${metricsPort}`,
    '--set', 'log.level=warn',
    ...(prefix ? ['--set', `queue.redis_url=${REDIS_URL}`, '--set', `queue.redis_key_prefix=${prefix}`] : []),
    ...extra,
  ];
  const gw = await startGateway(flags);
  return { ...gw, metricsUrl: `http://127.0.0.1:${metricsPort}` };
}

async function dropKeys(prefix) {
  const redis = new Redis(REDIS_URL);
  try {
    for (;;) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length === 0) break;
      await redis.del(...keys);
    }
  } finally {
    redis.quit();
  }
}

/** Request n's body: a kvstore tx no other request of this run sends. */
const txBody = (method, tag) => (n) => {
  const tx = Buffer.from(`bench-${RUN}-${tag}-${n}=v`).toString('base64');
  return JSON.stringify({ jsonrpc: '2.0', id: n, method, params: { tx } });
};

/** Each case on a gateway of its own, so that no case's backlog is delivered during the next. */
async function throughput() {
  const cases = [
    { name: 'broadcast_tx_async, in memory', driver: 'memory', method: 'broadcast_tx_async' },
    { name: 'broadcast_tx_sync, in memory', driver: 'memory', method: 'broadcast_tx_sync' },
    { name: 'broadcast_tx_async, BullMQ', driver: 'bullmq', method: 'broadcast_tx_async' },
    { name: 'broadcast_tx_async, BullMQ, workers elsewhere', driver: 'bullmq', method: 'broadcast_tx_async', extra: ['--set', 'queue.workers=false'] },
    { name: 'broadcast_tx_sync, BullMQ', driver: 'bullmq', method: 'broadcast_tx_sync' },
  ];
  const rows = [];
  for (const [i, c] of cases.entries()) {
    const prefix = c.driver === 'bullmq' ? `rpcgw-bench:${RUN}:${i}` : undefined;
    const gw = await gateway(prefix, c.extra);
    try {
      rows.push(await measureCase(c.name, gw.pid, { url: gw.url, bodyAt: txBody(c.method, i), connections: CONNECTIONS }, DURATION));
    } finally {
      await gw.stop();
      if (prefix) await dropKeys(prefix);
    }
  }
  return rows;
}

/** Sends TXS txs at RATE/s and times each until its Tx event; resolves the latencies (ms). */
async function inclusion(blockTime) {
  const prefix = `rpcgw-bench:${RUN}:incl${blockTime}`;
  const gw = await gateway(prefix, ['--set', `devnet.block_time=${blockTime}`]);
  try {
    const sentAt = new Map();
    const seen = new Map();
    const ws = new WebSocket(gw.url.replace(/^http/, 'ws') + '/websocket');
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const subscribed = new Promise((resolve) => ws.once('message', resolve));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 'sub', method: 'subscribe', params: { query: "tm.event='Tx'" } }));
    await subscribed;
    ws.on('message', (data) => {
      const at = now();
      const msg = JSON.parse(data.toString());
      const hash = msg.result?.events?.['tx.hash']?.[0];
      if (hash && sentAt.has(hash)) seen.set(hash, [...(seen.get(hash) ?? []), at]);
    });
    const before = await histogram(gw.metricsUrl);
    const start = now();
    const sends = [];
    for (let i = 0; i < TXS; i++) {
      const wait = start + (i * 1000) / RATE - now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const bytes = Buffer.from(`incl-${RUN}-${blockTime}-${i}=v`);
      const hash = createHash('sha256').update(bytes).digest('hex').toUpperCase();
      sentAt.set(hash, now());
      sends.push(
        fetch(gw.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'broadcast_tx_async', params: { tx: bytes.toString('base64') } }) }).then(async (res) => {
          const body = await res.json();
          if (body.error) throw new Error(`broadcast_tx_async: ${JSON.stringify(body.error)}`);
        }),
      );
    }
    await Promise.all(sends);
    const deadline = now() + 30_000;
    while (seen.size < TXS && now() < deadline) await new Promise((r) => setTimeout(r, 50));
    ws.close();
    const after = await histogram(gw.metricsUrl);
    const latencies = [...sentAt].filter(([h]) => seen.has(h)).map(([h, t]) => seen.get(h)[0] - t).sort((a, b) => a - b);
    const twice = [...seen.values()].filter((times) => times.length > 1).length;
    const q = (p) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]);
    const queued = after.count - before.count;
    return {
      'block time': blockTime,
      txs: `${TXS} at ${RATE}/s`,
      'in a block': `${seen.size}/${TXS}`,
      twice,
      'p50 ms': q(0.5),
      'p99 ms': q(0.99),
      'max ms': Math.round(latencies[latencies.length - 1]),
      'queue: enqueue→delivery mean ms': queued > 0 ? ((1000 * (after.sum - before.sum)) / queued).toFixed(1) : '-',
    };
  } finally {
    await gw.stop();
    await dropKeys(prefix);
  }
}

/** rpcgw_queue_job_duration_seconds's sum and count. */
async function histogram(metricsUrl) {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const read = (name) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { sum: read('rpcgw_queue_job_duration_seconds_sum'), count: read('rpcgw_queue_job_duration_seconds_count') };
}

async function main() {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  const reachable = await redis.connect().then(() => redis.ping()).then(() => true, () => false);
  redis.disconnect();
  if (!reachable) {
    console.log(`skipped: no Redis at ${REDIS_URL} (set REDIS_URL)`);
    return;
  }
  console.log(`Enqueue throughput (${CONNECTIONS} connections, ${DURATION} s a case, unique txs):`);
  table(await throughput());
  console.log('\nEnqueue-to-inclusion latency, BullMQ driver (send → Tx event on a subscription to the same gateway):');
  const rows = [];
  for (const blockTime of ['1s', '200ms']) rows.push(await inclusion(blockTime));
  table(rows);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
