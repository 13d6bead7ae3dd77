'use strict';
/**
 * The node RPC's own HTTP serving cost: `health` and `status` over JSON-RPC POST (a body as CosmJS
 * sends it; the same one every time, which keeps the load generator's own cost low) and over URI GET, against the gateway over the embedded devnet, and the same two
 * transports against a bare node:http server answering a constant (the floor of Node's HTTP on this
 * machine). Whatever serves the node RPC's HTTP (Fastify or bare node:http), this only talks HTTP.
 * The cases take turns over BENCH_ROUNDS rounds (so that a busy moment of the machine does not land on
 * one case only); each figure is the median of its rounds. Prints req/s, p50/p99 and the server's CPU
 * time per request (from /proc), and the gateway's CPU per request above the floor. Environment:
 * BENCH_DURATION (s per round, default 3), BENCH_ROUNDS (default 3), BENCH_CONNECTIONS (default 32).
 */
const { startGateway, startConstantServer, measure, medianRun, loadAverage, rpcBody, table } = require('./lib');

const DURATION = Number(process.env.BENCH_DURATION ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

async function main() {
  let floor;
  let gw;
  try {
    floor = await startConstantServer('{"jsonrpc":"2.0","id":-1,"result":{}}');
    // Blocks rarely (health and status do not need them) and no EVM listener: little else in the process.
    gw = await startGateway(['--devnet.block_time', '10s', '--json-rpc.enable', 'false']);
    console.log(`${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION} s per case (each after 1 s of warm-up), medians; load generator on the same machine; load average ${loadAverage()}\n`);
    const post = (url, method) => ({ transport: 'POST', url: `${url}/`, method: 'POST', body: rpcBody(method, {}) });
    const get = (url, path) => ({ transport: 'GET', url: `${url}${path}` });
    const cases = [
      { name: 'bare node:http, constant', pid: floor.pid, ...post(floor.url, 'health') },
      { name: 'bare node:http, constant', pid: floor.pid, ...get(floor.url, '/health') },
      { name: 'gateway health', pid: gw.pid, ...post(gw.url, 'health') },
      { name: 'gateway health', pid: gw.pid, ...get(gw.url, '/health') },
      { name: 'gateway status', pid: gw.pid, ...post(gw.url, 'status') },
      { name: 'gateway status', pid: gw.pid, ...get(gw.url, '/status') },
    ];
    const runs = cases.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, c] of cases.entries()) runs[i].push(await measure(c.pid, { url: c.url, method: c.method, body: c.body, connections: CONNECTIONS }, DURATION));
    }
    const floorCpu = {};
    const rows = cases.map((c, i) => {
      const r = medianRun(runs[i]);
      if (c.pid === floor.pid) floorCpu[c.transport] = r.cpu;
      return {
        case: c.name,
        transport: c.transport,
        'req/s': Math.round(r.rps),
        'p50 ms': r.p50,
        'p99 ms': r.p99,
        'server CPU µs/req': r.cpu.toFixed(1),
        'above floor µs/req': c.pid === floor.pid ? '' : (r.cpu - floorCpu[c.transport]).toFixed(1),
        'CPU µs/req by round': r.runs.map((run) => run.cpu.toFixed(0)).join(' '),
      };
    });
    table(rows);
    console.log(`\nload average at the end ${loadAverage()}`);
  } finally {
    await Promise.all([floor?.stop(), gw?.stop()]);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
