'use strict';
/**
 * What compressing an answer costs and saves, on two large EVM answers shaped as mainnet's are:
 *
 *   full block      eth_getBlockByNumber(n, true): 200 transactions (EIP-1559 transfers and token
 *                   calls among 300 accounts and 20 contracts; hashes and signatures random)
 *   eth_getLogs     3,000 ERC-20 Transfer logs of 20 tokens among 300 accounts, over 100 blocks
 *
 * For gzip at levels 1 (the gateway's), 4, 6 (zlib's default) and 9, deflate at 1, and brotli at quality
 * 4 and 11 (its default): the compressed size, the ratio, and the CPU time of one compression (the median
 * of BENCH_ITERATIONS, default 40, the codecs taking turns). The answers are made from a fixed seed, so
 * every run compresses the same bytes. Then each answer served over a real socket by the gateway's
 * AnswerCompressor (dist/, so build first), uncompressed and gzip taking turns: CPU per request (client
 * and server share this process) and bytes sent.
 */
const { brotliCompressSync, constants, deflateSync, gzipSync } = require('node:zlib');
const http = require('node:http');

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 40);

/** A small deterministic generator (mulberry32), so runs compare. */
function generator(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = generator(23);
const hex = (bytes) => '0x' + Array.from({ length: bytes }, () => Math.floor(rand() * 256).toString(16).padStart(2, '0')).join('');
const qty = (n) => '0x' + n.toString(16);
const pick = (list) => list[Math.floor(rand() * list.length)];
const pad = (address) => '0x' + '0'.repeat(24) + address.slice(2);
const ACCOUNTS = Array.from({ length: 300 }, () => hex(20));
const TOKENS = Array.from({ length: 20 }, () => hex(20));
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const amount = () => '0x' + '0'.repeat(40) + hex(12).slice(2);

function fullBlock(number) {
  const hash = hex(32);
  const transactions = Array.from({ length: 200 }, (_, i) => {
    const token = rand() < 0.6;
    return {
      blockHash: hash,
      blockNumber: qty(number),
      from: pick(ACCOUNTS),
      gas: qty(token ? 65_000 : 21_000),
      gasPrice: qty(1_500_000_000 + Math.floor(rand() * 1e9)),
      maxFeePerGas: qty(30_000_000_000),
      maxPriorityFeePerGas: qty(1_500_000_000),
      hash: hex(32),
      input: token ? '0xa9059cbb' + pad(pick(ACCOUNTS)).slice(2) + amount().slice(2) : '0x',
      nonce: qty(Math.floor(rand() * 5000)),
      to: token ? pick(TOKENS) : pick(ACCOUNTS),
      transactionIndex: qty(i),
      value: token ? '0x0' : qty(Math.floor(rand() * 1e18)),
      type: '0x2',
      accessList: [],
      chainId: '0x2328',
      v: qty(Math.floor(rand() * 2)),
      yParity: qty(Math.floor(rand() * 2)),
      r: hex(32),
      s: hex(32),
    };
  });
  return {
    baseFeePerGas: qty(1_000_000_000), difficulty: '0x0', extraData: '0x', gasLimit: qty(30_000_000), gasUsed: qty(9_000_000),
    hash, logsBloom: hex(256), miner: pick(ACCOUNTS), mixHash: '0x' + '0'.repeat(64), nonce: '0x0000000000000000', number: qty(number),
    parentHash: hex(32), receiptsRoot: hex(32), sha3Uncles: hex(32), size: qty(90_000), stateRoot: hex(32), timestamp: qty(1_700_000_000 + number),
    transactions, transactionsRoot: hex(32), uncles: [], withdrawals: [], withdrawalsRoot: hex(32),
  };
}

function logs(count) {
  const out = [];
  for (let block = 0; out.length < count; block++) {
    const blockHash = hex(32);
    for (let i = 0; i < count / 100 && out.length < count; i++) {
      out.push({
        address: pick(TOKENS), topics: [TRANSFER, pad(pick(ACCOUNTS)), pad(pick(ACCOUNTS))], data: amount(),
        blockNumber: qty(19_000_000 + block), blockHash, blockTimestamp: qty(1_700_000_000 + block * 12), transactionHash: hex(32),
        transactionIndex: qty(i), logIndex: qty(i), removed: false,
      });
    }
  }
  return out;
}

const answer = (result) => Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result }) + '\n');
const ANSWERS = { 'full block': answer(fullBlock(19_000_000)), 'eth_getLogs': answer(logs(3000)) };

const CODECS = {
  'gzip 1 (gateway)': (b) => gzipSync(b, { level: 1 }),
  'gzip 4': (b) => gzipSync(b, { level: 4 }),
  'gzip 6': (b) => gzipSync(b, { level: 6 }),
  'gzip 9': (b) => gzipSync(b, { level: 9 }),
  'deflate 1': (b) => deflateSync(b, { level: 1 }),
  'br 4': (b) => brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: b.length } }),
  'br 11': (b) => brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_SIZE_HINT]: b.length } }),
};

/** One codec's CPU time for one compression, in µs. */
function cpuOnce(fn) {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * The median CPU µs of each codec on `body`, the codecs taking turns (a busy moment of a shared machine
 * then lands on all of them); brotli 11, a hundred times slower, alone and only 3 times.
 */
function cpuByCodec(body) {
  const times = Object.fromEntries(Object.keys(CODECS).map((codec) => [codec, []]));
  const turns = Object.entries(CODECS).filter(([codec]) => codec !== 'br 11');
  for (const [, fn] of turns) fn(body);
  for (let i = 0; i < ITERATIONS; i++) for (const [codec, fn] of turns) times[codec].push(cpuOnce(() => fn(body)));
  for (let i = 0; i < 3; i++) times['br 11'].push(cpuOnce(() => CODECS['br 11'](body)));
  return Object.fromEntries(Object.entries(times).map(([codec, list]) => [codec, median(list)]));
}

/**
 * CPU µs per request of this process (client and server: the difference is the compression) and bytes
 * sent, for `body` served over a real socket by the gateway's AnswerCompressor, uncompressed and gzip
 * taking turns request by request.
 */
async function overSocket(body) {
  const { AnswerCompressor } = require('../dist/rpc/http/answer-compression');
  const compressor = new AnswerCompressor({ http: true, min_bytes: 1024, ws_permessage_deflate: false });
  const text = body.toString();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => compressor.send(req, res, 200, ['Content-Type', 'application/json'], text));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const once = (encoding) => new Promise((resolve, reject) => {
    const headers = encoding === 'identity' ? {} : { 'accept-encoding': encoding };
    const req = http.request({ port: server.address().port, host: '127.0.0.1', method: 'POST', agent, headers }, (res) => {
      let bytes = 0;
      res.on('data', (c) => (bytes += c.length));
      res.on('end', () => resolve(bytes));
    });
    req.on('error', reject);
    req.end('{}');
  });
  const encodings = ['identity', 'gzip'];
  const result = Object.fromEntries(encodings.map((e) => [e, { cpu: [], bytes: 0 }]));
  for (let i = 0; i < 10; i++) for (const e of encodings) await once(e);
  for (let i = 0; i < ITERATIONS * 2; i++) {
    for (const e of encodings) {
      const start = process.cpuUsage();
      result[e].bytes = await once(e);
      const used = process.cpuUsage(start);
      result[e].cpu.push(used.user + used.system);
    }
  }
  agent.destroy();
  await new Promise((resolve) => server.close(resolve));
  return Object.fromEntries(encodings.map((e) => [e, { cpu: median(result[e].cpu), bytes: result[e].bytes }]));
}

async function main() {
  console.log(`Node.js ${process.version}; median CPU of ${ITERATIONS} compressions per codec, codecs taking turns (br 11: 3)\n`);
  for (const [name, body] of Object.entries(ANSWERS)) {
    console.log(`${name}: ${body.length} bytes`);
    console.log('| codec | bytes | saved | ratio | CPU µs | µs per KiB in |');
    console.log('|---|---:|---:|---:|---:|---:|');
    const cpus = cpuByCodec(body);
    for (const [codec, fn] of Object.entries(CODECS)) {
      const size = fn(body).length;
      const cpu = cpus[codec];
      console.log(`| ${codec} | ${size} | ${((1 - size / body.length) * 100).toFixed(1)} % | ${(body.length / size).toFixed(2)} | ${cpu.toFixed(0)} | ${(cpu / (body.length / 1024)).toFixed(2)} |`);
    }
    console.log('');
  }
  console.log('over a socket, per request (median CPU µs of client and server in this process; bytes sent):');
  for (const [name, body] of Object.entries(ANSWERS)) {
    const { identity, gzip } = await overSocket(body);
    console.log(`  ${name}: uncompressed ${identity.cpu} µs, ${identity.bytes} bytes; gzip ${gzip.cpu} µs (${gzip.cpu >= identity.cpu ? '+' : ''}${gzip.cpu - identity.cpu}), ${gzip.bytes} bytes`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
