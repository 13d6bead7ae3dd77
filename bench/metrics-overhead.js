'use strict';
/**
 * The cost of instrumentation: the same built gateway with `[instrumentation] prometheus` off and on
 * (scraped every 5 s meanwhile, three times Prometheus's default rate), status and block over URI and
 * JSON-RPC. Both run side by side and each case alternates between them over several rounds, so that
 * drift of the machine hits both alike; each figure is the median of its rounds. Prints requests/s and
 * gateway CPU time per request of each, and the on/off ratios (target ≥ 0.95).
 */
const { startGateway, freePort, load, table, cpuMicros } = require('./lib');

const DURATION = Number(process.env.BENCH_DURATION ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SCRAPE_MS = 5000;
const TARGET = 0.95;

function geomean(values) {
  return Math.exp(values.reduce((s, v) => s + Math.log(v), 0) / values.length);
}

async function main() {
  const metricsPort = await freePort();
  // The EVM RPC is off: both gateways would want its fixed ports, and this measures the node RPC.
  const common = ['--devnet.block_time', '1s', '--json-rpc.enable', 'false'];
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  let off;
  let on;
  let scraper;
  try {
    off = await startGateway(common);
    on = await startGateway([...common, '--instrumentation.prometheus', 'true', '--set', `instrumentation.prometheus_listen_addr=127.0.0.1:${metricsPort}`]);
    // Let a few blocks exist so that `block?height=2` is a past block.
    await new Promise((r) => setTimeout(r, 3000));
    const scrapeBytes = (await (await fetch(metricsUrl)).text()).length;
    const rpc = (method, params) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
    const cases = [
      { name: 'status (URI)', path: '/status' },
      { name: 'status (JSON-RPC)', path: '/', method: 'POST', body: rpc('status', {}) },
      { name: 'block h=2 (URI)', path: '/block?height=2' },
      { name: 'block h=2 (JSON-RPC)', path: '/', method: 'POST', body: rpc('block', { height: '2' }) },
    ];
    scraper = setInterval(() => void fetch(metricsUrl).then((r) => r.text()).catch(() => undefined), SCRAPE_MS);
    const rows = [];
    const ratios = [];
    const cpuRatios = [];
    for (const c of cases) {
      const runs = { off: [], on: [] };
      const cpu = { off: [], on: [] };
      const run = async (gw, key, duration) => {
        const before = cpuMicros(gw.pid);
        const r = await load({ url: gw.url + c.path, method: c.method, body: c.body, duration });
        if (duration !== DURATION) return;
        runs[key].push(r.rps);
        cpu[key].push((cpuMicros(gw.pid) - before) / r.total);
      };
      await run(off, 'off', 1); // warm-up
      await run(on, 'on', 1);
      for (let round = 0; round < ROUNDS; round++) {
        // Alternate which goes first.
        if (round % 2 === 0) {
          await run(off, 'off', DURATION);
          await run(on, 'on', DURATION);
        } else {
          await run(on, 'on', DURATION);
          await run(off, 'off', DURATION);
        }
      }
      const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
      const offRps = median(runs.off);
      const onRps = median(runs.on);
      ratios.push(onRps / offRps);
      cpuRatios.push(median(cpu.off) / median(cpu.on));
      rows.push({
        case: c.name,
        'off req/s': Math.round(offRps),
        'on req/s': Math.round(onRps),
        'on/off': (onRps / offRps).toFixed(3),
        'off CPU µs/req': median(cpu.off).toFixed(1),
        'on CPU µs/req': median(cpu.on).toFixed(1),
        'CPU off/on': (median(cpu.off) / median(cpu.on)).toFixed(3),
      });
    }
    clearInterval(scraper);
    table(rows);
    const overall = geomean(ratios);
    const scrape = await (await fetch(metricsUrl)).text();
    const counted = [...scrape.matchAll(/^rpcgw_requests_total\{[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
    const cpuOverall = geomean(cpuRatios);
    const verdict = (r) => `target ≥ ${TARGET}: ${r >= TARGET ? 'met' : 'NOT met'}`;
    console.log(`\nthroughput ratio, metrics on / off (geometric mean of the cases): ${overall.toFixed(3)} (${verdict(overall)})`);
    console.log(`CPU-per-request ratio, off / on (the same, from the gateway's own CPU time): ${cpuOverall.toFixed(3)} (${verdict(cpuOverall)})`);
    console.log(`calls counted by rpcgw_requests_total: ${counted}; /metrics size at start ${scrapeBytes} B, at end ${scrape.length} B`);
  } finally {
    clearInterval(scraper);
    await Promise.all([off?.stop(), on?.stop()]);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
