'use strict';
/**
 * What one hop adds, one request at a time: a client with one keep-alive connection per route sends
 * a request, waits for its answer, sends the next. Two uncached pass-through cases, every request its
 * own JSON-RPC id and its own address or key:
 *
 *   eth_getBalance of a fresh address     over anvil (node_modules/@foundry-rs/anvil-linux-amd64)
 *   node abci_query of a fresh key        over an embedded-devnet gateway (a second process)
 *
 * Each case goes to the same upstream four ways, the routes taking turns request by request (so a busy
 * moment of a shared machine lands on all of them): direct; nginx (bench/lib.js startNginx: one worker,
 * upstream keepalive); the bare Node.js proxy (bench/bare-proxy.js: node:http in, undici out, bytes
 * copied through: Node's own floor for a hop); the same proxy parsing the request and the answer
 * (bench/bare-proxy.js parse: the floor of a proxy that reads JSON-RPC at all); the gateway in upstream
 * mode with its defaults (batching off). Prints p50/p90/p99 in µs, what each route adds over direct at
 * p50 and p90, the CPU time per request of the process serving the route (nginx's worker, the proxies,
 * the gateway; for `direct`, the upstream's over the requests of every route) and how much of it was in
 * the kernel (system time: the socket calls), and the ratios of what
 * the gateway and the parsing proxy add to what the bare proxy adds at p50 (target ≤ 1.15).
 *
 * Warm-up: every route first serves WARMUP_SECONDS of load at 16 connections, so that each process
 * runs the optimised code a long-running server runs (at one request at a time V8 takes tens of
 * thousands of requests to get there, the gateway's larger code longer than a bare proxy), then
 * BENCH_WARMUP requests one at a time.
 *
 * With BENCH_PHASES=1 the Node.js routes run with bench/phase-probe.js preloaded and a third table splits
 * what each adds into its stretches, medians in µs: before its upstream request is written (the body
 * read, and all the process does before it asks), the upstream's answer, and after it (the client's
 * answer written), beside what the gateway and the parsing proxy spend over the bare proxy in each. The
 * probe's own cost (a few diagnostics-channel messages per request) lands on every Node.js route alike,
 * which pulls the ratios towards 1: take them from a run without it.
 *
 * Environment: BENCH_REQUESTS (measured requests per route and case, default 4000), BENCH_WARMUP
 * (requests one at a time per route before measuring, default 500; 15000 lets V8 finish optimising the
 * gateway, whose CPU per call then falls by about a third while the ratios below barely move),
 * BENCH_GATEWAY_NODE_ARGS (extra node flags for the gateway, space-separated, e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof`: a profile of the gateway written when it stops), BENCH_TURN
 * (requests each route serves before the next route's turn, a whole number ≥ 1, default 1: turns of one
 * keep every process's caches cold, turns of 100 time each as a server busy with one client; see
 * takeTurns in bench/lib.js),
 * BENCH_PHASES.
 */
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { load, loadAverage, rpcBody, requireNginx, runBenchmark, printResults, startNginx, startUpstreams, startUpstreamGateway, startBareProxy, checkRoutes, sequentialClient, takeTurns, quantile, table, waitFor } = require('./lib');

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 500);
const TURN = Number(process.env.BENCH_TURN ?? 1);
const WARMUP_SECONDS = 3;
const TARGET = 1.15;
const GATEWAY_NODE_ARGS = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean);
const PHASES = process.env.BENCH_PHASES === '1';
const PROBE = PHASES ? ['--require', join(__dirname, 'phase-probe.js')] : [];
/** The Node.js routes, whose stretches the probe times. */
const PROBED = ['bare', 'parse', 'gateway'];
const VIA = { direct: 'direct', nginx: 'nginx', bare: 'bare Node.js proxy', parse: 'parsing Node.js proxy', gateway: 'gateway (defaults)' };

let seq = 0;
const run = (c, clients, count) => takeTurns(c.routes, clients, () => c.bodyAt(seq++), count, TURN);

runBenchmark(async (started) => {
  const nginx = requireNginx();
  const { anvil, devnet } = await startUpstreams(started);
  const ngEvm = started(await startNginx(nginx, anvil.url));
  const ngNode = started(await startNginx(nginx, devnet.url));
  if (PHASES) {
    process.env.PHASE_PROBE_DIR = mkdtempSync(join(tmpdir(), 'rpcgw-phases-'));
    started({ stop: async () => rmSync(process.env.PHASE_PROBE_DIR, { recursive: true, force: true }) });
  }
  const probed = { nodeArgs: PROBE };
  const bareEvm = started(await startBareProxy(anvil.url, 'bytes', undefined, probed));
  const bareNode = started(await startBareProxy(devnet.url, 'bytes', undefined, probed));
  const parseEvm = started(await startBareProxy(anvil.url, 'parse', undefined, probed));
  const parseNode = started(await startBareProxy(devnet.url, 'parse', undefined, probed));
  const gw = started(await startUpstreamGateway(devnet.url, anvil.url, undefined, [...GATEWAY_NODE_ARGS, ...PROBE]));
  const freshAddress = (n) => `0xc0${n.toString(16).padStart(38, '0')}`;
  const freshKey = (n) => Buffer.from(`hop-key-${n}`).toString('hex');
  const cases = [
    {
      name: 'eth_getBalance, fresh address',
      routes: { direct: anvil, nginx: { url: ngEvm.url, pid: ngEvm.workerPid }, bare: bareEvm, parse: parseEvm, gateway: { url: gw.evmUrl, pid: gw.pid } },
      bodyAt: (n) => rpcBody('eth_getBalance', [freshAddress(n), 'latest']),
    },
    {
      name: 'node abci_query, fresh key',
      routes: { direct: devnet, nginx: { url: ngNode.url, pid: ngNode.workerPid }, bare: bareNode, parse: parseNode, gateway: gw },
      bodyAt: (n) => rpcBody('abci_query', { path: '/key', data: freshKey(n), prove: false }),
    },
  ];
  console.log(`one request at a time, one keep-alive connection per route, routes taking turns of ${TURN} request${TURN === 1 ? '' : 's'}; ${REQUESTS} requests per route and case after ${WARMUP_SECONDS} s of warm-up at 16 connections and ${WARMUP} one at a time; load average ${loadAverage()}\n`);
  const rows = [];
  const ratios = [];
  const stretches = [];
  for (const c of cases) {
    await checkRoutes(c.routes, c.bodyAt(seq++), c.name);
    const clients = Object.fromEntries(Object.entries(c.routes).map(([via, r]) => [via, sequentialClient(r.url)]));
    try {
      for (const { url } of Object.values(c.routes)) await load({ url: `${url}/`, bodyAt: (n) => c.bodyAt(n + 1e9), connections: 16, duration: WARMUP_SECONDS });
      await run(c, clients, WARMUP);
      if (PHASES) await probeMedians(c.routes);
      const { latencies, cpu, system } = await run(c, clients, REQUESTS);
      if (PHASES) stretches.push(...stretchRows(c.name, await probeMedians(c.routes)));
      const q = {};
      for (const [via, l] of Object.entries(latencies)) {
        const sorted = l.sort();
        q[via] = { p50: quantile(sorted, 0.5), p90: quantile(sorted, 0.9), p99: quantile(sorted, 0.99) };
      }
      const routes = Object.keys(c.routes);
      for (const via of routes) {
        const requests = via === 'direct' ? REQUESTS * routes.length : REQUESTS;
        const own = cpu.get(c.routes[via].pid) / requests;
        const kernel = system.get(c.routes[via].pid) / requests;
        rows.push({
          case: c.name,
          via: VIA[via],
          'p50 µs': q[via].p50.toFixed(0),
          'p90 µs': q[via].p90.toFixed(0),
          'p99 µs': q[via].p99.toFixed(0),
          'added p50 µs': via === 'direct' ? '' : (q[via].p50 - q.direct.p50).toFixed(0),
          'added p90 µs': via === 'direct' ? '' : (q[via].p90 - q.direct.p90).toFixed(0),
          'CPU µs/req': `${own.toFixed(1)}${via === 'direct' ? ' (upstream)' : ''}`,
          'of which system': kernel.toFixed(1),
        });
      }
      const added = (via, p) => q[via][p] - q.direct[p];
      const ratio = added('gateway', 'p50') / added('bare', 'p50');
      ratios.push({
        case: c.name,
        'gateway added / bare added, p50': ratio.toFixed(2),
        'parsing proxy added / bare added, p50': (added('parse', 'p50') / added('bare', 'p50')).toFixed(2),
        'same, p90': (added('gateway', 'p90') / added('bare', 'p90')).toFixed(2),
        'gateway added − bare added, p50 µs': (added('gateway', 'p50') - added('bare', 'p50')).toFixed(0),
        target: `≤ ${TARGET}`,
        met: ratio <= TARGET ? 'yes' : 'NO',
      });
    } finally {
      await Promise.all(Object.values(clients).map((client) => client.close()));
    }
  }
  printResults(rows, ratios);
  if (PHASES) {
    console.log('\nwhere each route adds its time, medians in µs (bench/phase-probe.js), and the difference from the bare proxy\n');
    table(stretches);
  }
});

/** Asks every probed route for its stretches' medians since the last ask: {via: {before, upstream, after}}. */
async function probeMedians(routes) {
  const files = PROBED.map((via) => join(process.env.PHASE_PROBE_DIR, `phases-${routes[via].pid}.json`));
  for (const file of files) rmSync(file, { force: true });
  for (const via of PROBED) process.kill(routes[via].pid, 'SIGUSR2');
  const read = (file) => {
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      return undefined;
    }
  };
  await waitFor(async () => files.every((file) => read(file) !== undefined), 10_000);
  return Object.fromEntries(PROBED.map((via, i) => [via, read(files[i])[new URL(routes[via].url).port]]));
}

function stretchRows(name, medians) {
  const { bare } = medians;
  const diff = (m, key) => (m === bare ? '' : `${m[key] - bare[key] >= 0 ? '+' : ''}${(m[key] - bare[key]).toFixed(1)}`);
  return PROBED.map((via) => {
    const m = medians[via];
    return {
      case: name,
      via: VIA[via],
      requests: m.count,
      before: m.before.toFixed(1),
      upstream: m.upstream.toFixed(1),
      after: m.after.toFixed(1),
      'before − bare': diff(m, 'before'),
      'upstream − bare': diff(m, 'upstream'),
      'after − bare': diff(m, 'after'),
    };
  });
}
