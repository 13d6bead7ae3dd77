'use strict';
/**
 * What the response cache's admission saves (a latest-height answer is kept from the second time its
 * call is answered, docs/upstream.md#cache): eth_getBalance over anvil at 16 connections, every request
 * its own JSON-RPC id, through the bare Node.js proxy (bench/bare-proxy.js), the gateway with its
 * defaults and the gateway with latest-height caching off (`--set upstream.latest_ttl=0`), two ways:
 *
 *   fresh      every call a new address: nothing to cache; what keeping such answers would cost
 *   hot        calls over 64 addresses: what the cache serves
 *
 * The routes take turns over BENCH_ROUNDS rounds (default 4) of BENCH_DURATION s (default 5, after 1 s
 * of warm-up); medians. Prints req/s, p50/p99 and the CPU time per request of each route's process.
 */
const { measureRounds, loadAverage, rpcBody, runBenchmark, printResults, startUpstreams, startUpstreamGateway, startBareProxy } = require('./lib');

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);

runBenchmark(async (started) => {
  const { anvil, devnet } = await startUpstreams(started);
  const gateway = async (flags) => {
    const gw = started(await startUpstreamGateway(devnet.url, anvil.url, undefined, [], [], { flags }));
    return { pid: gw.pid, url: gw.evmUrl };
  };
  const routes = {
    'bare Node.js proxy': started(await startBareProxy(anvil.url)),
    'gateway (defaults)': await gateway([]),
    'gateway, latest_ttl 0': await gateway(['--set', 'upstream.latest_ttl=0']),
  };
  const address = (n) => `0xc0${n.toString(16).padStart(38, '0')}`;
  const cases = {
    'fresh address each call': (n) => rpcBody('eth_getBalance', [address(n), 'latest']),
    'hot: 64 addresses': (n) => rpcBody('eth_getBalance', [address(n % 64), 'latest']),
  };
  const rows = [];
  const ratios = [];
  for (const [name, bodyAt] of Object.entries(cases)) {
    const med = await measureRounds(routes, { bodyAt, connections: 16 }, ROUNDS, DURATION);
    for (const [via, m] of Object.entries(med)) {
      rows.push({ case: name, via, 'req/s': Math.round(m.rps), 'p50 ms': m.p50, 'p99 ms': m.p99, 'CPU µs/req': m.cpu.toFixed(1), 'req/s by round': m.runs.map((r) => Math.round(r.rps)).join(' ') });
    }
    const bare = med['bare Node.js proxy'];
    for (const via of Object.keys(routes).slice(1)) {
      ratios.push({ case: name, via, '× bare req/s': (med[via].rps / bare.rps).toFixed(2), '× bare CPU': (med[via].cpu / bare.cpu).toFixed(2) });
    }
  }
  console.log(`16 connections, ${ROUNDS} × ${DURATION} s per route and case (each after 1 s of warm-up), medians; load average ${loadAverage()}\n`);
  printResults(rows, ratios);
});
