'use strict';
/** Shared pieces of the benchmarks: child processes, readiness, autocannon runs, tables. */
const { spawn, execFileSync } = require('node:child_process');
const { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { dirname, join } = require('node:path');
const net = require('node:net');
const autocannon = require('autocannon');
const { Client } = require('undici');

const ROOT = join(__dirname, '..');
const ANVIL = join(ROOT, 'node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil');

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitFor(check, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error('timed out waiting for readiness');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Spawns `command args`; resolves the child once `ready()` holds (see waitFor). If it never does, the
 * child is stopped and the error thrown: no benchmark leaves a process behind.
 */
async function spawnReady(command, args, ready, { timeoutMs, stdio = ['ignore', 'ignore', 'inherit'] } = {}) {
  const child = spawn(command, args, { stdio });
  try {
    await waitFor(ready, timeoutMs);
  } catch (err) {
    await stopChild(child);
    throw err;
  }
  return child;
}

/**
 * Node running `args`, under `wrap` when given (a command and its arguments, e.g. valgrind's, that runs
 * the rest): the command and arguments to spawn.
 */
function nodeCommand(args, wrap = []) {
  return wrap.length === 0 ? [process.execPath, args] : [wrap[0], [...wrap.slice(1), process.execPath, ...args]];
}

/**
 * Starts `node dist/main.js start` on a fresh ephemeral home, with `files` (path in the home → text,
 * e.g. `config/gateway.toml`) written first; resolves when the node RPC answers. `nodeArgs` go to node
 * itself (e.g. `--cpu-prof`); `wrap` runs node under another command (nodeCommand), `timeoutMs` bounds
 * the start.
 */
async function startGateway(flags = [], files = {}, nodeArgs = [], { wrap, timeoutMs } = {}) {
  const home = mkdtempSync(join(tmpdir(), 'rpcgw-bench-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(home, path)), { recursive: true });
    writeFileSync(join(home, path), text);
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const args = [
    ...nodeArgs, join(ROOT, 'dist/main.js'), 'start', '--home', home, '--devnet.ephemeral', '--rpc.laddr', `tcp://127.0.0.1:${port}`,
    // EVM listeners on ephemeral ports unless a benchmark picks them (a later flag wins).
    '--json-rpc.address', '127.0.0.1:0', '--json-rpc.ws-address', '127.0.0.1:0', ...flags,
  ];
  const child = await spawnReady(...nodeCommand(args, wrap), async () => (await fetch(`${url}/health`)).ok, { timeoutMs }).catch((err) => {
    rmSync(home, { recursive: true, force: true });
    throw err;
  });
  return {
    url,
    pid: child.pid,
    async stop() {
      await stopChild(child);
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** CPU time (user+system, µs) a process has used, from /proc. */
function cpuMicros(pid) {
  const { user, system } = cpuTimes(pid);
  return user + system;
}

/** A process's CPU time (µs) in user space and in the kernel, from /proc. */
function cpuTimes(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { user: (Number(fields[11]) * 1e6) / 100, system: (Number(fields[12]) * 1e6) / 100 };
}

/** Numbers the requests of `bodyAt` runs. */
let bodySeq = 0;

/**
 * One autocannon run; returns requests/s, p50/p99 latency (ms, to 0.01 ms: autocannon's own histogram
 * keeps whole milliseconds) and the request count. With `bodyAt`, request n (counted across runs, so no
 * run repeats an earlier one's) is POSTed with body `bodyAt(n)`.
 */
function load({ url, method = 'GET', body, bodyAt, connections = 32, duration = 5, pipelining = 1 }) {
  const json = { 'content-type': 'application/json' };
  const opts = bodyAt
    ? { requests: [{ method: 'POST', headers: json, setupRequest: (req) => ({ ...req, body: bodyAt(bodySeq++) }) }] }
    : { method, body, headers: body ? json : {} };
  const ms = [];
  return new Promise((resolve, reject) => {
    const run = autocannon({ url, connections, duration, pipelining, ...opts }, (err, r) => {
      if (err) return reject(err);
      if (r.non2xx > 0 || r.errors > 0) return reject(new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`));
      const sorted = Float64Array.from(ms).sort();
      const at = (q) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] * 100) / 100;
      resolve({ rps: r.requests.average, p50: at(0.5), p99: at(0.99), total: r.requests.total });
    });
    run.on('response', (_client, status, _bytes, responseMs) => ms.push(responseMs));
  });
}

/**
 * A 1 s warm-up, then one `load` run of `duration` s; with `pid`, adds `cpu`: that process's CPU time
 * (user+system, from /proc) over the run divided by the requests answered, in µs.
 */
async function measure(pid, request, duration) {
  await load({ ...request, duration: 1 });
  const before = pid === undefined ? 0 : cpuMicros(pid);
  const r = await load({ ...request, duration });
  return { ...r, cpu: pid === undefined ? undefined : (cpuMicros(pid) - before) / r.total };
}

/**
 * The routes ({via: {url, pid}}) measured in turn, `rounds` times each (a busy moment of the machine
 * lands on all of them), POSTing `bodyAt(n)` over `connections` for `duration` s a round: each route's
 * medianRun.
 */
async function measureRounds(routes, { bodyAt, connections }, rounds, duration) {
  const runs = Object.fromEntries(Object.keys(routes).map((via) => [via, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [via, r] of Object.entries(routes)) runs[via].push(await measure(r.pid, { url: `${r.url}/`, bodyAt, connections }, duration));
  }
  return Object.fromEntries(Object.entries(runs).map(([via, r]) => [via, medianRun(r)]));
}

/** Warms up, then measures one case against a gateway process: a table row. */
async function measureCase(name, pid, request, duration) {
  const r = await measure(pid, request, duration);
  return { case: name, 'req/s': Math.round(r.rps), 'p50 ms': r.p50, 'p99 ms': r.p99, 'gateway CPU µs/req': r.cpu.toFixed(0) };
}

const cosmjsId = () => 1e11 + Math.floor(Math.random() * 9e11);

/** A JSON-RPC 2.0 request body; `id` defaults to a random 12-digit number, as CosmJS picks its ids. */
function rpcBody(method, params, id = cosmjsId()) {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

/** POSTs one JSON-RPC call; resolves its result, throws on an error answer. */
async function rpcCall(url, method, params) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: rpcBody(method, params, 1) });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${body.error.message}${body.error.data ? ` (${body.error.data})` : ''}`);
  return body.result;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The median of each figure of several `measure` results. */
function medianRun(runs) {
  const med = (key) => (runs[0][key] === undefined ? undefined : median(runs.map((r) => r[key])));
  const ms = (key) => Math.round(med(key) * 100) / 100;
  return { rps: med('rps'), p50: ms('p50'), p99: ms('p99'), total: med('total'), cpu: med('cpu'), runs };
}

/** /proc/loadavg's 1, 5 and 15 min figures: how busy the machine was around a run. */
function loadAverage() {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

function table(rows) {
  const cols = Object.keys(rows[0]);
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (vals) => vals.map((v, i) => String(v).padEnd(widths[i])).join('  ');
  console.log(line(cols));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const r of rows) console.log(line(cols.map((c) => r[c])));
}

/** The nginx binary, or undefined when it is not installed (Debian: apt-get install -y nginx). */
function findNginx() {
  for (const p of ['/usr/sbin/nginx', '/usr/bin/nginx']) if (existsSync(p)) return p;
  try {
    return execFileSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * nginx as a plain reverse proxy in front of `target` (http://host:port): a child process on a
 * generated config in a temp dir, one worker (the gateway is one Node process), 127.0.0.1 only, HTTP/1.1
 * keepalive to the upstream, no access log, no per-connection request limit on either side.
 */
async function startNginx(nginx, target) {
  const dir = mkdtempSync(join(tmpdir(), 'rpcgw-nginx-'));
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, 'logs'));
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${dir}/${t};`).join('\n');
  writeFileSync(
    conf,
    `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000000;
${temp}
  upstream target { server ${target.replace(/^http:\/\//, '')}; keepalive 64; keepalive_requests 1000000; }
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
  const url = `http://127.0.0.1:${port}`;
  const child = await spawnReady(nginx, ['-e', `${dir}/logs/error.log`, '-c', conf, '-p', dir], answersPost(url), { timeoutMs: 10_000 }).catch((err) => {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  });
  // The worker does the proxying; its master only supervises.
  const workerPid = Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(' ')[0]);
  return {
    url,
    workerPid,
    async stop() {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * anvil on an ephemeral port (node_modules/@foundry-rs/anvil-linux-amd64), with block 1 holding 20
 * transfers (a realistic body to pass on) and a few more blocks after it.
 */
async function startAnvil() {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const ready = async () => (await rpcCall(url, 'eth_chainId', [])) !== undefined;
  const child = await spawnReady(ANVIL, ['--port', String(port), '--host', '127.0.0.1', '--silent'], ready, { stdio: 'ignore' });
  try {
    const accounts = await rpcCall(url, 'eth_accounts', []);
    await rpcCall(url, 'evm_setAutomine', [false]);
    for (let i = 0; i < 20; i++) await rpcCall(url, 'eth_sendTransaction', [{ from: accounts[0], to: accounts[1 + (i % 5)], value: '0x1' }]);
    await rpcCall(url, 'evm_mine', []);
    await rpcCall(url, 'evm_setAutomine', [true]);
    for (let i = 0; i < 3; i++) await rpcCall(url, 'evm_mine', []);
  } catch (err) {
    await stopChild(child);
    throw err;
  }
  return { url, pid: child.pid, stop: () => stopChild(child) };
}

/**
 * A gateway in upstream mode over one devnet (node RPC) and one anvil (EVM); resolves once both
 * interfaces answer. `batchMaxSize`: its [upstream] batch_max_size (left out: the default, every call
 * sent alone). `nodeArgs` go to node itself (e.g. `--cpu-prof`); `tables`: more of gateway.toml (e.g.
 * `[cache]` keys), appended; `launch`: startGateway's `{ wrap, timeoutMs }` and `flags`, more command-line
 * flags (e.g. `--set upstream.latest_ttl=0`).
 */
async function startUpstreamGateway(devnetUrl, anvilUrl, batchMaxSize, nodeArgs = [], tables = [], launch = {}) {
  const toml = [
    '[backend]', 'kind = "upstream"', '', ...tables, '',
    '[upstream]', 'health_check_interval = "1s"', ...(batchMaxSize === undefined ? [] : [`batch_max_size = ${batchMaxSize}`]), '',
    '[[upstream.node]]', 'name = "devnet"', `url = "${devnetUrl}"`, '',
    '[[upstream.evm]]', 'name = "anvil"', `url = "${anvilUrl}"`, `ws = "${anvilUrl.replace(/^http/, 'ws')}"`, '',
  ].join('\n');
  const evmPort = await freePort();
  const gw = await startGateway(['--json-rpc.enable', 'true', '--json-rpc.address', `127.0.0.1:${evmPort}`, ...(launch.flags ?? [])], { 'config/gateway.toml': toml }, nodeArgs, launch);
  const evmUrl = `http://127.0.0.1:${evmPort}`;
  await waitFor(async () => (await rpcCall(evmUrl, 'eth_blockNumber', [])) !== undefined, launch.timeoutMs).catch(async (err) => {
    await gw.stop();
    throw err;
  });
  return { ...gw, evmUrl };
}

/** Resolves once `url` answers a POST at all (any status). */
const answersPost = (url) => async () => (await fetch(`${url}/`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status > 0;

/**
 * bench/bare-proxy.js in front of `target` (http://host:port); `mode`: bytes (copied through) or parse;
 * `busy`: CPU work added to every call, `<µs>@before` or `<µs>@after` the upstream write; `nodeArgs`,
 * `wrap` and `timeoutMs` as startGateway's.
 */
async function startBareProxy(target, mode = 'bytes', busy = '0@after', { nodeArgs = [], wrap, timeoutMs = 10_000 } = {}) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = await spawnReady(...nodeCommand([...nodeArgs, join(__dirname, 'bare-proxy.js'), String(port), target, mode, busy], wrap), answersPost(url), { timeoutMs });
  return { url, pid: child.pid, stop: () => stopChild(child) };
}

/** node:http answering every request, once its body is read, with `answer` under `headers`. */
const CONSTANT_SERVER = `
const [port, answer, headers] = process.argv.slice(1);
const body = Buffer.from(answer);
const head = JSON.parse(headers);
require('node:http')
  .createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, head);
      res.end(body);
    });
  })
  .listen(Number(port), '127.0.0.1');
`;

/**
 * The floor of any Node.js HTTP server on this machine: node:http answering every request with the
 * constant `answer` (a string) under `headers`, in a process of its own; `nodeArgs`, `wrap` and
 * `timeoutMs` as startGateway's.
 */
async function startConstantServer(answer, headers = { 'content-type': 'application/json' }, { nodeArgs = [], wrap, timeoutMs } = {}) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = await spawnReady(...nodeCommand([...nodeArgs, '-e', CONSTANT_SERVER, String(port), answer, JSON.stringify(headers)], wrap), answersPost(url), { timeoutMs });
  return { url, pid: child.pid, stop: () => stopChild(child) };
}

/**
 * Every route ({via: {url}}, as measureRounds and takeTurns take them) answers `body` (a JSON-RPC call,
 * or a batch: each member) with a result, not an error; throws naming the first that does not.
 */
async function checkRoutes(routes, body, name) {
  for (const [via, { url }] of Object.entries(routes)) {
    const res = await fetch(`${url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const answer = await res.json();
    // A batch's answer: every member answered with a result.
    const answers = Array.isArray(answer) ? answer : [answer];
    if (!res.ok || answers.length === 0 || answers.some((a) => a.error !== undefined || a.result === undefined)) throw new Error(`${name} via ${via}: ${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
  }
}

/**
 * One keep-alive connection to `url` (undici Client, no pipelining): `post(body)` POSTs to `/` and
 * resolves the time from sending to the answer's last byte, in µs; a status other than 200 rejects.
 */
function sequentialClient(url) {
  const client = new Client(url, { pipelining: 1, keepAliveTimeout: 60_000 });
  const headers = { 'content-type': 'application/json' };
  return {
    post(body) {
      return new Promise((resolve, reject) => {
        let status = 0;
        const started = process.hrtime.bigint();
        client.dispatch(
          { path: '/', method: 'POST', headers, body },
          {
            onRequestStart() {},
            onResponseStart(_controller, statusCode) {
              status = statusCode;
            },
            onResponseData() {},
            onResponseEnd() {
              const us = Number(process.hrtime.bigint() - started) / 1000;
              if (status === 200) resolve(us);
              else reject(new Error(`${url}: HTTP ${status}`));
            },
            onResponseError(_controller, err) {
              reject(err);
            },
          },
        );
      });
    },
    close: () => client.close(),
  };
}

/**
 * One request at a time on every route, `count` requests each: in each turn every route gets the next
 * `turn` bodies (`next()`), the routes' order rotating so that none always follows the same one (a busy
 * moment of a shared machine lands on all of them). Turns of one request keep every process's caches as
 * cold as they get, the other routes' processes running in between; longer turns (100) time each process
 * as a server busy with one client is, its code and data still in the caches. `routes`: {via: {pid}},
 * `clients`: {via: sequentialClient}. Returns each route's latencies (µs) and each serving process's CPU
 * time over the turns (µs), by pid: `cpu` in all, `system` in the kernel.
 */
async function takeTurns(routes, clients, next, count, turn = 1) {
  const vias = Object.keys(routes);
  const pids = [...new Set(vias.map((via) => routes[via].pid))];
  const before = new Map(pids.map((pid) => [pid, cpuTimes(pid)]));
  const latencies = Object.fromEntries(vias.map((via) => [via, new Float64Array(count)]));
  if (!Number.isInteger(turn) || turn < 1) throw new Error(`turn ${turn}: expected a whole number of requests, at least 1`);
  for (let i = 0; i < count; i += turn) {
    for (let k = 0; k < vias.length; k++) {
      const via = vias[(i / turn + k) % vias.length];
      for (let j = i; j < Math.min(count, i + turn); j++) latencies[via][j] = await clients[via].post(next());
    }
  }
  const after = new Map(pids.map((pid) => [pid, cpuTimes(pid)]));
  const cpu = new Map(pids.map((pid) => [pid, after.get(pid).user + after.get(pid).system - before.get(pid).user - before.get(pid).system]));
  const system = new Map(pids.map((pid) => [pid, after.get(pid).system - before.get(pid).system]));
  return { latencies, cpu, system };
}

/** The q-quantile (0..1) of `sorted` (ascending). */
function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** The nginx binary; exits the benchmark with a hint when it is not installed. */
function requireNginx() {
  const nginx = findNginx();
  if (nginx) return nginx;
  console.error('nginx is not installed: the comparison needs it (Debian/Ubuntu: apt-get install -y nginx). Nothing measured.');
  process.exit(2);
}

/**
 * Runs a benchmark: `body(started)`, where `started(x)` returns `x` (anything with a `stop()`) and has
 * it stopped at the end, last started first, whatever happens. An error is printed and exits non-zero.
 */
function runBenchmark(body) {
  const stops = [];
  const started = (x) => {
    stops.push(x.stop);
    return x;
  };
  const run = async () => {
    try {
      await body(started);
    } finally {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
    }
  };
  run().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

/** The upstreams of the upstream-mode benchmarks: one anvil (EVM) and one embedded devnet gateway (node RPC, 1 s blocks). */
async function startUpstreams(started) {
  const anvil = started(await startAnvil());
  const devnet = started(await startGateway(['--devnet.block_time', '1s']));
  return { anvil, devnet };
}

/** Prints a benchmark's figures, then its ratios, then the load average at the end. */
function printResults(rows, ratios) {
  table(rows);
  console.log('');
  table(ratios);
  console.log(`\nload average at the end ${loadAverage()}`);
}

/** SIGTERM, and resolves once the process has exited (at once if it already has). */
function stopChild(child) {
  if (!child || child.exitCode !== null) return Promise.resolve();
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  return exited;
}

module.exports = {
  ROOT,
  freePort,
  waitFor,
  spawnReady,
  startGateway,
  stopChild,
  cpuMicros,
  load,
  measure,
  measureCase,
  median,
  medianRun,
  measureRounds,
  loadAverage,
  rpcBody,
  rpcCall,
  findNginx,
  startNginx,
  requireNginx,
  runBenchmark,
  printResults,
  startAnvil,
  startUpstreams,
  startUpstreamGateway,
  startBareProxy,
  startConstantServer,
  checkRoutes,
  sequentialClient,
  takeTurns,
  quantile,
  table,
};
