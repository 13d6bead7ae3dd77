/**
 * What the broadcast queue's end-to-end suites share: a devnet gateway (the real node and EVM upstream)
 * behind TCP proxies a test can break, gateways in upstream mode on a real Redis (in this process or as
 * processes: `rpc-gateway start` and `rpc-gateway worker`), signed EVM txs, and a count of every tx in
 * the devnet's blocks (so that "in a block, and only once" is checked on the chain itself).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Wallet, keccak256 } from 'ethers';
import { Redis } from 'ioredis';
import { evmRpcFlags } from '../support/backends';
import { call, get, post, startTestGateway, waitForHeight, type TestGateway } from '../support/gateway';
import { TcpProxy, upstreamToml } from '../support/upstream';
import { Exposition } from '../unit/metrics/exposition';

export const REDIS_URL = 'redis://127.0.0.1:6379';
const ROOT = join(__dirname, '..', '..');

/** The devnet's first funded account (README). */
export const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

/** A unique Redis key prefix; `dropKeys` removes everything under it. */
export function freshPrefix(): string {
  return `rpcgw-test:${randomUUID()}`;
}

export async function dropKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    await redis.quit();
  }
}

/** The [queue] settings of a test: Redis under `prefix`, quick retries, a short wait for the check. */
export function queueFlags(prefix: string, more: Record<string, string> = {}): Record<string, string> {
  return {
    'queue.redis_url': REDIS_URL,
    'queue.redis_key_prefix': prefix,
    'queue.retry_backoff': '200ms',
    'queue.max_retry_backoff': '1s',
    'queue.check_timeout': '1s',
    ...more,
  };
}

/** A devnet gateway with its EVM RPC and metrics, and proxies in front of its node RPC and EVM HTTP ports. */
export interface Devnet {
  readonly gw: TestGateway;
  readonly nodeProxy: TcpProxy;
  readonly evmProxy: TcpProxy;
  /** Both proxies drop their connections and refuse new ones: the backend is down. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startDevnet(): Promise<Devnet> {
  const gw = await startTestGateway({
    ...evmRpcFlags('eth,net,web3'),
    'devnet.block_time': '200ms',
    'instrumentation.prometheus': 'true',
    'instrumentation.prometheus_listen_addr': '127.0.0.1:0',
  });
  await waitForHeight(gw.url, 1);
  const nodeProxy = await new TcpProxy(Number(new URL(gw.url).port)).start();
  const evmProxy = await new TcpProxy(Number(new URL(gw.evmHttpUrl!).port)).start();
  let isDown = false;
  return {
    gw,
    nodeProxy,
    evmProxy,
    async down() {
      if (isDown) return;
      isDown = true;
      await Promise.all([nodeProxy.kill(), evmProxy.kill()]);
    },
    async up() {
      if (!isDown) return;
      isDown = false;
      await Promise.all([nodeProxy.revive(), evmProxy.revive()]);
    },
    async close() {
      await Promise.all([nodeProxy.close(), evmProxy.close()]);
      await gw.close();
    },
  };
}

/** gateway.toml of a gateway in upstream mode in front of the devnet's proxies. */
export function upstreamGatewayToml(devnet: Devnet): string {
  return upstreamToml([{ name: 'devnet', url: devnet.nodeProxy.url }], { health_check_interval: '200ms' }, [{ name: 'devnet', url: devnet.evmProxy.url }]);
}

export interface GatewayProc {
  readonly home: string;
  /** Node RPC URL (`start`); undefined for a worker. */
  readonly url: string | undefined;
  readonly evmUrl: string | undefined;
  readonly metricsUrl: string | undefined;
  /** SIGKILL. */
  kill(): Promise<void>;
  /** SIGTERM (a graceful stop); resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * `rpc-gateway <command>` as a process of its own (sources compiled on load), on `home` (its
 * config/gateway.toml written by the caller), with `flags` as --set; resolves once it is ready.
 */
export async function startProcess(command: 'start' | 'worker', home: string, flags: Record<string, string>, timeoutMs = 60_000): Promise<GatewayProc> {
  const args = ['-r', join(ROOT, 'test', 'support', 'register-ts.js'), join(ROOT, 'src', 'main.ts'), command, '--home', home];
  const settings = {
    'rpc.laddr': 'tcp://127.0.0.1:0',
    'instrumentation.prometheus': 'true',
    'instrumentation.prometheus_listen_addr': '127.0.0.1:0',
    'log.format': 'json',
    ...flags,
  };
  for (const [key, value] of Object.entries(settings)) args.push('--set', `${key}=${value}`);
  // Only what the process needs from this environment: no REDIS_URL or RPCGW_* of the test runner's.
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const ready = await readyLines(child, command, timeoutMs);
    const alive = () => child.exitCode === null && child.signalCode === null;
    return {
      home,
      ...ready,
      async kill() {
        if (alive()) child.kill('SIGKILL');
        await exited;
      },
      async stop() {
        if (alive()) child.kill('SIGTERM');
        return exited;
      },
    };
  } catch (err) {
    child.kill('SIGKILL');
    await exited;
    throw err;
  }
}

/** Reads the JSON log lines until the process says it is ready; fails with its stderr if it exits first. */
function readyLines(child: ChildProcess, command: 'start' | 'worker', timeoutMs: number): Promise<Pick<GatewayProc, 'url' | 'evmUrl' | 'metricsUrl'>> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    let url: string | undefined;
    let evmUrl: string | undefined;
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => reject(new Error(`rpc-gateway ${command} was not ready within ${timeoutMs} ms: ${stderr}`)), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`rpc-gateway ${command} exited with ${code}: ${stderr}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let entry: { msg?: string; metrics?: string };
      try {
        entry = JSON.parse(line) as { msg?: string; metrics?: string };
      } catch {
        return;
      }
      const msg = entry.msg ?? '';
      if (msg.startsWith('node RPC listening on ')) url = msg.slice('node RPC listening on '.length).split(/[ ,]/)[0];
      if (msg.startsWith('EVM JSON-RPC listening on ')) evmUrl = msg.slice('EVM JSON-RPC listening on '.length).split(' ')[0];
      const ready = command === 'start' ? msg.includes(' ready') && entry.metrics !== undefined : msg.startsWith('broadcast queue worker running');
      if (!ready) return;
      clearTimeout(timer);
      const metricsUrl = command === 'start' ? entry.metrics : /metrics on (\S+)/.exec(msg)?.[1];
      resolve({ url, evmUrl, metricsUrl });
    });
  });
}

/** A fresh home with config/gateway.toml. */
export function homeWith(gatewayToml: string): string {
  const home = mkdtempSync(join(tmpdir(), 'rpcgw-queue-'));
  mkdirSync(join(home, 'config'));
  writeFileSync(join(home, 'config', 'gateway.toml'), gatewayToml);
  return home;
}

export function removeHome(home: string): void {
  rmSync(home, { recursive: true, force: true });
}

/** A kvstore tx (`key=value`, the key's characters other than letters, digits and `-` made `-`) and its CometBFT hash. */
export function kvTx(key: string, value = 'v'): { base64: string; hash: string } {
  const bytes = Buffer.from(`${key.replace(/[^A-Za-z0-9-]/g, '-')}=${value}`);
  return { base64: bytes.toString('base64'), hash: createHash('sha256').update(bytes).digest('hex').toUpperCase() };
}

/** `count` signed transfers of the dev account from its next nonce, and their hashes. */
export async function evmTransfers(devnetEvmUrl: string, count: number, key = DEV_KEY): Promise<{ raw: string; hash: string }[]> {
  const wallet = new Wallet(key);
  const [chainId, nonce] = await Promise.all([
    evmCall(devnetEvmUrl, 'eth_chainId', []),
    evmCall(devnetEvmUrl, 'eth_getTransactionCount', [wallet.address, 'pending']),
  ]);
  const txs = [];
  for (let i = 0; i < count; i++) {
    const raw = await wallet.signTransaction({
      type: 2,
      chainId: BigInt(chainId),
      nonce: Number(BigInt(nonce)) + i,
      to: '0x000000000000000000000000000000000000dEaD',
      value: 1n,
      gasLimit: 21_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });
    txs.push({ raw, hash: keccak256(raw) });
  }
  return txs;
}

/** An EVM JSON-RPC call; the result, or an Error carrying the error object. */
export async function evmCall(url: string, method: string, params: unknown[]): Promise<any> {
  const res = await post(url, { jsonrpc: '2.0', id: 1, method, params });
  if (res.json?.error) throw Object.assign(new Error(`${method}: ${JSON.stringify(res.json.error)}`), { rpc: res.json.error });
  return res.json.result;
}

/** A node RPC call over JSON-RPC; the whole answer (result or error). */
export async function nodeCall(url: string, method: string, params: unknown): Promise<{ result?: any; error?: any }> {
  return (await post(url, { jsonrpc: '2.0', id: 1, method, params })).json;
}

/**
 * How many times each tx is in the devnet's blocks from `fromHeight` on: by CometBFT hash (sha256, upper
 * case) and by EVM hash (keccak of the same bytes), so that both kinds of tx are found.
 */
export async function txsInBlocks(devnetUrl: string, fromHeight: number): Promise<Map<string, number>> {
  const latest = Number((await call(devnetUrl, 'status')).sync_info.latest_block_height);
  const seen = new Map<string, number>();
  for (let h = fromHeight; h <= latest; h++) {
    const block = await call(devnetUrl, 'block', { height: String(h) });
    for (const tx of (block.block.data.txs ?? []) as string[]) {
      const bytes = Buffer.from(tx, 'base64');
      for (const hash of [createHash('sha256').update(bytes).digest('hex').toUpperCase(), keccak256(bytes)]) seen.set(hash, (seen.get(hash) ?? 0) + 1);
    }
  }
  return seen;
}

export async function latestHeight(devnetUrl: string): Promise<number> {
  return Number((await call(devnetUrl, 'status')).sync_info.latest_block_height);
}

/** Waits until every hash is in a block from `fromHeight` on; the counts then. */
export async function waitForInclusion(devnetUrl: string, fromHeight: number, hashes: readonly string[], timeoutMs = 30_000): Promise<Map<string, number>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const seen = await txsInBlocks(devnetUrl, fromHeight);
    const missing = hashes.filter((h) => !seen.has(h));
    if (missing.length === 0) return seen;
    if (Date.now() > deadline) throw new Error(`not in a block after ${timeoutMs} ms: ${missing.join(', ')}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A metric's value in the exposition at `metricsUrl` (0 when absent). */
export async function metric(metricsUrl: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  return (await scrape(metricsUrl)).value(name, labels) ?? 0;
}

/** One scrape of `metricsUrl` (on a connection of its own: the metrics listener takes few at once). */
export async function scrape(metricsUrl: string): Promise<Exposition> {
  return new Exposition((await get(metricsUrl, '/metrics', { headers: { connection: 'close' } })).text);
}

export async function until(done: () => boolean | Promise<boolean>, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
