'use strict';
/**
 * Whether a proxy's work after it has written a request upstream hides behind the upstream's answer,
 * one request at a time over anvil (eth_getBalance of a fresh address): the bare Node.js proxy
 * (bench/bare-proxy.js) plain, with BENCH_BUSY_US of CPU work per call before the upstream write, and
 * with the same work after it. Work before the write always adds to the latency; work after it adds
 * only what the upstream's answer does not cover (the answer waits in the socket until the proxy is
 * free). "hidden" is how much of the work after the write the upstream's own time covered.
 *
 * BENCH_PIN=1 runs anvil on CPU 1 and the proxies and the client on CPU 0 (taskset), to tell a shared
 * core from an upstream that answers sooner than the work ends.
 *
 * Environment: BENCH_BUSY_US (default 40), BENCH_REQUESTS (per route, default 4000), BENCH_WARMUP (one
 * at a time per route, default 500, after 3 s at 16 connections), BENCH_PIN.
 */
const { execFileSync } = require('node:child_process');
const { load, loadAverage, rpcBody, runBenchmark, printResults, startAnvil, startBareProxy, checkRoutes, sequentialClient, takeTurns, quantile } = require('./lib');

const BUSY = Number(process.env.BENCH_BUSY_US ?? 40);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 500);
const PIN = process.env.BENCH_PIN === '1';

/** Every thread of `pid` on `cpu`. */
const pin = (pid, cpu) => execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });

runBenchmark(async (started) => {
  const anvil = started(await startAnvil());
  if (PIN) {
    pin(anvil.pid, 1);
    pin(process.pid, 0);
  }
  const proxies = {
    bare: started(await startBareProxy(anvil.url)),
    before: started(await startBareProxy(anvil.url, 'bytes', `${BUSY}@before`)),
    after: started(await startBareProxy(anvil.url, 'bytes', `${BUSY}@after`)),
  };
  if (PIN) for (const p of Object.values(proxies)) pin(p.pid, 0);
  const routes = { direct: anvil, ...proxies };
  const via = { direct: 'direct', bare: 'bare Node.js proxy', before: `+ ${BUSY} µs before the write`, after: `+ ${BUSY} µs after the write` };
  let seq = 0;
  const next = () => rpcBody('eth_getBalance', [`0xd0${(seq++).toString(16).padStart(38, '0')}`, 'latest']);
  await checkRoutes(routes, next(), 'eth_getBalance');
  console.log(`one request at a time over anvil, routes taking turns; ${REQUESTS} requests per route; ${PIN ? 'anvil on CPU 1, the rest on CPU 0' : 'not pinned'}; load average ${loadAverage()}\n`);
  const clients = Object.fromEntries(Object.entries(routes).map(([name, r]) => [name, sequentialClient(r.url)]));
  try {
    for (const { url } of Object.values(routes)) await load({ url: `${url}/`, bodyAt: () => next(), connections: 16, duration: 3 });
    await takeTurns(routes, clients, next, WARMUP);
    const { latencies } = await takeTurns(routes, clients, next, REQUESTS);
    const p = {};
    for (const [name, l] of Object.entries(latencies)) {
      const sorted = l.sort();
      p[name] = { p50: quantile(sorted, 0.5), p90: quantile(sorted, 0.9) };
    }
    const rows = Object.keys(routes).map((name) => ({
      via: via[name],
      'p50 µs': p[name].p50.toFixed(0),
      'p90 µs': p[name].p90.toFixed(0),
      'added over the bare proxy, p50 µs': name === 'before' || name === 'after' ? (p[name].p50 - p.bare.p50).toFixed(0) : '',
    }));
    const hidden = p.before.p50 - p.after.p50;
    printResults(rows, [{ 'work per call µs': BUSY, 'hidden behind the upstream, p50 µs': hidden.toFixed(0), 'share hidden': (hidden / BUSY).toFixed(2) }]);
  } finally {
    await Promise.all(Object.values(clients).map((client) => client.close()));
  }
});
