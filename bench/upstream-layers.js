'use strict';
/**
 * Where a pass-through call's CPU goes in upstream mode, layer by layer, in one process (no inbound
 * HTTP): `eth_getBalance` of a fresh address against one anvil, 16 calls in flight, each layer called
 * the way the one above it calls it:
 *
 *   undici     undici's Pool.dispatch of the request, the answer read into a string (the floor)
 *   client     the gateway's upstream client (JsonRpcClient.call: its exchange, deadline and the answer's
 *              envelope; the result unread)
 *   pool       the EVM pool's read (UpstreamPool.request: cache, in-flight join, routing, retries, hedges),
 *              the answer unread as the forward path asks for a client's call
 *   engine     the EVM engine (RpcEngine.handle of the request text: envelope, guards, codecs, deadline,
 *              the forward path, the answer text)
 *
 * The gateway runs in this process on dist/ (build first: `npm run bench` does). Prints the CPU time of
 * this process per call, the median of BENCH_ROUNDS rounds (default 4) of BENCH_CALLS calls (default
 * 20,000) per layer, the layers taking turns, and each layer's cost over the one below.
 */
const { mkdtempSync, mkdirSync, writeFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { Pool } = require('undici');
const { ROOT, median, runBenchmark, startAnvil, table } = require('./lib');

const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const IN_FLIGHT = 16;

const dist = (path) => require(join(ROOT, 'dist', path));

runBenchmark(async (started) => {
  const anvil = started(await startAnvil());
  const home = mkdtempSync(join(tmpdir(), 'rpcgw-layers-'));
  started({ stop: async () => rmSync(home, { recursive: true, force: true }) });
  mkdirSync(join(home, 'config'));
  writeFileSync(join(home, 'config', 'gateway.toml'), `[backend]\nkind = "upstream"\n\n[[upstream.evm]]\nname = "anvil"\nurl = "${anvil.url}"\n`);
  const flags = { 'rpc.laddr': 'tcp://127.0.0.1:0', 'json-rpc.enable': 'true', 'json-rpc.address': '127.0.0.1:0', 'json-rpc.ws-address': '127.0.0.1:0' };
  const config = dist('config/load-config').loadConfig({ home, env: {}, flags, pluginNamespaces: () => [] });
  const gw = await dist('bootstrap').startGateway(config, { logger: false });
  started({ stop: () => gw.close() });
  const engine = gw.app.get(dist('rpc/registration').RPC_ENGINE.evm);
  const pool = gw.app.get(dist('backends/upstream/upstream.module').UpstreamPools).evm;
  const client = pool.upstreams[0].client;
  const { LATEST } = dist('rpc/method');
  const undici = new Pool(anvil.url, { connections: 128 });
  started({ stop: () => undici.close() });

  let seq = 0;
  const address = () => `0xdc${(seq++).toString(16).padStart(38, '0')}`;
  const request = () => `{"jsonrpc":"2.0","id":${seq},"method":"eth_getBalance","params":["${address()}","latest"]}`;
  const headers = { 'content-type': 'application/json' };
  const layers = {
    undici: () =>
      new Promise((resolve, reject) => {
        const chunks = [];
        undici.dispatch(
          { path: '/', method: 'POST', headers, body: request() },
          {
            onRequestStart() {},
            onResponseStart() {},
            onResponseData: (_controller, chunk) => chunks.push(chunk),
            onResponseEnd: () => resolve(Buffer.concat(chunks).toString()),
            onResponseError: (_controller, err) => reject(err),
          },
        );
      }),
    client: () => client.call('eth_getBalance', [address(), 'latest'], 10_000, { unread: true }),
    // Unread, as the forward path asks for a client's call that no hook reads.
    pool: () => pool.request({ method: 'eth_getBalance', params: [address(), 'latest'], needs: {}, idempotent: true, cache: LATEST, unread: true }),
    engine: async () => {
      const reply = await engine.handle(request(), { transport: 'jsonrpc', remote: '127.0.0.1:1', bytes: 80 });
      if (!reply.body.includes('"result"')) throw new Error(reply.body);
    },
  };
  const run = async (call, count) => {
    let left = count;
    await Promise.all(Array.from({ length: IN_FLIGHT }, async () => { while (left-- > 0) await call(); }));
  };
  for (const call of Object.values(layers)) await run(call, CALLS / 2);
  const cpu = Object.fromEntries(Object.keys(layers).map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, call] of Object.entries(layers)) {
      const before = process.cpuUsage();
      await run(call, CALLS);
      const used = process.cpuUsage(before);
      cpu[name].push((used.user + used.system) / CALLS);
    }
  }
  let below = 0;
  const rows = Object.entries(cpu).map(([layer, rounds]) => {
    const us = median(rounds);
    const row = { layer, 'CPU µs/call': us.toFixed(1), 'over the layer below': below === 0 ? '' : (us - below).toFixed(1), rounds: rounds.map((r) => r.toFixed(1)).join(' ') };
    below = us;
    return row;
  });
  console.log(`${IN_FLIGHT} calls in flight, ${ROUNDS} rounds of ${CALLS} calls per layer, medians\n`);
  table(rows);
});
