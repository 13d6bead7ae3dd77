'use strict';
/**
 * Which part of the gateway's cost over a bare Node.js proxy is its process, and which its request path.
 * The parsing proxy (bench/proxy-server.js parse) runs twice: as a process of its own (bench/bare-proxy.js),
 * and inside a gateway's process on a port of its own (bench/in-process-proxy.js), where it shares
 * everything the gateway's process holds and does besides its calls (its modules and heap, its timers,
 * health checks and upstream WebSockets, what Node's own code has seen there) and runs none of the
 * gateway's request path. Beside them the bare proxy (bytes copied through) and that same gateway's own
 * EVM port (upstream mode, defaults), all over one anvil, eth_getBalance of a fresh address per request.
 *
 *   16 connections   autocannon, the routes taking turns over BENCH_ROUNDS rounds of BENCH_DURATION s
 *                    (each after 1 s of warm-up); medians of req/s and of the serving process's CPU per
 *                    request (the in-process proxy's includes what the gateway's process does meanwhile)
 *   one at a time    one keep-alive connection per route (and one straight to anvil), the routes taking
 *                    turns request by request (bench/lib.js takeTurns), after the rounds above and
 *                    BENCH_WARMUP requests one at a time: p50 added over direct. The gateway's process
 *                    serves two routes, so they take turns in two passes, each with direct, the bare and
 *                    the parsing proxy: one with the in-process proxy, one with the gateway (in one pass
 *                    that process would serve two turns in five, the second right after the first)
 *
 * Environment: BENCH_DURATION (default 5), BENCH_ROUNDS (default 3), BENCH_REQUESTS (one at a time, per
 * route, default 4000), BENCH_WARMUP (default 500).
 */
const { join } = require('node:path');
const { freePort, loadAverage, measureRounds, rpcBody, runBenchmark, startUpstreams, startUpstreamGateway, startBareProxy, checkRoutes, sequentialClient, takeTurns, quantile, table } = require('./lib');

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 500);
const VIA = { bare: 'bare Node.js proxy', parse: 'parsing Node.js proxy', inside: "parsing proxy in the gateway's process", gateway: 'gateway (defaults)' };

runBenchmark(async (started) => {
  const { anvil, devnet } = await startUpstreams(started);
  const bare = started(await startBareProxy(anvil.url));
  const parse = started(await startBareProxy(anvil.url, 'parse'));
  const insidePort = await freePort();
  process.env.IN_PROCESS_PROXY = `${insidePort} ${anvil.url} parse`;
  const gw = started(await startUpstreamGateway(devnet.url, anvil.url, undefined, ['--require', join(__dirname, 'in-process-proxy.js')]));
  delete process.env.IN_PROCESS_PROXY;
  const routes = { bare, parse, inside: { url: `http://127.0.0.1:${insidePort}`, pid: gw.pid }, gateway: { url: gw.evmUrl, pid: gw.pid } };
  let seq = 0;
  const bodyAt = (n) => rpcBody('eth_getBalance', [`0xf0${n.toString(16).padStart(38, '0')}`, 'latest']);
  await checkRoutes({ direct: anvil, ...routes }, bodyAt(seq++), 'eth_getBalance');
  console.log(`eth_getBalance of a fresh address over anvil; load average ${loadAverage()}\n`);

  const loaded = await measureRounds(routes, { bodyAt, connections: 16 }, ROUNDS, DURATION);

  /** p50 added over direct, one at a time, by route: `routes` take turns with direct and the proxies. */
  const oneAtATime = async (via) => {
    const alone = { direct: anvil, bare, parse, [via]: routes[via] };
    const clients = Object.fromEntries(Object.entries(alone).map(([name, r]) => [name, sequentialClient(r.url)]));
    try {
      await takeTurns(alone, clients, () => bodyAt(seq++), WARMUP);
      const { latencies } = await takeTurns(alone, clients, () => bodyAt(seq++), REQUESTS);
      const p50 = (name) => quantile(latencies[name].sort(), 0.5);
      return Object.fromEntries(Object.keys(alone).map((name) => [name, p50(name) - p50('direct')]));
    } finally {
      await Promise.all(Object.values(clients).map((client) => client.close()));
    }
  };
  const passes = { inside: await oneAtATime('inside'), gateway: await oneAtATime('gateway') };

  const ratio = (a, b) => (a / b).toFixed(2);
  table(
    Object.keys(routes).map((via) => ({
      '16 connections': VIA[via],
      'req/s': Math.round(loaded[via].rps),
      '× bare': via === 'bare' ? '' : ratio(loaded[via].rps, loaded.bare.rps),
      'CPU µs/req': loaded[via].cpu.toFixed(1),
      'CPU × bare': via === 'bare' ? '' : ratio(loaded[via].cpu, loaded.bare.cpu),
    })),
  );
  console.log('');
  table(
    Object.entries(passes).map(([via, added]) => ({
      'one at a time, added p50 µs (× bare)': `pass with the ${VIA[via]}`,
      bare: added.bare.toFixed(0),
      parsing: `${added.parse.toFixed(0)} (${ratio(added.parse, added.bare)})`,
      [`the pass's route`]: `${added[via].toFixed(0)} (${ratio(added[via], added.bare)})`,
    })),
  );
  const { inside, gateway } = passes;
  console.log(`\nthe process (parsing proxy inside the gateway's / alone): ${ratio(loaded.inside.rps, loaded.parse.rps)}× req/s at 16 connections, ${ratio(inside.inside / inside.bare, inside.parse / inside.bare)}× added one at a time`);
  console.log(`the request path (gateway / parsing proxy in its process): ${ratio(loaded.gateway.rps, loaded.inside.rps)}× req/s, ${ratio(loaded.gateway.cpu, loaded.inside.cpu)}× CPU, ${ratio(gateway.gateway / gateway.bare, inside.inside / inside.bare)}× added (each over its pass's bare proxy); load average at the end ${loadAverage()}`);
});
