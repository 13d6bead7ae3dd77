'use strict';
/** Shared pieces of the benchmarks: child processes, readiness, autocannon runs, tables. */
const { spawn } = require('node:child_process');
const { mkdirSync, mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { dirname, join } = require('node:path');
const net = require('node:net');
const autocannon = require('autocannon');

const ROOT = join(__dirname, '..');

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
 * Starts `node dist/main.js start` on a fresh ephemeral home, with `files` (path in the home → text,
 * e.g. `config/gateway.toml`) written first; resolves when the node RPC answers.
 */
async function startGateway(flags = [], files = {}) {
  const home = mkdtempSync(join(tmpdir(), 'rpcgw-bench-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(home, path)), { recursive: true });
    writeFileSync(join(home, path), text);
  }
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [join(ROOT, 'dist/main.js'), 'start', '--home', home, '--devnet.ephemeral', '--rpc.laddr', `tcp://127.0.0.1:${port}`,
     // EVM listeners on ephemeral ports unless a benchmark picks them (a later flag wins).
     '--json-rpc.address', '127.0.0.1:0', '--json-rpc.ws-address', '127.0.0.1:0', ...flags],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/health`)).ok);
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
  const { readFileSync } = require('node:fs');
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1e6) / 100;
}

/** One autocannon run; returns requests/s, p50/p99 latency (ms) and the request count. */
function load({ url, method = 'GET', body, connections = 32, duration = 5, pipelining = 1 }) {
  return new Promise((resolve, reject) => {
    autocannon(
      { url, method, body, connections, duration, pipelining, headers: body ? { 'content-type': 'application/json' } : {} },
      (err, r) => {
        if (err) return reject(err);
        if (r.non2xx > 0 || r.errors > 0) return reject(new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`));
        resolve({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, total: r.requests.total });
      },
    );
  });
}

/** Warms up, then measures one case against a gateway process: a table row. */
async function measureCase(name, pid, request, duration) {
  await load({ ...request, duration: 1 });
  const before = cpuMicros(pid);
  const r = await load({ ...request, duration });
  const cpu = (cpuMicros(pid) - before) / r.total;
  return { case: name, 'req/s': Math.round(r.rps), 'p50 ms': r.p50, 'p99 ms': r.p99, 'gateway CPU µs/req': cpu.toFixed(0) };
}

function table(rows) {
  const cols = Object.keys(rows[0]);
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (vals) => vals.map((v, i) => String(v).padEnd(widths[i])).join('  ');
  console.log(line(cols));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const r of rows) console.log(line(cols.map((c) => r[c])));
}

/** SIGTERM, and resolves once the process has exited (at once if it already has). */
function stopChild(child) {
  if (!child || child.exitCode !== null) return Promise.resolve();
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  return exited;
}

module.exports = { ROOT, freePort, waitFor, startGateway, stopChild, cpuMicros, load, measureCase, table };
