'use strict';
/**
 * The gateway as an upstream proxy, against the same upstream reached directly and through nginx, in
 * one run on one machine with one load generator (autocannon, in this process):
 *
 *   eth_blockNumber                        pass-through (identical concurrent calls are joined: dedup)
 *   eth_getBalance(unique address)         pass-through that neither cache nor dedup can serve
 *   eth_getBlockByNumber(0x1, true)        a past block (20 txs): served from the gateway's cache
 *   node RPC block?height=2                a past block: served from the gateway's cache
 *
 * Upstreams: anvil (node_modules/@foundry-rs/anvil-linux-amd64) for the EVM calls, an embedded-devnet
 * gateway (bench/lib.js startGateway) for the node RPC. nginx (Debian package; `apt-get install -y
 * nginx`) runs with a generated config in a temp dir: one worker (the gateway is one Node process),
 * loopback only, upstream keepalive 64. Prints req/s, p50, p99, the gateway's CPU time per request and
 * the ratios the targets are stated in. Environment: BENCH_DURATION (s, default 5), BENCH_CONNECTIONS
 * (default 32).
 */
const { spawn, execFileSync } = require('node:child_process');
const { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const autocannon = require('autocannon');
const { ROOT, freePort, waitFor, startGateway, stopChild, cpuMicros, load, table } = require('./lib');

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ANVIL = join(ROOT, 'node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil');

const post = async (url, method, params) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
};

function findNginx() {
  for (const p of ['/usr/sbin/nginx', '/usr/bin/nginx']) if (existsSync(p)) return p;
  try {
    return execFileSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

async function startAnvil() {
  const port = await freePort();
  const child = spawn(ANVIL, ['--port', String(port), '--host', '127.0.0.1', '--silent'], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await post(url, 'eth_chainId', [])) !== undefined);
  // Block 1 with 20 transfers (a realistic body to pass on), then a few more blocks.
  const accounts = await post(url, 'eth_accounts', []);
  await post(url, 'evm_setAutomine', [false]);
  for (let i = 0; i < 20; i++) await post(url, 'eth_sendTransaction', [{ from: accounts[0], to: accounts[1 + (i % 5)], value: '0x1' }]);
  await post(url, 'evm_mine', []);
  await post(url, 'evm_setAutomine', [true]);
  for (let i = 0; i < 3; i++) await post(url, 'evm_mine', []);
  return { url, port, pid: child.pid, stop: () => stopChild(child) };
}

async function startNginx(nginx, target) {
  const dir = mkdtempSync(join(tmpdir(), 'rpcgw-nginx-'));
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, 'logs'));
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream target { server ${target.replace(/^http:\/\//, '')}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://target;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`,
  );
  const child = spawn(nginx, ['-c', conf, '-p', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status > 0, 10_000);
  return {
    url,
    async stop() {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The EVM RPC over an upstream pool. While src/app.module.ts does not import EvmRpcModule, `main.js
 * start` serves no EVM RPC; this host builds the same modules the app would (config, events, the
 * upstream backend, EvmRpcModule) from dist/. On SIGUSR2 it writes the EVM pool's stats to `statsFile`.
 */
const EVM_HOST = `
require('reflect-metadata');
const { Global, Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { writeFileSync } = require('node:fs');
const d = (p) => require(process.env.RPCGW_ROOT + '/dist/' + p);
const { loadConfig } = d('config/load-config');
const { GatewayConfigModule } = d('config/config.module');
const { EventsModule } = d('events/events.module');
const { UpstreamModule } = d('backends/upstream/upstream.module');
const { EvmRpcModule } = d('evm-rpc/evm-rpc.module');
const { EVM_BACKEND } = d('backends/evm-backend');
(async () => {
  const config = loadConfig({ home: process.env.RPCGW_HOME, env: {}, flags: JSON.parse(process.env.RPCGW_FLAGS) });
  class BackendModule {}
  Global()(BackendModule);
  Module({ imports: [UpstreamModule], exports: [UpstreamModule] })(BackendModule);
  class HostModule {}
  Module({ imports: [GatewayConfigModule.forRoot(config), EventsModule, BackendModule, EvmRpcModule] })(HostModule);
  const app = await NestFactory.createApplicationContext(HostModule, { logger: ['error'] });
  const backend = app.get(EVM_BACKEND);
  process.on('SIGUSR2', () => writeFileSync(process.env.RPCGW_STATS, JSON.stringify(backend.pool.stats())));
  process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
})().catch((err) => { console.error(err); process.exit(1); });
`;

async function startUpstreamGateways(anvilUrl, devnetUrl) {
  const home = mkdtempSync(join(tmpdir(), 'rpcgw-bench-up-'));
  mkdirSync(join(home, 'config'));
  writeFileSync(
    join(home, 'config', 'gateway.toml'),
    ['[backend]', 'kind = "upstream"', '', '[upstream]', 'health_check_interval = "1s"', '', '[[upstream.node]]', 'name = "devnet"', `url = "${devnetUrl}"`, '', '[[upstream.evm]]', 'name = "anvil"', `url = "${anvilUrl}"`, `ws = "${anvilUrl.replace(/^http/, 'ws')}"`, ''].join('\n'),
  );
  const appServesEvm = readFileSync(join(ROOT, 'dist/app.module.js'), 'utf8').includes('EvmRpcModule');
  const [rpcPort, evmPort, wsPort] = [await freePort(), await freePort(), await freePort()];
  const evmFlags = { 'json-rpc.enable': 'true', 'json-rpc.address': `127.0.0.1:${evmPort}`, 'json-rpc.ws-address': `127.0.0.1:${wsPort}` };
  const mainArgs = [join(ROOT, 'dist/main.js'), 'start', '--home', home, '--rpc.laddr', `tcp://127.0.0.1:${rpcPort}`];
  if (appServesEvm) for (const [k, v] of Object.entries(evmFlags)) mainArgs.push(`--${k}`, v);
  const node = spawn(process.execPath, mainArgs, { stdio: ['ignore', 'ignore', 'inherit'] });
  const statsFile = join(home, 'evm-stats.json');
  const evm = appServesEvm
    ? node
    : spawn(process.execPath, ['-e', EVM_HOST], {
        stdio: ['ignore', 'ignore', 'inherit'],
        env: { ...process.env, RPCGW_ROOT: ROOT, RPCGW_HOME: home, RPCGW_FLAGS: JSON.stringify(evmFlags), RPCGW_STATS: statsFile },
      });
  const nodeUrl = `http://127.0.0.1:${rpcPort}`;
  const evmUrl = `http://127.0.0.1:${evmPort}`;
  await waitFor(async () => (await fetch(`${nodeUrl}/health`)).ok);
  await waitFor(async () => (await post(evmUrl, 'eth_blockNumber', [])) !== undefined);
  return {
    nodeUrl,
    evmUrl,
    nodePid: node.pid,
    evmPid: evm.pid,
    mode: appServesEvm ? 'main.js' : 'EvmRpcModule host (AppModule does not import EvmRpcModule yet)',
    /** EVM pool stats (host mode only). */
    async evmStats() {
      if (appServesEvm) return undefined;
      rmSync(statsFile, { force: true });
      evm.kill('SIGUSR2');
      await waitFor(() => existsSync(statsFile), 5000);
      await new Promise((r) => setTimeout(r, 50));
      return JSON.parse(readFileSync(statsFile, 'utf8'));
    },
    async stop() {
      await Promise.all([stopChild(node), evm === node ? undefined : stopChild(evm)]);
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Bodies numbered across runs, so that no run repeats an earlier one's. */
let uniqueSeq = 0;

/** An autocannon run whose every request has its own body (no two alike: neither cache nor dedup helps). */
function loadUnique({ url, bodyAt, connections = CONNECTIONS, duration }) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections,
        duration,
        requests: [{ method: 'POST', headers: { 'content-type': 'application/json' }, setupRequest: (req) => ({ ...req, body: bodyAt(uniqueSeq++) }) }],
      },
      (err, r) => {
        if (err) return reject(err);
        if (r.non2xx > 0 || r.errors > 0) return reject(new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`));
        resolve({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, total: r.requests.total });
      },
    );
  });
}

async function main() {
  const nginx = findNginx();
  if (!nginx) {
    console.error('nginx is not installed: the comparison needs it (Debian: apt-get install -y nginx). Nothing measured.');
    process.exit(2);
  }
  const stops = [];
  try {
    const anvil = await startAnvil();
    stops.push(anvil.stop);
    const devnet = await startGateway(['--devnet.block_time', '1s']);
    stops.push(devnet.stop);
    await new Promise((r) => setTimeout(r, 3000)); // a few devnet blocks: height 2 is a past block
    const ngEvm = await startNginx(nginx, anvil.url);
    stops.push(ngEvm.stop);
    const ngNode = await startNginx(nginx, devnet.url);
    stops.push(ngNode.stop);
    const gw = await startUpstreamGateways(anvil.url, devnet.url);
    stops.push(gw.stop);
    console.log(`gateway EVM side: ${gw.mode}; ${CONNECTIONS} connections, ${DURATION}s per run, load generator on the same machine`);

    const rpc = (method, params) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
    const balanceAt = (n) => rpc('eth_getBalance', [`0x${(n + 1).toString(16).padStart(40, '0')}`, 'latest']);
    const cases = [
      { name: 'eth_blockNumber', body: rpc('eth_blockNumber', []), urls: { direct: anvil.url, nginx: ngEvm.url, gateway: gw.evmUrl }, pid: gw.evmPid },
      { name: 'eth_getBalance (unique)', bodyAt: balanceAt, urls: { direct: anvil.url, nginx: ngEvm.url, gateway: gw.evmUrl }, pid: gw.evmPid },
      { name: 'eth_getBlockByNumber(0x1,true)', body: rpc('eth_getBlockByNumber', ['0x1', true]), urls: { direct: anvil.url, nginx: ngEvm.url, gateway: gw.evmUrl }, pid: gw.evmPid },
      { name: 'node block h=2', body: rpc('block', { height: '2' }), urls: { direct: devnet.url, nginx: ngNode.url, gateway: gw.nodeUrl }, pid: gw.nodePid },
    ];
    const rows = [];
    const ratios = [];
    for (const c of cases) {
      const got = {};
      for (const [via, url] of Object.entries(c.urls)) {
        const run = (duration) =>
          c.bodyAt ? loadUnique({ url, bodyAt: c.bodyAt, duration }) : load({ url: `${url}/`, method: 'POST', body: c.body, connections: CONNECTIONS, duration });
        await run(1); // warm-up (and, through the gateway, fills its cache)
        const before = via === 'gateway' ? cpuMicros(c.pid) : 0;
        const statsBefore = via === 'gateway' && c.pid === gw.evmPid ? await gw.evmStats() : undefined;
        const r = await run(DURATION);
        const cpu = via === 'gateway' ? (cpuMicros(c.pid) - before) / r.total : undefined;
        const statsAfter = statsBefore ? await gw.evmStats() : undefined;
        let upstreamPerReq = '';
        if (statsBefore && statsAfter) {
          const sent = statsAfter.upstreams[0].requests - statsBefore.upstreams[0].requests;
          upstreamPerReq = (sent / r.total).toFixed(2);
        }
        got[via] = r;
        rows.push({
          case: c.name,
          via,
          'req/s': Math.round(r.rps),
          'p50 ms': r.p50,
          'p99 ms': r.p99,
          'gw CPU µs/req': cpu === undefined ? '' : cpu.toFixed(1),
          'upstream calls/req': upstreamPerReq,
        });
      }
      ratios.push({
        case: c.name,
        'gw/nginx req/s': (got.gateway.rps / got.nginx.rps).toFixed(2),
        'gw/direct req/s': (got.gateway.rps / got.direct.rps).toFixed(2),
        'gw−nginx p50 ms': (got.gateway.p50 - got.nginx.p50).toFixed(2),
        'gw−direct p50 ms': (got.gateway.p50 - got.direct.p50).toFixed(2),
      });
    }
    table(rows);
    console.log('');
    table(ratios);
    console.log('\ntargets: pass-through gw/nginx req/s ≥ 0.60, added p50 ≤ 1 ms, gateway CPU ≤ 50 µs/req; cached reads at least nginx pass-through speed');
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
