'use strict';
/**
 * The gateway in upstream mode against the same upstream reached directly and through nginx, in one
 * run on one machine with one load generator (autocannon, in this process). Every request has its own
 * body (its own JSON-RPC id, as CosmJS and ethers send them; the pass-through cases also their own
 * address or key):
 *
 *   (a)  eth_getBalance of a fresh address       EVM pass-through: neither cache nor dedup can serve it
 *   (b)  eth_getBlockByNumber(0x1, true)         EVM past block (20 txs): served from the gateway's cache
 *   (c)  node RPC block at height 2              past block: served from the gateway's cache
 *   (c)  node RPC abci_query of a fresh key      node RPC pass-through
 *
 * Upstreams: one anvil (node_modules/@foundry-rs/anvil-linux-amd64) for the EVM, one embedded-devnet
 * gateway for the node RPC. nginx (Debian: `apt-get install -y nginx`) runs on a generated config
 * (bench/lib.js startNginx: one worker, upstream keepalive). The gateway is `node dist/main.js start`
 * with `[backend] kind = "upstream"` and `batch_max_size = 10` (concurrent calls go to the upstream as
 * JSON-RPC batches). The pass-through cases have two more routes: a bare Node.js proxy
 * (bench/bare-proxy.js: node:http → undici Pool, bytes copied through), the floor of any Node.js
 * gateway on this machine that sends each call alone; and a second gateway with batching off. Prints req/s, p50/p99 and the CPU time per request of the process serving
 * each row (the gateway, nginx's worker, the bare proxy, or the upstream itself for `direct`, from
 * /proc), then the ratios and the targets. With BENCH_ROUNDS > 1 the routes of a case take turns that
 * many times and each figure is the median of its rounds (a busy moment of a shared machine then does
 * not land on one route only). Environment: BENCH_DURATION (s per round, default 5), BENCH_ROUNDS
 * (default 1), BENCH_CONNECTIONS (default 32).
 */
const { measureRounds, loadAverage, rpcBody, requireNginx, runBenchmark, printResults, startNginx, startUpstreams, startUpstreamGateway, startBareProxy, checkRoutes } = require('./lib');

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** The issue's targets: pass-through ≥ 0.8× nginx at ≤ 50 µs of gateway CPU; cached ≥ 1.5× nginx. */
const VIA = { bare: 'bare Node proxy', gateway: 'gateway (batch_max_size 10)', unbatched: 'gateway (batching off)' };
const TARGETS = {
  'pass-through': { vsNginx: 0.8, cpu: 50 },
  cached: { vsNginx: 1.5 },
};

runBenchmark(async (started) => {
  const nginx = requireNginx();
  const { anvil, devnet } = await startUpstreams(started);
  await new Promise((r) => setTimeout(r, 3000)); // a few devnet blocks: height 2 is a past block
  const ngEvm = started(await startNginx(nginx, anvil.url));
  const ngNode = started(await startNginx(nginx, devnet.url));
  const bareEvm = started(await startBareProxy(anvil.url));
  const bareNode = started(await startBareProxy(devnet.url));
  // Batches of up to 10 calls: CometBFT's default max_request_batch_size, which the devnet keeps.
  const gw = started(await startUpstreamGateway(devnet.url, anvil.url, 10));
  const unbatched = started(await startUpstreamGateway(devnet.url, anvil.url, 1));
  console.log(`${CONNECTIONS} connections, ${ROUNDS} × ${DURATION} s per route and case (each after 1 s of warm-up), load generator on the same machine; load average ${loadAverage()}`);

  // Routes as measureRounds takes them: nginx's CPU is its worker's.
  const evm = { direct: anvil, nginx: { url: ngEvm.url, pid: ngEvm.workerPid }, gateway: { url: gw.evmUrl, pid: gw.pid } };
  const node = { direct: devnet, nginx: { url: ngNode.url, pid: ngNode.workerPid }, gateway: gw };
  // The pass-through cases also go through the bare Node.js proxy (listed before the gateway) and the
  // gateway with batching off (after it).
  const withBare = ({ gateway, ...rest }, bare, unbatched) => ({ ...rest, bare, gateway, unbatched });
  const freshAddress = (n) => `0xb0${n.toString(16).padStart(38, '0')}`;
  const freshKey = (n) => Buffer.from(`bench-key-${n}`).toString('hex');
  const cases = [
    { name: '(a) eth_getBalance, fresh address', kind: 'pass-through', routes: withBare(evm, bareEvm, { url: unbatched.evmUrl, pid: unbatched.pid }), bodyAt: (n) => rpcBody('eth_getBalance', [freshAddress(n), 'latest']) },
    { name: '(b) eth_getBlockByNumber(0x1, true)', kind: 'cached', routes: evm, bodyAt: () => rpcBody('eth_getBlockByNumber', ['0x1', true]) },
    { name: '(c) node block, height 2', kind: 'cached', routes: node, bodyAt: () => rpcBody('block', { height: '2' }) },
    { name: '(c) node abci_query, fresh key', kind: 'pass-through', routes: withBare(node, bareNode, unbatched), bodyAt: (n) => rpcBody('abci_query', { path: '/key', data: freshKey(n), prove: false }) },
  ];

  const rows = [];
  const ratios = [];
  for (const c of cases) {
    await checkRoutes(c.routes, c.bodyAt(0), c.name);
    // Each round's warm-up also fills the gateway's cache for the cached cases.
    const got = await measureRounds(c.routes, { bodyAt: c.bodyAt, connections: CONNECTIONS }, ROUNDS, DURATION);
    for (const [via, r] of Object.entries(got)) {
      rows.push({ case: c.name, via: VIA[via] ?? via, 'req/s': Math.round(r.rps), 'p50 ms': r.p50, 'p99 ms': r.p99, 'CPU µs/req': r.cpu.toFixed(1) });
    }
    const t = TARGETS[c.kind];
    const vsNginx = got.gateway.rps / got.nginx.rps;
    const met = vsNginx >= t.vsNginx && (t.cpu === undefined || got.gateway.cpu <= t.cpu);
    ratios.push({
      case: c.name,
      kind: c.kind,
      'gw/nginx': vsNginx.toFixed(2),
      'gw/direct': (got.gateway.rps / got.direct.rps).toFixed(2),
      'gw p50 − nginx p50 ms': (got.gateway.p50 - got.nginx.p50).toFixed(2),
      'gw CPU µs/req': got.gateway.cpu.toFixed(1),
      'bare/nginx': got.bare ? (got.bare.rps / got.nginx.rps).toFixed(2) : '',
      'bare CPU µs/req': got.bare ? got.bare.cpu.toFixed(1) : '',
      'gw/bare': got.bare ? (got.gateway.rps / got.bare.rps).toFixed(2) : '',
      'unbatched/nginx': got.unbatched ? (got.unbatched.rps / got.nginx.rps).toFixed(2) : '',
      'unbatched CPU µs/req': got.unbatched ? got.unbatched.cpu.toFixed(1) : '',
      target: `gw/nginx ≥ ${t.vsNginx}${t.cpu === undefined ? '' : `, CPU ≤ ${t.cpu} µs`}`,
      met: met ? 'yes' : 'NO',
    });
  }
  console.log('CPU µs/req: of the gateway process, of nginx\'s worker, of the bare Node.js proxy, or (direct) of the upstream itself\n');
  printResults(rows, ratios);
});
