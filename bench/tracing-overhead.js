'use strict';
/**
 * The cost of tracing on the engine's hot path, in one process: one built engine (node RPC dialect, a
 * method answering a constant) runs single JSON-RPC calls with tracing off and on (every call sampled,
 * its span exported over OTLP/HTTP to a collector stub in a child process), the two taking turns
 * round by round so that the machine's load hits both alike. Prints the CPU time per call of each
 * (the median of its rounds) and on/off. Off is the default: the hooks test one flag and make nothing.
 *
 * Environment: BENCH_ROUNDS (default 15), BENCH_CALLS (calls per round, default 20000).
 */
const { spawn } = require('node:child_process');
const { freePort, waitFor, stopChild, loadAverage, median, table } = require('./lib');

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const CALLS = Number(process.env.BENCH_CALLS ?? 20000);
const COLLECTOR = `require('node:http').createServer((req, res) => { req.resume(); req.on('end', () => res.writeHead(200).end()); }).listen(Number(process.argv[1]), '127.0.0.1');`;

const dist = (path) => require(`../dist/${path}`);

function engine() {
  const { RpcEngine } = dist('rpc/engine');
  const { MethodRegistry } = dist('rpc/method-registry');
  const { defineMethod } = dist('rpc/method');
  const { MethodNotFoundError } = dist('rpc/errors');
  const { NodeDialect } = dist('node-rpc/node-dialect');
  const registry = new MethodRegistry();
  registry.registerAll([defineMethod({ name: 'ping', group: 'test', params: [], handler: () => 'pong' })]);
  const policy = { unsafeEnabled: () => false, groupEnabled: () => true, websocketOnlyRefusal: () => new MethodNotFoundError('websocket-only') };
  return new RpcEngine(new NodeDialect(), registry, policy, () => ({ requests: { max: 0, key: '' }, responseBytes: { max: 0, key: '' } }));
}

/** CPU time per call (ns) of `CALLS` calls. */
async function round(e, body, origin) {
  const t0 = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) await e.handle(body, origin);
  const d = process.cpuUsage(t0);
  return ((d.user + d.system) * 1000) / CALLS;
}

async function main() {
  const port = await freePort();
  const collector = spawn(process.execPath, ['-e', COLLECTOR, String(port)], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}/v1/traces`;
  await waitFor(async () => (await fetch(url, { method: 'POST', body: '' })).ok, 10_000);
  const spans = dist('tracing/spans');
  const { CONFIG_TABLES } = dist('config/config-tables');
  const tracing = await dist('tracing/tracing-sdk').startTracing({ ...CONFIG_TABLES.instrumentation.defaults, otlp_traces_endpoint: url });
  const tracer = spans.activeTracer();
  const e = engine();
  const body = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}';
  const origin = { transport: 'jsonrpc', remote: '127.0.0.1:1', bytes: body.length, traceHeaders: {} };
  const ns = { off: [], on: [] };
  try {
    for (let k = -2; k < ROUNDS; k++) {
      for (const mode of ['off', 'on']) {
        spans.useTracer(mode === 'on' ? tracer : undefined);
        const took = await round(e, body, origin);
        // The first two rounds of each warm up.
        if (k >= 0) ns[mode].push(took);
      }
    }
  } finally {
    spans.useTracer(tracer);
    await tracing.stop();
    await stopChild(collector);
  }
  const off = median(ns.off);
  const on = median(ns.on);
  console.log(`${ROUNDS} rounds × ${CALLS} calls per mode, medians; load average ${loadAverage()}\n`);
  table([
    { tracing: 'off', 'CPU ns/call': off.toFixed(0), 'on / off': '', 'added µs/call': '' },
    { tracing: 'on (sampled, exported)', 'CPU ns/call': on.toFixed(0), 'on / off': (on / off).toFixed(2), 'added µs/call': ((on - off) / 1000).toFixed(1) },
  ]);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
