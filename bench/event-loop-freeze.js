'use strict';
/**
 * Does a heavy client call freeze the gateway? The gateway on the embedded devnet with its defaults
 * (block_time 1 s, evm-timeout 10 s, gas cap 25M): 3 clients loop an `eth_call` of `0x5b5f56` (JUMPDEST
 * PUSH0 JUMP, an infinite loop: each call runs to its deadline or the gas cap) while another client asks
 * the node RPC's `GET /health` every 20 ms; then the same with evm-timeout 2s. Prints /health latency
 * p50/p99/max, the blocks whose time falls in the window, the looping calls answered, the gateway's CPU
 * over the window (until the last looping call is answered), and its CPU in the second after that (does
 * the work stop with the answer?).
 */
const { freePort, startGateway, cpuMicros, quantile, table } = require('./lib');

const DURATION_MS = Number(process.env.BENCH_DURATION ?? 10) * 1000;
const CLIENTS = 3;
const HEALTH_EVERY_MS = 20;
const LOOP = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ data: '0x5b5f56' }, 'latest'] });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function loopCalls(url, until, answers) {
  while (Date.now() < until) {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: LOOP });
    const body = await res.json();
    answers.push(body.error?.message ?? 'result');
  }
}

async function measureHealth(url, until) {
  const ms = [];
  while (Date.now() < until) {
    const t0 = performance.now();
    const res = await fetch(`${url}/health`);
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`/health: ${res.status}`);
    ms.push(performance.now() - t0);
    await sleep(HEALTH_EVERY_MS);
  }
  return ms.sort((a, b) => a - b);
}

/** Blocks whose header time is within [from, to] (ms since the epoch), counted from the node RPC. */
async function blocksBetween(url, fromHeight, from, to) {
  const status = await (await fetch(`${url}/status`)).json();
  const latest = Number(status.result.sync_info.latest_block_height);
  let count = 0;
  for (let max = latest; max >= fromHeight; max -= 20) {
    const min = Math.max(fromHeight, max - 19);
    const page = await (await fetch(`${url}/blockchain?minHeight=${min}&maxHeight=${max}`)).json();
    for (const meta of page.result.block_metas) {
      const at = Date.parse(meta.header.time);
      if (at >= from && at <= to) count++;
    }
  }
  return count;
}

/** One run of the load against a gateway started with `flags`: a table row. */
async function run(name, files) {
  const evmPort = await freePort();
  const gw = await startGateway(['--json-rpc.enable', '--json-rpc.address', `127.0.0.1:${evmPort}`], files);
  const evmUrl = `http://127.0.0.1:${evmPort}`;
  try {
    const status = await (await fetch(`${gw.url}/status`)).json();
    const fromHeight = Number(status.result.sync_info.latest_block_height);
    const cpuBefore = cpuMicros(gw.pid);
    const from = Date.now();
    const until = from + DURATION_MS;
    const answers = [];
    const [health] = await Promise.all([measureHealth(gw.url, until), ...Array.from({ length: CLIENTS }, () => loopCalls(evmUrl, until, answers))]);
    const to = Date.now();
    const cpuAtEnd = cpuMicros(gw.pid);
    await sleep(1000);
    const cpuAfter = (cpuMicros(gw.pid) - cpuAtEnd) / 1e6;
    return {
      case: name,
      '/health p50 ms': quantile(health, 0.5).toFixed(1),
      '/health p99 ms': quantile(health, 0.99).toFixed(1),
      '/health max ms': health[health.length - 1].toFixed(1),
      '/health answers': health.length,
      [`blocks in ${DURATION_MS / 1000} s`]: await blocksBetween(gw.url, fromHeight, from, until),
      'eth_call answers': answers.length,
      'eth_call answered': [...new Set(answers)].join('; '),
      'window s': ((to - from) / 1000).toFixed(1),
      'gateway CPU s': ((cpuAtEnd - cpuBefore) / 1e6).toFixed(1),
      'CPU s in the next 1 s': cpuAfter.toFixed(2),
    };
  } finally {
    await gw.stop();
  }
}

async function main() {
  // Defaults: each call ends at the gas cap; with evm-timeout 2s, at its deadline.
  table([await run('defaults', {}), await run('evm-timeout 2s', { 'config/app.toml': '[json-rpc]\nevm-timeout = "2s"\n' })]);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
