'use strict';
/**
 * Where a call's work goes, counted in instructions instead of time: each route's process runs under
 * valgrind's callgrind, one request at a time over one keep-alive connection, and the instructions it
 * executed for BENCH_REQUESTS requests are split by what ran them. Instruction counts do not depend on
 * what else the machine is doing, where timings here move by 10–30 % between identical processes. Also
 * counted: the calls into V8's megamorphic inline-cache stubs, the property accesses whose site has met
 * more object shapes than V8 keeps apart (each a lookup in a shared table instead of a compare).
 *
 *   pass-through   eth_getBalance of a fresh address over anvil: the bare Node.js proxy
 *                  (bench/bare-proxy.js, bytes copied through), the parsing proxy (bench/bare-proxy.js
 *                  parse) and the gateway (upstream mode, defaults)
 *   cache hit      eth_getBlockByNumber("0x0", true): a node:http server answering the same bytes as a
 *                  constant, and the gateway answering from its cache
 *
 * Node runs with --perf-basic-prof, so that the JavaScript V8 compiled can be named from its perf map
 * (/tmp/perf-<pid>.map, removed afterwards), and --no-concurrent-recompilation, so that optimising
 * compiles run on the main thread at fixed points of the warm-up instead of on helper threads that
 * callgrind runs 50 times slower. Two kinds of work are shown apart and left out of the per-request
 * totals: V8's compiler (under callgrind's slowdown V8 keeps recompiling late into the run, which it
 * does not in a real one: --trace-opt shows no compile after about 15,000 requests) and major
 * (mark-compact) garbage collection, which lands in a window or not by chance.
 *
 * Needs valgrind (callgrind_control with it). Environment: BENCH_REQUESTS (counted requests per route,
 * default 2000), BENCH_WARMUP (requests before counting, default 10000; about 2 minutes per route).
 */
const { execFileSync } = require('node:child_process');
const { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { ROOT, loadAverage, rpcBody, runBenchmark, startUpstreams, startUpstreamGateway, startBareProxy, startConstantServer, sequentialClient, table } = require('./lib');

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10000);
const NODE_ARGS = ['--perf-basic-prof', '--no-concurrent-recompilation'];
const STARTUP_MS = 300_000;

/** What ran an instruction, from the function callgrind names (JIT code named from the perf map). */
const KINDS = [
  ['V8 compiler (left out)', /compiler::|turboshaft|maglev|Maglev|Optimize|Compile|Turbofan/],
  ['major GC (left out)', /Marking|MarkCompact|Sweeper|Evacuat(e|ion)|RememberedSet|StringTableCleaner|ActiveSystemPages|SizeFromMap|popcount|FlushedBytecode/],
  ['JS: gateway (dist/)', new RegExp(`${join(ROOT, 'dist')}/`)],
  ['JS: undici', /node_modules\/undici/],
  ['JS: Node.js core', /^JS:.* node:/],
  ['llhttp (undici wasm, Node C)', /wasm|llhttp/],
  ['JS: other, regexps', /^JS:|^RegExp/],
  ['minor GC, allocation', /Scaveng|Heap::|heap::|Factory::|Allocat|IterateObjectCache|IteratePointers|RootVisitor/],
  ['property access (V8 ICs)', /^Builtins_\w*(IC|Megamorphic|GetProperty|SetProperty)/],
  ['promises, microtasks', /^Builtins_\w*(Promise|Microtask|Await|Async)/],
  ['strings, JSON', /^Builtins_\w*(String|Json)|Json|String::|Utf8|utf8|simdutf|Lowercase|Uppercase/],
  ['V8 builtins, other', /^Builtins_/],
  ['Node.js and V8 C++', /node::|uv_|v8::|cppgc/],
  ['libc (malloc, memcpy, …)', /./],
];
const LEFT_OUT = new Set(KINDS.slice(0, 2).map(([name]) => name));

/** JIT code ranges of a perf map, sorted, for naming callgrind's bare addresses. */
function readPerfMap(pid) {
  const file = `/tmp/perf-${pid}.map`;
  if (!existsSync(file)) return [];
  const ranges = readFileSync(file, 'utf8').trim().split('\n').map((line) => {
    const [start, size, ...name] = line.split(' ');
    return { start: parseInt(start, 16), end: parseInt(start, 16) + parseInt(size, 16), name: name.join(' ') };
  });
  return ranges.sort((a, b) => a.start - b.start);
}

function nameAt(ranges, address) {
  let lo = 0;
  let hi = ranges.length - 1;
  let found;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (ranges[mid].start <= address) [found, lo] = [mid, mid + 1];
    else hi = mid - 1;
  }
  return found !== undefined && address < ranges[found].end ? ranges[found].name : '';
}

/** V8's inline-cache stubs for a property access that has met more object shapes than it keeps apart. */
const MEGAMORPHIC = /^Builtins_\w*IC_Megamorphic$/;
/** The key under which instructionsByKind counts the calls into MEGAMORPHIC stubs (not instructions). */
const MEGAMORPHIC_CALLS = 'megamorphic property accesses';

/**
 * Self instructions by kind from a callgrind dump (cost lines count, call lines, which are inclusive, do
 * not), and under MEGAMORPHIC_CALLS the number of calls into V8's megamorphic property-access stubs.
 */
function instructionsByKind(dump, ranges) {
  const names = new Map();
  const kinds = new Map();
  const byKind = new Map([[MEGAMORPHIC_CALLS, 0]]);
  let kind;
  let callee;
  let afterCall = false;
  const kindOf = (name) => KINDS.find(([, pattern]) => pattern.test(name))[0];
  for (const line of readFileSync(dump, 'utf8').split('\n')) {
    // A function is named where it first appears, as a caller (fn=) or as a callee (cfn=).
    const fn = /^c?fn=\((\d+)\)(?: (.*))?$/.exec(line);
    if (fn) {
      if (fn[2] !== undefined) {
        const address = /^0x([0-9a-f]+)$/.exec(fn[2]);
        // JIT code the perf map does not name (stubs, code gone before the dump) counts as other JS.
        const name = address ? nameAt(ranges, parseInt(address[1], 16)) || `JS: ${fn[2]}` : fn[2];
        names.set(fn[1], name);
        kinds.set(fn[1], kindOf(name));
      }
      if (line.startsWith('fn=')) kind = kinds.get(fn[1]);
      else callee = names.get(fn[1]);
    } else if (line.startsWith('calls=')) {
      afterCall = true;
      if (MEGAMORPHIC.test(callee)) byKind.set(MEGAMORPHIC_CALLS, byKind.get(MEGAMORPHIC_CALLS) + Number(line.slice(6).split(' ')[0]));
    } else if (/^[+\-*\d]/.test(line)) {
      if (afterCall) afterCall = false;
      else byKind.set(kind, (byKind.get(kind) ?? 0) + Number(line.trim().split(/\s+/).pop()));
    }
  }
  return byKind;
}

/** Starts a route under callgrind, warms it up, counts REQUESTS requests; its instructions by kind. */
async function count(start, body) {
  const dir = mkdtempSync(join(tmpdir(), 'rpcgw-callgrind-'));
  const wrap = ['valgrind', '-q', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${join(dir, 'out')}`];
  const route = await start({ nodeArgs: NODE_ARGS, wrap, timeoutMs: STARTUP_MS });
  try {
    const client = sequentialClient(route.url);
    const control = (flag) => execFileSync('callgrind_control', [flag, String(route.pid)], { stdio: 'ignore' });
    control('--instr=on');
    for (let n = 0; n < WARMUP; n++) await client.post(body(n));
    control('--zero');
    for (let n = WARMUP; n < WARMUP + REQUESTS; n++) await client.post(body(n));
    control('--dump');
    await client.close();
    const dump = readdirSync(dir).find((f) => f.startsWith('out') && f !== 'out');
    return instructionsByKind(join(dir, dump), readPerfMap(route.pid));
  } finally {
    await route.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(`/tmp/perf-${route.pid}.map`, { force: true });
  }
}

runBenchmark(async (started) => {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  const { anvil, devnet } = await startUpstreams(started);
  const gateway = async (launch) => {
    const gw = await startUpstreamGateway(devnet.url, anvil.url, undefined, launch.nodeArgs, [], launch);
    return { ...gw, url: gw.evmUrl };
  };
  // The constant server answers the genesis block as anvil does, which the gateway passes on unread.
  const genesis = rpcBody('eth_getBlockByNumber', ['0x0', true], 1);
  const answer = await (await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: genesis })).text();
  const cases = [
    {
      name: 'eth_getBalance of a fresh address over anvil (pass-through)',
      body: (n) => rpcBody('eth_getBalance', [`0xe0${n.toString(16).padStart(38, '0')}`, 'latest']),
      routes: {
        'bare proxy': (launch) => startBareProxy(anvil.url, 'bytes', '0@after', launch),
        'parsing proxy': (launch) => startBareProxy(anvil.url, 'parse', '0@after', launch),
        gateway,
      },
    },
    {
      name: `eth_getBlockByNumber("0x0", true), cached (${Buffer.byteLength(answer)} B)`,
      body: () => genesis,
      routes: {
        'node:http constant': (launch) => startConstantServer(answer, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(answer)) }, launch),
        gateway,
      },
    },
  ];
  console.log(`one request at a time; instructions per request over ${REQUESTS} requests after ${WARMUP}; load average ${loadAverage()}`);
  for (const c of cases) {
    const counted = {};
    for (const [via, start] of Object.entries(c.routes)) counted[via] = await count(start, c.body);
    const perRequest = (via, kind) => Math.round((counted[via].get(kind) ?? 0) / REQUESTS);
    const total = (via) => KINDS.filter(([kind]) => !LEFT_OUT.has(kind)).reduce((sum, [kind]) => sum + perRequest(via, kind), 0);
    const [floor, ...others] = Object.keys(c.routes);
    const rows = KINDS.map(([kind]) => ({ [c.name]: kind, ...Object.fromEntries(Object.keys(c.routes).map((via) => [via, perRequest(via, kind)])) }));
    rows.splice(2, 0, { [c.name]: 'request path (below)', ...Object.fromEntries(Object.keys(c.routes).map((via) => [via, total(via)])) });
    console.log('');
    table(rows);
    console.log(`request path × ${floor}: ${others.map((via) => `${via} ${(total(via) / total(floor)).toFixed(2)}`).join(', ')}`);
    console.log(`${MEGAMORPHIC_CALLS} per request (calls into V8's megamorphic inline-cache stubs): ${Object.keys(c.routes).map((via) => `${via} ${(counted[via].get(MEGAMORPHIC_CALLS) / REQUESTS).toFixed(1)}`).join(', ')}`);
  }
});
