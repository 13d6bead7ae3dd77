'use strict';
/**
 * WebSocket fan-out: BENCH_CLIENTS (default 5,000) node-RPC WebSocket clients subscribed to
 * `tm.event='NewBlock'` on a gateway in upstream mode, which feeds them all from one upstream
 * subscription to an embedded-devnet gateway (block_time BENCH_BLOCK_TIME, default 300ms).
 *
 * For BENCH_BLOCKS blocks (default 20) each client's delivery latency is measured from the moment the
 * upstream published the block, as seen by one reference subscriber on the upstream itself, to the
 * moment the client got it; every timestamp is wall-clock time with sub-millisecond resolution taken
 * on this machine. The clients run in BENCH_WORKERS worker threads (default 4) and do next to nothing
 * per message (height and id are read from the raw frame), so that the load generator is not what is
 * measured. The same clients are first served by a bare `ws` broadcaster (one upstream socket, the
 * event's bytes with each client's id spliced in, nothing else): the floor of this machine.
 *
 * Prints p50/p99/max, delivered/expected (no losses, duplicates or foreign ids), CPU time per block
 * and RSS of both, the gateway's heap, and the subscriptions the gateway holds on the upstream (from
 * the upstream's metrics).
 */
const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');
const { spawn } = require('node:child_process');
const { readFileSync } = require('node:fs');
const WebSocket = require('ws');

const QUERY = "tm.event='NewBlock'";
const now = () => performance.timeOrigin + performance.now();

/** The block height of a NewBlock event frame: its first `"height":"…"` is the header's. */
function heightOf(buf) {
  const at = buf.indexOf('"height":"');
  if (at < 0) return undefined;
  return Number(buf.toString('latin1', at + 10, buf.indexOf(0x22, at + 10)));
}

/** The id an event frame carries: `{"jsonrpc":"2.0","id":<id>,`. */
function idOf(buf) {
  const at = buf.indexOf('"id":');
  return at < 0 ? undefined : Number(buf.toString('latin1', at + 5, buf.indexOf(0x2c, at)));
}

function subscribeMessage(id) {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'subscribe', params: { query: QUERY } });
}

// ---- client worker: opens its share of the clients, then records arrival times per height ----

async function clientWorker({ url, first, count, concurrency }) {
  const arrivals = Array.from({ length: count }, () => new Map());
  const anomalies = { duplicates: 0, foreignIds: 0, errors: 0, closed: 0 };
  const closeCodes = {};
  const sockets = [];

  const open = (i) =>
    new Promise((resolve, reject) => {
      const id = first + i;
      const ws = new WebSocket(url, { perMessageDeflate: false });
      let subscribed = false;
      ws.on('error', (err) => (subscribed ? anomalies.errors++ : reject(err)));
      ws.on('close', (code) => {
        if (!subscribed) return;
        anomalies.closed++;
        closeCodes[code] = (closeCodes[code] ?? 0) + 1;
      });
      ws.on('open', () => ws.send(subscribeMessage(id)));
      ws.on('message', (buf) => {
        const at = now();
        if (!subscribed) {
          const msg = JSON.parse(buf.toString());
          if (msg.id !== id || msg.error) return reject(new Error(`client ${id}: subscribe answered ${buf}`));
          subscribed = true;
          return resolve(ws);
        }
        const height = heightOf(buf);
        if (height === undefined) return void anomalies.errors++;
        if (idOf(buf) !== id) anomalies.foreignIds++;
        const seen = arrivals[i];
        if (seen.has(height)) anomalies.duplicates++;
        else seen.set(height, at);
      });
    });

  let next = 0;
  const opener = async () => {
    while (next < count) {
      const i = next++;
      sockets[i] = await open(i);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, opener));
  parentPort.postMessage({ type: 'ready' });

  parentPort.on('message', (msg) => {
    const times = msg.heights.map((h) => Float64Array.from(arrivals, (seen) => seen.get(h) ?? NaN));
    for (const ws of sockets) ws.terminate();
    parentPort.postMessage({ times, anomalies, closeCodes });
  });
}

// ---- the floor: a bare ws broadcaster of the upstream's events ----

const BARE_BROADCASTER = `
const WebSocket = require(process.env.RPCGW_WS);
const { WebSocketServer } = WebSocket;
const subscribers = [];
const wss = new WebSocketServer({ host: '127.0.0.1', port: Number(process.env.PORT), perMessageDeflate: false });
wss.on('connection', (ws) => ws.on('message', (m) => {
  const { id, params } = JSON.parse(m);
  subscribers.push({ ws, head: Buffer.from('{"jsonrpc":"2.0","id":' + JSON.stringify(id) + ',"result":{"query":' + JSON.stringify(params.query) + ',') });
  ws.send(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
}));
const upstream = new WebSocket(process.env.UPSTREAM_WS, { perMessageDeflate: false });
upstream.on('open', () => upstream.send(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'subscribe', params: { query: process.env.QUERY } })));
upstream.on('message', (buf) => {
  const at = buf.indexOf('"data":');
  if (at < 0) return;
  const tail = buf.subarray(at);
  for (const { ws, head } of subscribers) ws.send(Buffer.concat([head, tail], head.length + tail.length), { binary: false });
});
`;

async function startBareBroadcaster(upstreamWs) {
  const { freePort, waitFor, stopChild } = require('./lib');
  const port = await freePort();
  const child = spawn(process.execPath, ['-e', BARE_BROADCASTER], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, PORT: String(port), UPSTREAM_WS: upstreamWs, QUERY, RPCGW_WS: require.resolve('ws') },
  });
  const wsUrl = `ws://127.0.0.1:${port}`;
  await waitFor(
    () =>
      new Promise((resolve) => {
        const probe = new WebSocket(wsUrl);
        probe.once('open', () => resolve(true));
        probe.once('error', () => resolve(false));
        probe.once('open', () => probe.terminate());
      }),
  );
  return {
    wsUrl,
    pid: child.pid,
    stop: () => stopChild(child),
  };
}

/** User and system CPU time of a process, in clock ticks (10 ms). */
function cpuTimes(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { user: Number(fields[11]), sys: Number(fields[12]) };
}

function rssOf(pid) {
  return Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m)[1]) * 1024;
}

// ---- main: the upstream, the reference subscriber, each server under test, the figures ----

async function main() {
  const { startGateway, freePort, table } = require('./lib');
  const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 5000);
  const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 20);
  const WORKERS = Number(process.env.BENCH_WORKERS ?? 4);
  const BLOCK_TIME = process.env.BENCH_BLOCK_TIME ?? '300ms';

  const metricsFlags = (port) => ['--instrumentation.prometheus', 'true', '--set', `instrumentation.prometheus_listen_addr=127.0.0.1:${port}`];
  const scrape = async (port) => (await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()).split('\n');
  const sample = (lines, name, labels = '') => {
    const line = lines.find((l) => l.startsWith(name + (labels ? `{${labels}}` : ' ')));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
  };
  const sum = (lines, prefix) => lines.filter((l) => l.startsWith(prefix)).reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  const mib = (bytes) => (bytes / 2 ** 20).toFixed(1);
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  /**
   * Opens the clients on `wsUrl`, measures BLOCKS blocks, runs `probe` while the clients are still
   * subscribed, closes the clients: one table row and what `probe` found.
   */
  async function measure(name, wsUrl, pid, probe = async () => undefined) {
    await sleep(1000);
    const rssBefore = rssOf(pid);
    const t0 = Date.now();
    const perWorker = Math.ceil(CLIENTS / WORKERS);
    const workers = [];
    try {
      await Promise.all(
        Array.from({ length: WORKERS }, (_, w) => {
          const count = Math.min(perWorker, CLIENTS - w * perWorker);
          const worker = new Worker(__filename, { workerData: { url: wsUrl, first: 1 + w * perWorker, count, concurrency: 50 } });
          workers.push(worker);
          return new Promise((resolve, reject) => {
            worker.once('message', resolve);
            worker.once('error', reject);
          });
        }),
      );
      const subscribeSecs = (Date.now() - t0) / 1000;
      // Blocks published after every client subscribed (one block of margin) are the measured ones.
      const first = Math.max(0, ...published.keys()) + 2;
      const heights = Array.from({ length: BLOCKS }, (_, i) => first + i);
      const last = heights[heights.length - 1];
      while (!published.has(first - 1)) await sleep(10);
      const cpuBefore = cpuTimes(pid);
      while (!published.has(last)) await sleep(50);
      await sleep(1000); // stragglers
      const cpuAfter = cpuTimes(pid);
      const rssAfter = rssOf(pid);
      const probed = await probe();

      const reports = await Promise.all(
        workers.map(
          (worker) =>
            new Promise((resolve) => {
              worker.once('message', resolve);
              worker.postMessage({ heights });
            }),
        ),
      );
      const latencies = [];
      const anomalies = { duplicates: 0, foreignIds: 0, errors: 0, closed: 0 };
      const closeCodes = {};
      for (const r of reports) {
        r.times.forEach((times, b) => {
          const ref = published.get(heights[b]);
          for (const t of times) if (!Number.isNaN(t)) latencies.push(t - ref);
        });
        for (const k of Object.keys(anomalies)) anomalies[k] += r.anomalies[k];
        for (const [code, n] of Object.entries(r.closeCodes)) closeCodes[code] = (closeCodes[code] ?? 0) + n;
      }
      latencies.sort((a, b) => a - b);
      const at = (p) => latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)]?.toFixed(1) ?? 'n/a';
      const perBlock = (k) => ((cpuAfter[k] - cpuBefore[k]) * 10) / (BLOCKS + 1);
      return {
        ok: latencies.length === CLIENTS * BLOCKS && anomalies.duplicates === 0 && anomalies.foreignIds === 0,
        cpuPerBlock: perBlock('user') + perBlock('sys'),
        probed,
        row: {
          server: name,
          'subscribe s': subscribeSecs.toFixed(1),
          'p50 ms': at(50),
          'p99 ms': at(99),
          'max ms': latencies.length ? latencies[latencies.length - 1].toFixed(1) : 'n/a',
          'delivered/expected': `${latencies.length}/${CLIENTS * BLOCKS}`,
          'dup/foreign id': `${anomalies.duplicates}/${anomalies.foreignIds}`,
          'errors/closed': `${anomalies.errors}/${anomalies.closed}${anomalies.closed ? ` ${JSON.stringify(closeCodes)}` : ''}`,
          'CPU ms/block user+sys': `${perBlock('user').toFixed(0)}+${perBlock('sys').toFixed(0)}`,
          'RSS MiB before→after': `${mib(rssBefore)}→${mib(rssAfter)}`,
          'KiB RSS/client': ((rssAfter - rssBefore) / 1024 / CLIENTS).toFixed(1),
        },
      };
    } finally {
      await Promise.all(workers.map((w) => w.terminate()));
    }
  }

  const published = new Map();
  const stops = [];
  try {
    const upMetrics = await freePort();
    const upstream = await startGateway(['--devnet.block_time', BLOCK_TIME, '--json-rpc.enable', 'false', ...metricsFlags(upMetrics)]);
    stops.push(upstream.stop);
    const upstreamWs = upstream.url.replace(/^http/, 'ws') + '/websocket';

    // The reference: when the upstream published each block.
    const reference = new WebSocket(upstreamWs, { perMessageDeflate: false });
    reference.on('message', (buf) => {
      const at = now();
      const height = heightOf(buf);
      if (height !== undefined && !published.has(height)) published.set(height, at);
    });
    await new Promise((resolve, reject) => {
      reference.once('open', resolve);
      reference.once('error', reject);
    });
    reference.send(subscribeMessage(0));
    stops.push(async () => reference.terminate());

    const bare = await startBareBroadcaster(upstreamWs);
    stops.push(bare.stop);
    const floor = await measure('bare ws broadcast', bare.wsUrl, bare.pid);
    await bare.stop();
    stops.pop();

    const gwMetrics = await freePort();
    // CometBFT's defaults would refuse most of the clients: 900 connections, 100 subscription clients.
    const configToml = ['[rpc]', 'max_open_connections = 0', `max_subscription_clients = ${CLIENTS + 100}`, 'max_subscriptions_per_client = 5', ''].join('\n');
    // Every client comes from 127.0.0.1: no per-address caps.
    const gatewayToml = [
      '[backend]', 'kind = "upstream"', '', '[limits]', 'max_ws_connections_per_ip = 0', 'max_subscriptions_per_ip = 0', '',
      '[upstream]', 'health_check_interval = "1s"', '', '[[upstream.node]]', 'name = "devnet"', `url = "${upstream.url}"`, '',
    ].join('\n');
    const gw = await startGateway(['--json-rpc.enable', 'false', ...metricsFlags(gwMetrics)], {
      'config/config.toml': configToml,
      'config/gateway.toml': gatewayToml,
    });
    stops.push(gw.stop);
    const heap = async () => sample(await scrape(gwMetrics), 'nodejs_heap_size_used_bytes');
    await sleep(1000);
    const heapBefore = await heap();
    const gateway = await measure('gateway (upstream mode)', gw.url.replace(/^http/, 'ws') + '/websocket', gw.pid, async () => ({
      heap: await heap(),
      upstream: await scrape(upMetrics),
    }));
    const { heap: heapAfter, upstream: upLines } = gateway.probed;
    // The reference holds one NewBlock subscription and one WebSocket on the upstream; the rest is the gateway's.
    const upstreamSubs = sum(upLines, 'rpcgw_subscriptions{interface="node"') - 1;

    console.log(`${CLIENTS} clients in ${WORKERS} worker threads; block_time ${BLOCK_TIME}; ${BLOCKS} blocks measured; load generator on the same machine`);
    table([floor.row, gateway.row]);
    console.log('');
    table([
      {
        'gw/bare CPU per block': (gateway.cpuPerBlock / floor.cpuPerBlock).toFixed(2),
        'gw heap used MiB before→after': `${mib(heapBefore)}→${mib(heapAfter)}`,
        'upstream subs held by gw': upstreamSubs,
        'gw WebSockets to upstream': sample(upLines, 'rpcgw_open_connections', 'interface="node",protocol="ws"') - 1,
      },
    ]);
    console.log('\ntargets: gateway delivery p99 < 100 ms; every event delivered once; one upstream subscription');
    if (!gateway.ok || upstreamSubs !== 1) process.exitCode = 1;
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}

if (isMainThread) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  clientWorker(workerData).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
