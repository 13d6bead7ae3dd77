'use strict';
/**
 * Large answers passed through: eth_getBlockByNumber(n, true) of a block of BENCH_TXS transactions
 * (default 300, about 250 KB of JSON), every request its own block number, so that no two are one read
 * and the gateway's response cache (off here: `[cache] max_bytes = 0`) keeps nothing: an indexer reading
 * each block once. The upstream is a node:http server answering every block read with the same bytes
 * (under the caller's id) and the health checks' calls as a node does, so that its own cost is the same
 * for every route and small. Beside the gateway, in one run: the bare Node.js proxy (bytes copied
 * through) and the parsing proxy (the answer parsed and written again), what a proxy that reads the
 * answer pays for its size. The gateway hands a client's answer on as the node's bytes when no hook of
 * its method reads it (src/rpc/result-json.ts UnreadJson). A second case sends BENCH_BATCH (default 4)
 * such reads in one JSON-RPC batch: the bare proxy passes the batch through whole, the gateway runs its
 * members as one read each (batching to the upstream is off by default) and answers them together.
 *
 * The routes take turns over BENCH_ROUNDS rounds (default 3) of BENCH_DURATION s (default 5) at
 * BENCH_CONNECTIONS (default 8); medians. Prints req/s, p50/p99, the CPU µs per request of each serving
 * process and the ratios to the bare proxy.
 */
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { spawnReady, freePort, measureRounds, loadAverage, rpcBody, rpcCall, runBenchmark, printResults, startGateway, startUpstreamGateway, startBareProxy, stopChild, checkRoutes } = require('./lib');

const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const TXS = Number(process.env.BENCH_TXS ?? 300);
const BATCH = Number(process.env.BENCH_BATCH ?? 4);
const VIA = { bare: 'bare Node.js proxy', parse: 'parsing Node.js proxy', gateway: 'gateway (cache off)' };

/** A block of `count` transactions as go-ethereum writes one (`eth_getBlockByNumber(n, true)`). */
function blockJson(count) {
  const word = (n) => `0x${n.toString(16).padStart(64, '0')}`;
  const address = (n) => `0x${n.toString(16).padStart(40, '0')}`;
  const transactions = Array.from({ length: count }, (_, i) => ({
    blockHash: word(1), blockNumber: '0x10', from: address(i + 1), gas: '0x5208', gasPrice: '0x3b9aca00', maxFeePerGas: '0x77359400',
    maxPriorityFeePerGas: '0x3b9aca00', hash: word(i + 2), input: '0x', nonce: `0x${i.toString(16)}`, to: address(i + 7), transactionIndex: `0x${i.toString(16)}`,
    value: '0x1', type: '0x2', accessList: [], chainId: '0x7a69', v: '0x0', r: word(i + 3), s: word(i + 4), yParity: '0x0',
  }));
  return JSON.stringify({
    baseFeePerGas: '0x3b9aca00', difficulty: '0x0', extraData: '0x', gasLimit: '0x1c9c380', gasUsed: `0x${(21000 * count).toString(16)}`, hash: word(1),
    logsBloom: `0x${'00'.repeat(256)}`, miner: address(0), mixHash: word(0), nonce: '0x0000000000000000', number: '0x10', parentHash: word(0),
    receiptsRoot: word(5), sha3Uncles: word(6), size: '0x1000', stateRoot: word(7), timestamp: '0x65000000', transactions, transactionsRoot: word(8), uncles: [],
  });
}

/**
 * The upstream: the health checks' calls answered as a node answers them, every other call with
 * `result`; anything else (the gateway's WebSocket head feed knocking) 400.
 */
const BLOCK_SERVER = `
const [port, file] = process.argv.slice(1);
const result = require('node:fs').readFileSync(file, 'utf8');
const small = { eth_chainId: '"0x7a69"', eth_blockNumber: '"0xffffff"', eth_syncing: 'false', eth_getBlockTransactionCountByNumber: '"0x0"' };
require('node:http')
  .createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let call;
      try {
        call = JSON.parse(Buffer.concat(chunks).toString());
      } catch {
        return res.writeHead(400).end();
      }
      const answer = ({ id, method }) => '{"jsonrpc":"2.0","id":' + JSON.stringify(id) + ',"result":' + (small[method] ?? result) + '}';
      const body = Array.isArray(call) ? '[' + call.map(answer).join(',') + ']' : answer(call);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  })
  .listen(Number(port), '127.0.0.1');
`;

async function startBlockServer(result) {
  const dir = mkdtempSync(join(tmpdir(), 'rpcgw-bench-block-'));
  const file = join(dir, 'result.json');
  writeFileSync(file, result);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = await spawnReady(process.execPath, ['-e', BLOCK_SERVER, String(port), file], async () => (await rpcCall(url, 'eth_chainId', [])) !== undefined);
  return { url, pid: child.pid, stop: () => stopChild(child).then(() => rmSync(dir, { recursive: true, force: true })) };
}

runBenchmark(async (started) => {
  const result = blockJson(TXS);
  const upstream = started(await startBlockServer(result));
  const devnet = started(await startGateway(['--devnet.block_time', '1s']));
  const gw = started(await startUpstreamGateway(devnet.url, upstream.url, undefined, [], ['[cache]', 'max_bytes = 0']));
  const routes = {
    bare: started(await startBareProxy(upstream.url)),
    parse: started(await startBareProxy(upstream.url, 'parse')),
    gateway: { url: gw.evmUrl, pid: gw.pid },
  };
  const block = (n) => `0x${(n % 0xfff0 + 1).toString(16)}`;
  const cases = [
    { name: 'one read', routes, bodyAt: (n) => rpcBody('eth_getBlockByNumber', [block(n), true], n + 2) },
    {
      name: `a batch of ${BATCH} reads`,
      routes: { bare: routes.bare, gateway: routes.gateway },
      bodyAt: (n) => JSON.stringify(Array.from({ length: BATCH }, (_, k) => ({ jsonrpc: '2.0', id: k + 1, method: 'eth_getBlockByNumber', params: [block(n * BATCH + k), true] }))),
    },
  ];
  console.log(`eth_getBlockByNumber(n, true), ${TXS} transactions, a ${result.length} B result; ${CONNECTIONS} connections, ${ROUNDS} × ${DURATION} s per route; load average ${loadAverage()}\n`);
  const rows = [];
  const ratios = [];
  for (const c of cases) {
    await checkRoutes(c.routes, c.bodyAt(0), c.name);
    const m = await measureRounds(c.routes, { bodyAt: c.bodyAt, connections: CONNECTIONS }, ROUNDS, DURATION);
    for (const [via, r] of Object.entries(m)) rows.push({ case: c.name, via: VIA[via], 'req/s': r.rps.toFixed(0), 'p50 ms': r.p50, 'p99 ms': r.p99, 'CPU µs/req': r.cpu.toFixed(1), 'req/s by round': r.runs.map((x) => x.rps.toFixed(0)).join(' ') });
    for (const via of Object.keys(m).filter((v) => v !== 'bare')) ratios.push({ case: c.name, via: VIA[via], '× bare req/s': (m[via].rps / m.bare.rps).toFixed(2), '× bare CPU': (m[via].cpu / m.bare.cpu).toFixed(2) });
  }
  printResults(rows, ratios);
});
