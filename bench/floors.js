'use strict';
/**
 * The gateway under load against Node.js's own floors, in one run: autocannon with 16 connections
 * (this process), every request its own JSON-RPC id.
 *
 *   pass-through   eth_getBalance of a fresh address over anvil, node abci_query of a fresh key over an
 *                  embedded-devnet gateway: the gateway (upstream mode, defaults: batching off) against
 *                  the bare Node.js proxy (bench/bare-proxy.js: node:http in, undici out, bytes copied
 *                  through); target ≥ 0.95× its throughput. Beside them the same proxy parsing the request
 *                  and the answer (bench/bare-proxy.js parse): the floor of a proxy that reads JSON-RPC
 *   cache hit      eth_getBlockByNumber("0x0", true) over anvil, answered from the gateway's cache,
 *                  against a node:http server answering the same bytes as a constant (the constant-server
 *                  floor); target ≥ 0.75× its throughput
 *
 * The routes of a case take turns over BENCH_ROUNDS rounds; each figure is the median of its rounds.
 * Prints req/s, p50/p99 and the CPU time per request of the process serving each route (from /proc).
 * Environment: BENCH_DURATION (s per round, default 5, after 1 s of warm-up), BENCH_ROUNDS (default 3),
 * BENCH_CONNECTIONS (default 16).
 */
const { measureRounds, loadAverage, rpcBody, runBenchmark, printResults, startUpstreams, startUpstreamGateway, startBareProxy, startConstantServer, checkRoutes } = require('./lib');

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const VIA = { bare: 'bare Node.js proxy', parse: 'parsing Node.js proxy', constant: 'node:http constant', gateway: 'gateway (defaults)' };

runBenchmark(async (started) => {
  const { anvil, devnet } = await startUpstreams(started);
  const bareEvm = started(await startBareProxy(anvil.url));
  const bareNode = started(await startBareProxy(devnet.url));
  const parseEvm = started(await startBareProxy(anvil.url, 'parse'));
  const parseNode = started(await startBareProxy(devnet.url, 'parse'));
  const gw = started(await startUpstreamGateway(devnet.url, anvil.url));
  // The floor answers what the gateway answers, byte for byte (under the id of this first call).
  const genesis = rpcBody('eth_getBlockByNumber', ['0x0', true], 1);
  const answer = await (await fetch(`${gw.evmUrl}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: genesis })).text();
  const constant = started(await startConstantServer(answer, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(answer)) }));

  const freshAddress = (n) => `0xd0${n.toString(16).padStart(38, '0')}`;
  const freshKey = (n) => Buffer.from(`floor-key-${n}`).toString('hex');
  const cases = [
    { name: 'eth_getBalance, fresh address', floor: 'bare', target: 0.95, routes: { bare: bareEvm, parse: parseEvm, gateway: { url: gw.evmUrl, pid: gw.pid } }, bodyAt: (n) => rpcBody('eth_getBalance', [freshAddress(n), 'latest']) },
    { name: 'node abci_query, fresh key', floor: 'bare', target: 0.95, routes: { bare: bareNode, parse: parseNode, gateway: gw }, bodyAt: (n) => rpcBody('abci_query', { path: '/key', data: freshKey(n), prove: false }) },
    { name: `eth_getBlockByNumber("0x0", true), cached (${Buffer.byteLength(answer)} B)`, floor: 'constant', target: 0.75, routes: { constant, gateway: { url: gw.evmUrl, pid: gw.pid } }, bodyAt: () => rpcBody('eth_getBlockByNumber', ['0x0', true]) },
  ];
  console.log(`${CONNECTIONS} connections, ${ROUNDS} × ${DURATION} s per route and case (each after 1 s of warm-up), medians; load generator on the same machine; load average ${loadAverage()}\n`);
  const rows = [];
  const ratios = [];
  for (const c of cases) {
    await checkRoutes(c.routes, c.bodyAt(0), c.name);
    const got = await measureRounds(c.routes, { bodyAt: c.bodyAt, connections: CONNECTIONS }, ROUNDS, DURATION);
    for (const [via, r] of Object.entries(got)) {
      rows.push({ case: c.name, via: VIA[via], 'req/s': Math.round(r.rps), 'p50 ms': r.p50, 'p99 ms': r.p99, 'CPU µs/req': r.cpu.toFixed(1), 'req/s by round': r.runs.map((x) => Math.round(x.rps)).join(' ') });
    }
    const ratio = got.gateway.rps / got[c.floor].rps;
    ratios.push({
      case: c.name,
      'gateway / floor': ratio.toFixed(2),
      'gateway CPU / floor CPU': (got.gateway.cpu / got[c.floor].cpu).toFixed(2),
      'parsing proxy / floor': got.parse === undefined ? '' : (got.parse.rps / got[c.floor].rps).toFixed(2),
      target: `≥ ${c.target}× ${VIA[c.floor]}`,
      met: ratio >= c.target ? 'yes' : 'NO',
    });
  }
  printResults(rows, ratios);
});
