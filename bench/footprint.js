'use strict';
/**
 * How much of the gateway's cost over the bare Node.js proxy is its size rather than its work: the bare
 * proxy (bench/bare-proxy.js, bytes copied through) as it is, the same proxy with the gateway's weight
 * preloaded (bench/gateway-weight.js: every module of dist/ loaded and FOOTPRINT_WEIGHT_MB of objects
 * kept alive, nothing of it run per request), and the gateway in upstream mode with its defaults, all
 * over the same anvil, eth_getBalance of a fresh address per request.
 *
 *   16 connections   autocannon, the routes taking turns over BENCH_ROUNDS rounds of BENCH_DURATION s
 *                    (each after 1 s of warm-up); medians of req/s and of the serving process's CPU per
 *                    request
 *   one at a time    one keep-alive connection per route (and one straight to anvil), the routes taking
 *                    turns request by request (bench/lib.js takeTurns), after the rounds above and
 *                    BENCH_WARMUP requests one at a time: p50 added over direct, CPU per request
 *
 * Prints each route's resident memory too, so that the weighted proxy's size can be held against the
 * gateway's. Environment: BENCH_DURATION (default 5), BENCH_ROUNDS (default 3), BENCH_REQUESTS (one at
 * a time, per route, default 4000), BENCH_WARMUP (default 500), FOOTPRINT_WEIGHT_MB (default 48: the
 * gateway's live heap after a scavenge under this load, about 59 MB, less the bare proxy's, about 12).
 */
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { loadAverage, measure, medianRun, rpcBody, runBenchmark, startUpstreams, startUpstreamGateway, startBareProxy, checkRoutes, sequentialClient, takeTurns, quantile, table } = require('./lib');

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 500);
process.env.FOOTPRINT_WEIGHT_MB ??= '48';
const VIA = { direct: 'direct', bare: 'bare Node.js proxy', weighted: "bare proxy with the gateway's weight", gateway: 'gateway (defaults)' };

/** Resident memory of a process, MB. */
const residentMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

runBenchmark(async (started) => {
  const { anvil, devnet } = await startUpstreams(started);
  const bare = started(await startBareProxy(anvil.url));
  const weighted = started(await startBareProxy(anvil.url, 'bytes', undefined, { nodeArgs: ['--require', join(__dirname, 'gateway-weight.js')] }));
  const gw = started(await startUpstreamGateway(devnet.url, anvil.url));
  const routes = { bare, weighted, gateway: { url: gw.evmUrl, pid: gw.pid } };
  let seq = 0;
  const bodyAt = (n) => rpcBody('eth_getBalance', [`0xf0${n.toString(16).padStart(38, '0')}`, 'latest']);
  await checkRoutes({ direct: anvil.url, ...Object.fromEntries(Object.entries(routes).map(([via, r]) => [via, r.url])) }, bodyAt(seq++), 'eth_getBalance');
  console.log(`eth_getBalance of a fresh address over anvil; weight ${process.env.FOOTPRINT_WEIGHT_MB} MB; load average ${loadAverage()}\n`);

  const runs = Object.fromEntries(Object.keys(routes).map((via) => [via, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [via, r] of Object.entries(routes)) runs[via].push(await measure(r.pid, { url: `${r.url}/`, bodyAt, connections: 16 }, DURATION));
  }
  const loaded = Object.fromEntries(Object.keys(routes).map((via) => [via, medianRun(runs[via])]));

  const alone = { direct: anvil, ...routes };
  const clients = Object.fromEntries(Object.entries(alone).map(([via, r]) => [via, sequentialClient(r.url)]));
  let oneAtATime;
  try {
    await takeTurns(alone, clients, () => bodyAt(seq++), WARMUP);
    oneAtATime = await takeTurns(alone, clients, () => bodyAt(seq++), REQUESTS);
  } finally {
    await Promise.all(Object.values(clients).map((client) => client.close()));
  }
  const p50 = (via) => quantile(oneAtATime.latencies[via].sort(), 0.5);
  const added = (via) => p50(via) - p50('direct');

  const over = (via, value, floor) => (via === 'bare' ? '' : (value / floor).toFixed(2));
  table(
    Object.entries(routes).map(([via, r]) => ({
      via: VIA[via],
      'resident MB': residentMb(r.pid).toFixed(0),
      '16 conns req/s': Math.round(loaded[via].rps),
      '× bare': over(via, loaded[via].rps, loaded.bare.rps),
      '16 conns CPU µs/req': loaded[via].cpu.toFixed(1),
      'CPU × bare': over(via, loaded[via].cpu, loaded.bare.cpu),
      'one at a time, added p50 µs': added(via).toFixed(0),
      'added × bare': over(via, added(via), added('bare')),
      'one at a time, CPU µs/req': (oneAtATime.cpu.get(r.pid) / REQUESTS).toFixed(1),
    })),
  );
  // The share of the gateway's extra CPU that its weight alone brings to the bare proxy.
  const share = (a, b, c) => (((b - a) / (c - a)) * 100).toFixed(0);
  const cpuAlone = (via) => oneAtATime.cpu.get(routes[via].pid) / REQUESTS;
  console.log(`\nthe weight carries ${share(loaded.bare.cpu, loaded.weighted.cpu, loaded.gateway.cpu)} % of the gateway's extra CPU at 16 connections, ${share(cpuAlone('bare'), cpuAlone('weighted'), cpuAlone('gateway'))} % one at a time; load average at the end ${loadAverage()}`);
});
