'use strict';
/**
 * Soak: `node bench/soak.js [--minutes 30] [--sample-seconds 30]` (after `npm run build`; not in
 * `npm run bench`). One gateway on the embedded devnet (1 s blocks, its chain stored in the temp home
 * rather than in memory, so that the chain's own growth is not counted as the gateway's), Prometheus on,
 * the broadcast queue on BullMQ (Redis at REDIS_URL, default redis://127.0.0.1:6379, under a key prefix
 * of this run, removed afterwards), under a steady mixed load for the whole run (see MIX and main()):
 * node RPC reads over URI GET and JSON-RPC POST, EVM reads, batches on both interfaces, WebSocket
 * clients on both interfaces that connect, subscribe, hold, unsubscribe (or drop) and disconnect,
 * churned all along, EVM polling filters created, polled and uninstalled, and some left to expire,
 * signed EVM transfers and contract calls (eth_sendRawTransaction) and kvstore txs (broadcast_tx_sync).
 * It is about leaks, not throughput: the rates are low and fixed.
 *
 * The gateway's /metrics (and its /proc/<pid>/status) is read every second; every --sample-seconds one
 * line is printed. RSS and heap used are those of the first reading after the gateway's latest major
 * GC (no forced GC is available from outside; V8 lets the heap grow to a multiple of its live size
 * between major GCs, so a reading anywhere else, even the minimum of a window without a major GC in
 * it, is mostly garbage; at most a second of allocation follows the GC). RSS is split into anonymous
 * memory (what the process allocated: V8's heap, native allocations) and file-backed pages (mapped
 * files: the node binary, and the table files the embedded devnet's LevelDB maps as its chain grows;
 * clean page cache the kernel can take back). Heap total (what V8 holds for its heap, used or not) and
 * external memory (Buffers and other memory outside the heap that JavaScript objects own) are read at
 * the same moments and tell where anonymous memory beyond the used heap goes. Then the major GCs, the event-loop lag p99 (the worst of
 * the window's one-second p99s, less the 10 ms timer prom-client samples it with, so that an idle loop
 * reads 0) and the active handles (mean of the window), and at the sample the open WebSockets,
 * subscriptions, filters and the requests answered so far. At the end: for each memory series (over
 * the post-GC readings) and handles (over the samples) the first-third and last-third averages and the
 * least-squares slope per hour over the second half (the first half includes the warm-up), a verdict
 * (growth when the slope of anonymous RSS, heap or handles passes GROWTH_PER_HOUR), every kind of load
 * with its sent/ok/error counts, and whether every accepted tx landed in a block.
 * Exits 1 on an unexpected error or a growth trend. Ctrl-C ends the load early and still summarises.
 */
const { randomUUID } = require('node:crypto');
const { readFileSync } = require('node:fs');
const WebSocket = require('ws');
const { Redis } = require('ioredis');
const { HDNodeWallet, Interface, getCreateAddress } = require('ethers');
const solc = require('solc');
const { cpuMicros, freePort, startGateway, table } = require('./lib');

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at < 0 ? fallback : Number(process.argv[at + 1]);
};
const MINUTES = arg('minutes', 30);
const SAMPLE_SECONDS = arg('sample-seconds', 30);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `rpcgw-soak:${randomUUID().slice(0, 8)}`;

/** The dev accounts (test test … junk, m/44'/60'/0'/0/i) and the devnet's EIP-155 chain id. */
const MNEMONIC = 'test test test test test test test test test test test junk';
const CHAIN_ID = 9000n;
const GWEI = 1_000_000_000n;
const SOURCE =
  'pragma solidity ^0.8.24; contract Ping { event Pinged(address indexed from, uint256 n); uint256 public n; function ping() external { n += 1; emit Pinged(msg.sender, n); } }';

/** Per second, each over one self-paced loop; a batch counts once. */
const MIX = {
  'node GET status': 15,
  'node POST status': 15,
  'node GET block': 10,
  'node POST block': 10,
  'node GET abci_query': 10,
  'node POST abci_query': 10,
  'node GET tx_search': 4,
  'node POST tx_search': 4,
  'node POST batch of 5': 5,
  'evm eth_blockNumber': 20,
  'evm eth_getBalance': 15,
  'evm eth_getBlockByNumber': 10,
  'evm eth_call': 2,
  'evm batch of 6': 5,
};
const WS_CLIENTS = 8; // per interface, each replaced as soon as it leaves
const WS_HOLD_S = [5, 30]; // a client stays this long (uniform), calling eth_blockNumber / status once a second
const FILTER_LOOPS = 3; // each: create, poll 5 times a second apart, uninstall
const LEFT_FILTER_EVERY_S = 10; // a filter created and never touched again (expires after 5 min)
const EVM_SENDERS = 4; // dev accounts 1..4, each a transfer to the next one every TRANSFER_EVERY_MS
const TRANSFER_EVERY_MS = 500;
const PING_EVERY_MS = 2000; // dev account 0 calls Ping.ping() (a log for the logs subscriptions and filters)
const KV_EVERY_MS = 200; // broadcast_tx_sync of key=value

/** A series grows when its second-half slope is above this, per hour. */
const GROWTH_PER_HOUR = { anon: 10, heap: 10, handles: 20 }; // MiB/h, MiB/h, handles/h
/** Shorter runs are mostly warm-up (JIT, V8 sizing its heap, filters not yet expiring): no verdict. */
const TREND_MINUTES = 10;

const JSON_HEADERS = { 'content-type': 'application/json' };
const TIMEOUT_MS = 10_000;
const mib = (bytes) => (bytes / 2 ** 20).toFixed(1);

// ---- run state: stop, pacing, per-kind counts ----

let running = true;
const stopWaiters = new Set();
function stopLoad() {
  running = false;
  for (const wake of stopWaiters) wake();
  stopWaiters.clear();
}

/** Resolves after `ms`, or at once when the load stops. */
function sleep(ms) {
  if (!running) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      stopWaiters.delete(wake);
      resolve();
    }, ms);
    const wake = () => {
      clearTimeout(timer);
      resolve();
    };
    stopWaiters.add(wake);
  });
}

/** Runs `fn` every `periodMs` until the load stops; never overlaps itself nor catches up in a burst. */
async function paced(periodMs, fn) {
  let next = performance.now();
  while (running) {
    await fn();
    next += periodMs;
    const wait = next - performance.now();
    if (wait > 0) await sleep(wait);
    else next = performance.now();
  }
}

const stats = new Map();
const events = new Map();
const countEvent = (kind) => events.set(kind, (events.get(kind) ?? 0) + 1);

/** Counts one operation of `kind`: sent, then ok or an error (the first three messages kept). */
async function track(kind, fn) {
  let s = stats.get(kind);
  if (!s) stats.set(kind, (s = { sent: 0, ok: 0, errors: 0, messages: [] }));
  s.sent++;
  try {
    await fn();
    s.ok++;
  } catch (err) {
    s.errors++;
    if (s.messages.length < 3) s.messages.push(err.message ?? String(err));
  }
}

// ---- HTTP and WebSocket clients ----

let rpcId = 0;
const errorText = (method, e) => `${method}: ${e.message}${e.data ? ` (${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)})` : ''}`;

async function answerOf(res, method) {
  if (!res.ok) throw new Error(`${method}: HTTP ${res.status}`);
  const body = await res.json();
  if (body.error) throw new Error(errorText(method, body.error));
  return body.result;
}

async function post(url, method, params) {
  const body = JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params });
  return answerOf(await fetch(url, { method: 'POST', headers: JSON_HEADERS, body, signal: AbortSignal.timeout(TIMEOUT_MS) }), method);
}

async function get(url, method, query) {
  const qs = Object.entries(query)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join('&');
  return answerOf(await fetch(`${url}/${method}${qs ? `?${qs}` : ''}`, { signal: AbortSignal.timeout(TIMEOUT_MS) }), method);
}

/** POSTs a batch of [method, params]; every member must be answered with a result. */
async function batch(url, calls) {
  const body = JSON.stringify(calls.map(([method, params]) => ({ jsonrpc: '2.0', id: ++rpcId, method, params })));
  const res = await fetch(url, { method: 'POST', headers: JSON_HEADERS, body, signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!res.ok) throw new Error(`batch: HTTP ${res.status}`);
  const answers = await res.json();
  if (!Array.isArray(answers) || answers.length !== calls.length) throw new Error(`batch: ${JSON.stringify(answers).slice(0, 200)}`);
  const failed = answers.find((a) => a.error || a.result === undefined);
  if (failed) throw new Error(`batch: ${failed.error ? errorText('member', failed.error) : 'no result'}`);
}

/** A JSON-RPC WebSocket: `call` resolves the answer to its id, anything else goes to `onEvent`. */
function openSocket(url, onEvent) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    const pending = new Map();
    const call = (method, params) =>
      new Promise((res, rej) => {
        const id = ++rpcId;
        const timer = setTimeout(() => {
          pending.delete(id);
          rej(new Error(`${method}: no answer in ${TIMEOUT_MS} ms`));
        }, TIMEOUT_MS);
        pending.set(id, { method, res, rej, timer });
        ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      });
    ws.on('message', (data) => {
      const msg = JSON.parse(data.toString());
      const p = pending.get(msg.id);
      if (!p) return onEvent(msg);
      pending.delete(msg.id);
      clearTimeout(p.timer);
      if (msg.error) p.rej(new Error(errorText(p.method, msg.error)));
      else p.res(msg.result);
    });
    ws.on('close', () => {
      for (const p of pending.values()) {
        clearTimeout(p.timer);
        p.rej(new Error(`${p.method}: socket closed`));
      }
      pending.clear();
    });
    ws.once('error', reject);
    ws.once('open', () => {
      ws.on('error', () => undefined); // a later error also closes the socket, which fails what is pending
      resolve({
        call,
        close: () =>
          new Promise((res) => {
            ws.once('close', res);
            ws.close();
          }),
        drop: () => ws.terminate(),
      });
    });
  });
}

// ---- the gateway's metrics ----

/** RSS (anonymous, file-backed) of a process, in bytes, from /proc. */
function residentOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)[1]) * 1024;
  return { anon: kib('RssAnon'), file: kib('RssFile') };
}

async function scrape(metricsUrl) {
  const text = await (await fetch(`${metricsUrl}/metrics`, { signal: AbortSignal.timeout(TIMEOUT_MS) })).text();
  const series = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    series.push([line.slice(0, at), Number(line.slice(at + 1))]);
  }
  /** The sum of family `name`'s series whose labels contain `labels`. */
  const sum = (name, labels = '') =>
    series.filter(([key]) => (key === name || key.startsWith(`${name}{`)) && key.includes(labels)).reduce((n, [, v]) => n + v, 0);
  return {
    rss: sum('process_resident_memory_bytes'),
    heap: sum('nodejs_heap_size_used_bytes'),
    heapTotal: sum('nodejs_heap_size_total_bytes'),
    external: sum('nodejs_external_memory_bytes'),
    // prom-client samples the loop with a 10 ms timer, and an idle loop reads 10 ms.
    lag: Math.max(0, sum('nodejs_eventloop_lag_p99_seconds') * 1000 - 10),
    handles: sum('nodejs_active_handles_total'),
    majorGcs: sum('nodejs_gc_duration_seconds_count', 'kind="major"'),
    majorGcSeconds: sum('nodejs_gc_duration_seconds_sum', 'kind="major"'),
    ws: sum('rpcgw_open_connections', 'protocol="ws"'),
    subscriptions: sum('rpcgw_subscriptions'),
    filters: sum('rpcgw_filters'),
    requests: sum('rpcgw_requests_total'),
    txs: sum('rpcgw_devnet_txs_total'),
  };
}

/**
 * A scrape a second over the run, from `baseline` on (the scrape before the load); a printed sample
 * every SAMPLE_SECONDS; the RSS and heap at the first scrape after each of the gateway's major GCs (see
 * the header comment).
 */
function sampler(metricsUrl, pid, startedAt, baseline) {
  const samples = [];
  const afterGc = [];
  let window = [];
  let previous = baseline;
  let gcsBefore = baseline.majorGcs;
  const tick = async () => {
    const scraped = { ...(await scrape(metricsUrl)), ...residentOf(pid) };
    const min = (performance.now() - startedAt) / 60_000;
    if (scraped.majorGcs > previous.majorGcs) afterGc.push({ min, ...scraped });
    previous = scraped;
    window.push(scraped);
    if (min * 60 < (samples.length + 1) * SAMPLE_SECONDS) return;
    const sample = {
      ...scraped,
      min,
      afterGc: afterGc[afterGc.length - 1],
      majorGcs: scraped.majorGcs - gcsBefore,
      lag: Math.max(...window.map((s) => s.lag)),
      handles: window.reduce((n, s) => n + s.handles, 0) / window.length,
    };
    samples.push(sample);
    printRow(COLUMNS.map(([, , cell]) => cell(sample)));
    window = [];
    gcsBefore = scraped.majorGcs;
  };
  return { samples, afterGc, tick };
}

const COLUMNS = [
  ['min', 6, (s) => s.min.toFixed(1)],
  ['RSS MiB', 8, (s) => (s.afterGc ? mib(s.afterGc.rss) : '-')],
  ['anon MiB', 9, (s) => (s.afterGc ? mib(s.afterGc.anon) : '-')],
  ['heap MiB', 9, (s) => (s.afterGc ? mib(s.afterGc.heap) : '-')],
  ['heap total', 11, (s) => (s.afterGc ? mib(s.afterGc.heapTotal) : '-')],
  ['external', 9, (s) => (s.afterGc ? mib(s.afterGc.external) : '-')],
  ['major GCs', 10, (s) => s.majorGcs],
  ['lag p99 ms', 11, (s) => s.lag.toFixed(1)],
  ['handles', 8, (s) => s.handles.toFixed(0)],
  ['WS', 4, (s) => s.ws],
  ['subs', 5, (s) => s.subscriptions],
  ['filters', 8, (s) => s.filters],
  ['requests', 10, (s) => s.requests],
];
const printRow = (cells) => console.log(cells.map((c, i) => String(c).padStart(COLUMNS[i][1])).join(' '));

/** Least-squares slope of `points` ({ min, value }), per hour. */
function slopePerHour(points) {
  const n = points.length;
  const mx = points.reduce((a, p) => a + p.min, 0) / n;
  const my = points.reduce((a, p) => a + p.value, 0) / n;
  const num = points.reduce((a, p) => a + (p.min - mx) * (p.value - my), 0);
  const den = points.reduce((a, p) => a + (p.min - mx) ** 2, 0);
  return den === 0 ? NaN : (60 * num) / den;
}

/**
 * First-third and last-third averages of a series over a run of `minutes`, and its slope over the second
 * half (from 4 readings on: under this load the gateway runs a major GC every minute or two).
 */
function trend(points, minutes) {
  const avg = (ps) => (ps.length ? ps.reduce((a, p) => a + p.value, 0) / ps.length : NaN);
  const half = points.filter((p) => p.min >= minutes / 2);
  return {
    first: avg(points.filter((p) => p.min <= minutes / 3)),
    last: avg(points.filter((p) => p.min >= (2 * minutes) / 3)),
    perHour: half.length >= 4 ? slopePerHour(half) : NaN,
  };
}

// ---- set-up: the gateway, the contract ----

function compile() {
  const input = {
    language: 'Solidity',
    sources: { 'Ping.sol': { content: SOURCE } },
    settings: { evmVersion: 'cancun', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const c = JSON.parse(solc.compile(JSON.stringify(input))).contracts['Ping.sol'].Ping;
  return { abi: c.abi, bytecode: '0x' + c.evm.bytecode.object };
}

/** A dev account that signs its own txs, its nonce kept here (one tx in flight at a time). */
function account(i) {
  const wallet = HDNodeWallet.fromPhrase(MNEMONIC, undefined, `m/44'/60'/0'/0/${i}`);
  return { wallet, address: wallet.address, nonce: 0 };
}

/** Signs and sends one tx of `from`; resolves its hash once the node checked it. */
async function sendTx(evmUrl, from, tx) {
  const raw = await from.wallet.signTransaction({ type: 2, chainId: CHAIN_ID, nonce: from.nonce, maxFeePerGas: 20n * GWEI, maxPriorityFeePerGas: GWEI, ...tx });
  try {
    const hash = await post(evmUrl, 'eth_sendRawTransaction', [raw]);
    from.nonce++;
    return hash;
  } catch (err) {
    from.nonce = Number(await post(evmUrl, 'eth_getTransactionCount', [from.address, 'pending']));
    throw err;
  }
}

async function deployPing(evmUrl, deployer) {
  const { abi, bytecode } = compile();
  const address = getCreateAddress({ from: deployer.address, nonce: deployer.nonce });
  const hash = await sendTx(evmUrl, deployer, { data: bytecode, gasLimit: 300_000n });
  for (let i = 0; i < 100; i++) {
    if (await post(evmUrl, 'eth_getTransactionReceipt', [hash])) return { address, iface: new Interface(abi) };
    await sleep(200);
  }
  throw new Error('the Ping contract was not deployed');
}

async function redisReachable() {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  const reachable = await redis.connect().then(() => redis.ping()).then(() => true, () => false);
  redis.disconnect();
  return reachable;
}

async function dropKeys() {
  const redis = new Redis(REDIS_URL);
  try {
    const keys = await redis.keys(`${PREFIX}:*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.quit();
  }
}

// ---- the load ----

const NEW_BLOCK = "tm.event='NewBlock'";
const TX = "tm.event='Tx'";
const pick = (items) => items[Math.floor(Math.random() * items.length)];

/** The read kinds of MIX, over `ctx` (URLs, the chain's head, the kvstore keys sent so far, the contract). */
function reads(ctx) {
  const { node, evm, ping } = ctx;
  const height = () => Math.max(1, ctx.head - Math.floor(Math.random() * 100));
  // A key sent about 2 s (or more) ago, most likely in a block by now.
  const key = () => `soak-${Math.max(0, ctx.kvSent - 10 - Math.floor(Math.random() * 200))}`;
  const hex = (text) => Buffer.from(text).toString('hex');
  const txQuery = () => `app.key='${key()}'`;
  const address = () => pick(ctx.accounts).address;
  const count = ping.iface.encodeFunctionData('n');
  return {
    'node GET status': async () => {
      ctx.head = Number((await get(node, 'status', {})).sync_info.latest_block_height);
    },
    'node POST status': () => post(node, 'status', {}),
    'node GET block': () => get(node, 'block', { height: height() }),
    'node POST block': () => post(node, 'block', { height: String(height()) }),
    'node GET abci_query': () => get(node, 'abci_query', { path: '""', data: `0x${hex(key())}` }),
    'node POST abci_query': () => post(node, 'abci_query', { path: '', data: hex(key()) }),
    'node GET tx_search': () => get(node, 'tx_search', { query: `"${txQuery()}"`, per_page: 5 }),
    'node POST tx_search': () => post(node, 'tx_search', { query: txQuery(), per_page: '5' }),
    'node POST batch of 5': () =>
      batch(node, [
        ['status', {}],
        ['block', { height: String(height()) }],
        ['abci_query', { path: '', data: hex(key()) }],
        ['tx_search', { query: txQuery(), per_page: '5' }],
        ['health', {}],
      ]),
    'evm eth_blockNumber': () => post(evm, 'eth_blockNumber', []),
    'evm eth_getBalance': () => post(evm, 'eth_getBalance', [address(), 'latest']),
    'evm eth_getBlockByNumber': () => post(evm, 'eth_getBlockByNumber', [`0x${height().toString(16)}`, Math.random() < 0.5]),
    'evm eth_call': () => post(evm, 'eth_call', [{ to: ping.address, data: count }, 'latest']),
    'evm batch of 6': () =>
      batch(evm, [
        ['eth_blockNumber', []],
        ['eth_chainId', []],
        ['eth_getBalance', [address(), 'latest']],
        ['eth_getBlockByNumber', ['latest', false]],
        ['eth_gasPrice', []],
        ['eth_getTransactionCount', [address(), 'latest']],
      ]),
  };
}

/** Calls `fn` once a second for a random hold time (or until the load stops); resolves the seconds held. */
async function hold(fn) {
  const start = performance.now();
  const ms = 1000 * (WS_HOLD_S[0] + Math.random() * (WS_HOLD_S[1] - WS_HOLD_S[0]));
  while (running && performance.now() - start < ms) {
    await fn();
    await sleep(1000);
  }
  return (performance.now() - start) / 1000;
}

/** A node RPC client: NewBlock and Tx subscriptions, status calls, then unsubscribe (one way or the other) and close, or drop. */
async function nodeSession(url, drop, n) {
  let blocks = 0;
  const sock = await openSocket(url, (msg) => {
    const query = msg.result?.query;
    if (query === NEW_BLOCK) blocks++;
    if (query) countEvent(`node ${query}`);
  });
  try {
    await sock.call('subscribe', { query: NEW_BLOCK });
    await sock.call('subscribe', { query: TX });
    const held = await hold(() => sock.call('status', {}));
    if (held >= 3 && blocks === 0) throw new Error(`no NewBlock in ${held.toFixed(1)} s`);
    if (drop) return;
    if (n % 2) await sock.call('unsubscribe_all', {});
    else for (const query of [NEW_BLOCK, TX]) await sock.call('unsubscribe', { query });
    await sock.close();
  } finally {
    sock.drop();
  }
}

/** An EVM client: newHeads and logs (of Ping) subscriptions, eth_blockNumber calls, then eth_unsubscribe and close, or drop. */
async function evmSession(url, drop, address) {
  const kinds = new Map();
  let heads = 0;
  const sock = await openSocket(url, (msg) => {
    const kind = kinds.get(msg.params?.subscription);
    if (kind === 'newHeads') heads++;
    if (kind) countEvent(`evm ${kind}`);
  });
  try {
    kinds.set(await sock.call('eth_subscribe', ['newHeads']), 'newHeads');
    kinds.set(await sock.call('eth_subscribe', ['logs', { address }]), 'logs');
    const held = await hold(() => sock.call('eth_blockNumber', []));
    if (held >= 3 && heads === 0) throw new Error(`no newHeads in ${held.toFixed(1)} s`);
    if (drop) return;
    for (const id of kinds.keys()) if ((await sock.call('eth_unsubscribe', [id])) !== true) throw new Error(`eth_unsubscribe ${id}: not true`);
    await sock.close();
  } finally {
    sock.drop();
  }
}

/** WS_CLIENTS clients of `session` at all times, each replaced when it leaves; every fourth drops without unsubscribing. */
function churn(name, session) {
  let n = 0;
  return Array.from({ length: WS_CLIENTS }, async () => {
    while (running) {
      const i = n++;
      const drop = i % 4 === 3;
      await track(`${name} WS client, ${drop ? 'dropped' : 'unsubscribed'}`, () => session(drop, i));
    }
  });
}

const FILTERS = (address) => [
  ['eth_newBlockFilter', []],
  ['eth_newFilter', [{ address }]],
  ['eth_newPendingTransactionFilter', []],
];

async function filterCycle(evm, [method, params]) {
  const id = await post(evm, method, params);
  for (let i = 0; i < 5 && running; i++) {
    await sleep(1000);
    const changes = await post(evm, 'eth_getFilterChanges', [id]);
    if (!Array.isArray(changes)) throw new Error(`eth_getFilterChanges: ${JSON.stringify(changes)}`);
  }
  if ((await post(evm, 'eth_uninstallFilter', [id])) !== true) throw new Error(`eth_uninstallFilter ${id}: not true`);
}

// ---- main ----

async function main() {
  if (!(await redisReachable())) {
    console.error(`the soak needs Redis at ${REDIS_URL} (set REDIS_URL)`);
    process.exitCode = 1;
    return;
  }
  const [metricsPort, evmPort, evmWsPort] = [await freePort(), await freePort(), await freePort()];
  const gw = await startGateway([
    '--devnet.ephemeral', 'false', '--devnet.block_time', '1s',
    '--instrumentation.prometheus', 'true', '--set', `instrumentation.prometheus_listen_addr=127.0.0.1:${metricsPort}`,
    '--json-rpc.address', `127.0.0.1:${evmPort}`, '--json-rpc.ws-address', `127.0.0.1:${evmWsPort}`,
    '--set', 'log.level=warn', '--set', `queue.redis_url=${REDIS_URL}`, '--set', `queue.redis_key_prefix=${PREFIX}`,
  ]);
  const metricsUrl = `http://127.0.0.1:${metricsPort}`;
  const evm = `http://127.0.0.1:${evmPort}`;
  const nodeWs = `${gw.url.replace(/^http/, 'ws')}/websocket`;
  const evmWs = `ws://127.0.0.1:${evmWsPort}`;
  const stop = () => stopLoad();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const accounts = Array.from({ length: EVM_SENDERS + 1 }, (_, i) => account(i));
    const deployer = accounts[0];
    let ping;
    await track('evm deploy Ping (eth_sendRawTransaction)', async () => {
      ping = await deployPing(evm, deployer);
    });
    if (!ping) throw new Error(stats.get('evm deploy Ping (eth_sendRawTransaction)').messages[0]);
    const ctx = { node: gw.url, evm, ping, accounts, head: 1, kvSent: 0 };

    console.log(
      `soak: ${MINUTES} min, a sample every ${SAMPLE_SECONDS} s; gateway pid ${gw.pid} on the embedded devnet (1 s blocks), BullMQ queue under ${PREFIX}:* at ${REDIS_URL}`,
    );
    console.log(
      `load: the reads of MIX (${Object.values(MIX).reduce((a, b) => a + b, 0)} HTTP requests/s); ${WS_CLIENTS} node and ${WS_CLIENTS} EVM WebSocket clients at a time, ` +
        `each held ${WS_HOLD_S.join('-')} s; ${FILTER_LOOPS} filters polled at a time, one left to expire every ${LEFT_FILTER_EVERY_S} s; ` +
        `${(EVM_SENDERS * 1000) / TRANSFER_EVERY_MS + 1000 / PING_EVERY_MS} EVM txs/s, ${1000 / KV_EVERY_MS} kvstore txs/s`,
    );
    console.log('RSS (all, anonymous), heap (used, total) and external: right after the latest major GC; major GCs, lag (worst 1-s p99), handles (mean): over the window; the rest: at the sample\n');
    printRow(COLUMNS.map(([name]) => name));
    const baseline = { ...(await scrape(metricsUrl)), ...residentOf(gw.pid) };
    printRow(COLUMNS.map(([, , cell]) => cell({ ...baseline, min: 0, afterGc: baseline, majorGcs: '' })));

    const gwCpuBefore = cpuMicros(gw.pid);
    const benchCpuBefore = process.cpuUsage();
    const startedAt = performance.now();
    const metrics = sampler(metricsUrl, gw.pid, startedAt, baseline);

    const kinds = reads(ctx);
    const senders = accounts.slice(1);
    const filters = FILTERS(ping.address);
    let filterN = 0;
    const loops = [
      paced(1000, () => track('GET /metrics (the sampler)', metrics.tick)),
      ...Object.entries(MIX).map(([kind, perSecond]) => paced(1000 / perSecond, () => track(kind, kinds[kind]))),
      ...churn('node', (drop, i) => nodeSession(nodeWs, drop, i)),
      ...churn('evm', (drop) => evmSession(evmWs, drop, ping.address)),
      ...Array.from({ length: FILTER_LOOPS }, () =>
        paced(0, () => {
          const filter = filters[filterN++ % filters.length];
          return track(`${filter[0]}, polled 5 times, uninstalled`, () => filterCycle(evm, filter));
        }),
      ),
      paced(LEFT_FILTER_EVERY_S * 1000, () => {
        const [method, params] = filters[filterN++ % filters.length];
        return track('filter left to expire', () => post(evm, method, params));
      }),
      ...senders.map((from, i) =>
        paced(TRANSFER_EVERY_MS, () =>
          track('evm transfer (eth_sendRawTransaction)', () => sendTx(evm, from, { to: senders[(i + 1) % senders.length].address, value: 1n, gasLimit: 21_000n })),
        ),
      ),
      paced(PING_EVERY_MS, () =>
        track('evm Ping.ping() (eth_sendRawTransaction)', () => sendTx(evm, deployer, { to: ping.address, data: ping.iface.encodeFunctionData('ping'), gasLimit: 100_000n })),
      ),
      paced(KV_EVERY_MS, () =>
        track('node broadcast_tx_sync (kvstore)', async () => {
          const n = ctx.kvSent++;
          const result = await post(gw.url, 'broadcast_tx_sync', { tx: Buffer.from(`soak-${n}=${n}`).toString('base64') });
          if (result.code !== 0) throw new Error(`broadcast_tx_sync: code ${result.code} ${result.log}`);
        }),
      ),
    ];
    const timer = setTimeout(stopLoad, MINUTES * 60_000);
    await Promise.all(loops);
    clearTimeout(timer);
    const seconds = (performance.now() - startedAt) / 1000;
    const gwCpu = (cpuMicros(gw.pid) - gwCpuBefore) / 1e6 / seconds;
    const benchUsage = process.cpuUsage(benchCpuBefore);
    const benchCpu = (benchUsage.user + benchUsage.system) / 1e6 / seconds;

    // Every tx accepted is in a block once the next blocks are out.
    await new Promise((r) => setTimeout(r, 3000));
    const lostNonces = [];
    for (const a of accounts) {
      const included = Number(await post(evm, 'eth_getTransactionCount', [a.address, 'latest']));
      if (included !== a.nonce) lostNonces.push(`${a.address}: ${included} in blocks, ${a.nonce} accepted`);
    }
    const txKinds = [...stats.keys()].filter((k) => k.includes('eth_sendRawTransaction') || k.includes('broadcast_tx'));
    const accepted = txKinds.reduce((n, k) => n + stats.get(k).ok, 0);
    const last = await scrape(metricsUrl);
    const inBlocks = last.txs;

    const { samples, afterGc } = metrics;
    const minutes = seconds / 60;
    console.log(`\n${samples.length} samples over ${minutes.toFixed(1)} min; CPU: gateway ${(100 * gwCpu).toFixed(0)} % of a core, load generator ${(100 * benchCpu).toFixed(0)} %`);
    const majorGcs = last.majorGcs - baseline.majorGcs;
    console.log(`major GCs of the gateway: ${majorGcs}, mean ${majorGcs ? ((1000 * (last.majorGcSeconds - baseline.majorGcSeconds)) / majorGcs).toFixed(1) : '-'} ms`);
    const memory = (series, key, limit = NaN) => ({
      series,
      unit: 'MiB',
      ...trend(afterGc.map((p) => ({ min: p.min, value: p[key] / 2 ** 20 })), minutes),
      limit,
    });
    const found = [
      memory('RSS', 'rss'),
      memory('RSS, anonymous', 'anon', GROWTH_PER_HOUR.anon),
      memory('RSS, file-backed', 'file'),
      memory('heap used', 'heap', GROWTH_PER_HOUR.heap),
      memory('heap total', 'heapTotal'),
      memory('external', 'external'),
      { series: 'active handles', unit: '', ...trend(samples.map((s) => ({ min: s.min, value: s.handles })), minutes), limit: GROWTH_PER_HOUR.handles },
    ];
    const fmt = (v, unit) => (Number.isNaN(v) ? 'n/a' : `${v.toFixed(1)}${unit ? ` ${unit}` : ''}`);
    table(
      found.map((t) => ({
        series: t.series,
        'first third avg': fmt(t.first, t.unit),
        'last third avg': fmt(t.last, t.unit),
        'slope over the 2nd half': Number.isNaN(t.perHour) ? 'n/a' : `${fmt(t.perHour, t.unit)}/h`,
        'growth above': Number.isNaN(t.limit) ? '(not judged)' : `${fmt(t.limit, t.unit)}/h`,
      })),
    );
    const tooShort = minutes < TREND_MINUTES || found.some((t) => !Number.isNaN(t.limit) && Number.isNaN(t.perHour));
    const growing = tooShort ? [] : found.filter((t) => t.perHour > t.limit);
    if (tooShort) console.log(`verdict: too short for a trend (${TREND_MINUTES} min or more)`);
    else if (growing.length === 0) console.log('verdict: no growth trend');
    else console.log(`verdict: growth: ${growing.map((t) => `${t.series} ${fmt(t.perHour, t.unit)}/h`).join(', ')}`);

    console.log('');
    table(
      [...stats].map(([kind, s]) => ({
        kind,
        'set /s': MIX[kind] ?? '',
        'sent /s': (s.sent / seconds).toFixed(2),
        sent: s.sent,
        ok: s.ok,
        errors: s.errors,
      })),
    );
    const errors = [...stats].filter(([, s]) => s.errors > 0);
    for (const [kind, s] of errors) console.log(`errors of ${kind}: ${s.messages.join(' | ')}`);
    console.log(`\nevents received: ${[...events].map(([kind, n]) => `${kind} ${n}`).join(', ')}`);
    console.log(`txs accepted ${accepted}, in devnet blocks ${inBlocks}${lostNonces.length ? `; EVM nonces short: ${lostNonces.join('; ')}` : '; every EVM sender\'s nonce in blocks = txs accepted'}`);
    if (errors.length > 0 || growing.length > 0 || lostNonces.length > 0 || inBlocks < accepted) process.exitCode = 1;
  } finally {
    stopLoad();
    await gw.stop();
    await dropKeys();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
