'use strict';
/**
 * Node RPC over the embedded devnet: status and block at a fixed height, over URI and JSON-RPC.
 * Prints requests/s and p50/p99 latency, and the gateway's CPU time per request.
 */
const { startGateway, measureCase, table } = require('./lib');

const DURATION = Number(process.env.BENCH_DURATION ?? 5);

async function main() {
  const gw = await startGateway(['--devnet.block_time', '1s']);
  try {
    // Let a few blocks exist so that `block?height=2` is a past block.
    await new Promise((r) => setTimeout(r, 3000));
    const rpc = (method, params) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
    const cases = [
      { name: 'status (URI)', url: `${gw.url}/status` },
      { name: 'status (JSON-RPC)', url: `${gw.url}/`, method: 'POST', body: rpc('status', {}) },
      { name: 'block h=2 (URI)', url: `${gw.url}/block?height=2` },
      { name: 'block h=2 (JSON-RPC)', url: `${gw.url}/`, method: 'POST', body: rpc('block', { height: '2' }) },
    ];
    const rows = [];
    for (const { name, ...request } of cases) rows.push(await measureCase(name, gw.pid, request, DURATION));
    table(rows);
  } finally {
    await gw.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
