import { computeAddress, formatEther } from 'ethers';
import { BACKEND_SERVICES, type BackendServices, type PoolSnapshot } from '../backends/backend-services';
import type { RunningGateway } from '../bootstrap';
import type { AppConfig } from '../config/config.types';
import { formatDuration } from '../config/duration';
import { DEV_MNEMONIC, devAccounts } from '../devnet/app/evm/dev-accounts';
import { eth_chainId } from '../evm-rpc/eth/chain.methods';
import { eth_getBalance } from '../evm-rpc/eth/state.methods';
import { status as nodeStatus } from '../node-rpc/info/info.methods';
import type { Invoker } from '../rpc/invoker';
import { INVOKER } from '../rpc/registration';

/** How long the banner waits for a backend's answer (an upstream may be slow) before it says "unknown". */
const ASK_TIMEOUT_MS = 3_000;

export interface DevAccountLine {
  /** EIP-55 checksummed address. */
  readonly address: string;
  /** 0x-prefixed private key. */
  readonly privateKey: string;
  readonly balance: bigint | undefined;
}

export interface UpstreamLine {
  readonly name: string;
  /** `scheme://host[:port]` only (credentials in a URL are never shown). */
  readonly url: string;
  readonly healthy: boolean;
  readonly height: string;
  /** Why it is down: what its last health check found. */
  readonly reason: string;
}

export interface PoolLine {
  readonly surface: 'node' | 'evm';
  readonly head: string;
  readonly upstreams: readonly UpstreamLine[];
}

/** What the start-up banner shows, read from the running gateway. */
export interface GatewaySummary {
  readonly version: string;
  readonly backend: string;
  /** The embedded devnet's role and pace; undefined in upstream mode. */
  readonly devnet?: { readonly follow: string; readonly blockTimeMs: number; readonly ephemeral: boolean };
  /** CometBFT chain id (`status` → `node_info.network`); undefined when the backend did not say. */
  readonly chainId: string | undefined;
  /** EIP-155 chain id (`eth_chainId`); undefined without an EVM backend that answers. */
  readonly evmChainId: bigint | undefined;
  readonly nodeRpcUrls: readonly string[];
  readonly evmHttpUrl: string | undefined;
  readonly evmWsUrl: string | undefined;
  readonly evmApi: readonly string[];
  readonly metricsUrl: string | undefined;
  readonly home: string;
  readonly devAccounts: readonly DevAccountLine[];
  /** The mnemonic the dev accounts derive from, when they are the well-known ones. */
  readonly mnemonic: string | undefined;
  readonly pools: readonly PoolLine[];
}

export interface SummaryOptions {
  /** Read the dev accounts, their keys and balances (the banner); false for a log line. */
  readonly devAccounts: boolean;
}

function withTimeout<T>(promise: Promise<T>, ms = ASK_TIMEOUT_MS): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
    timer.unref();
  });
  return Promise.race([promise.catch(() => undefined), timeout]).finally(() => clearTimeout(timer));
}

function optional<T>(get: () => T): T | undefined {
  try {
    return get();
  } catch {
    return undefined;
  }
}

function pools(snapshot: ReturnType<BackendServices['pools']> | undefined): PoolLine[] {
  const lines: PoolLine[] = [];
  for (const surface of ['node', 'evm'] as const) {
    const pool: PoolSnapshot | undefined = snapshot?.[surface];
    if (!pool) continue;
    lines.push({
      surface,
      head: pool.head,
      upstreams: pool.upstreams.map((u) => ({
        name: String(u.name ?? ''),
        url: String(u.url ?? ''),
        healthy: u.healthy === true,
        height: String(u.latest_height ?? '0'),
        reason: [u.reason, u.error].filter((x) => typeof x === 'string' && x !== '').join(': '),
      })),
    });
  }
  return lines;
}

/** Reads what the banner shows from a started gateway: its backends answer the chain ids, keys and pools. */
export async function summarizeGateway(gateway: RunningGateway, config: AppConfig, version: string, options: SummaryOptions): Promise<GatewaySummary> {
  const node = optional(() => gateway.app.get<symbol, Invoker>(INVOKER.node));
  const evm = optional(() => gateway.app.get<symbol, Invoker>(INVOKER.evm));
  const backend = optional(() => gateway.app.get<symbol, BackendServices>(BACKEND_SERVICES));

  const [status, evmChainId] = await Promise.all([
    node ? withTimeout(node.invoke(nodeStatus, {})) : undefined,
    evm ? withTimeout(evm.invoke(eth_chainId, {}).then(BigInt)) : undefined,
  ]);
  const keys = backend && options.devAccounts ? backend.devAccountKeys() : [];
  const network = status?.node_info?.network;

  const accounts = await Promise.all(
    keys.map(async (key) => {
      const privateKey = `0x${Buffer.from(key).toString('hex')}`;
      const address = computeAddress(privateKey);
      const balance = evm ? await withTimeout(evm.invoke(eth_getBalance, { address: address.toLowerCase(), block: { kind: 'tag', tag: 'latest' } }).then(BigInt)) : undefined;
      return { address, privateKey, balance };
    }),
  );
  const wellKnown = devAccounts()[0];
  const fromMnemonic = accounts.length > 0 && wellKnown !== undefined && accounts[0].privateKey === `0x${Buffer.from(wellKnown.privateKey).toString('hex')}`;

  const embedded = config.gateway.backend.kind === 'embedded';
  return {
    version,
    backend: config.gateway.backend.kind,
    devnet: embedded
      ? { follow: config.gateway.devnet.follow, blockTimeMs: config.gateway.devnet.block_time, ephemeral: config.gateway.devnet.ephemeral }
      : undefined,
    chainId: typeof network === 'string' ? network : undefined,
    evmChainId: typeof evmChainId === 'bigint' ? evmChainId : undefined,
    nodeRpcUrls: gateway.nodeRpcUrls,
    evmHttpUrl: gateway.evmHttpUrl,
    evmWsUrl: gateway.evmWsUrl,
    evmApi: config.jsonRpc.api,
    metricsUrl: gateway.metricsUrl,
    home: config.home,
    devAccounts: accounts,
    mnemonic: fromMnemonic ? DEV_MNEMONIC : undefined,
    pools: backend ? pools(optional(() => backend.pools())) : [],
  };
}

type Paint = (text: string) => string;

interface Palette {
  readonly bold: Paint;
  readonly dim: Paint;
  readonly green: Paint;
  readonly red: Paint;
  readonly yellow: Paint;
  readonly cyan: Paint;
}

const sgr = (open: number, close: number): Paint => (text) => `\u001b[${open}m${text}\u001b[${close}m`;
const PLAIN: Paint = (text) => text;
const COLORS: Palette = { bold: sgr(1, 22), dim: sgr(2, 22), green: sgr(32, 39), red: sgr(31, 39), yellow: sgr(33, 39), cyan: sgr(36, 39) };
const NO_COLORS: Palette = { bold: PLAIN, dim: PLAIN, green: PLAIN, red: PLAIN, yellow: PLAIN, cyan: PLAIN };

/** `ws://host:port/websocket` of a node RPC base URL (a unix socket has none to show). */
function nodeWsUrl(url: string): string | undefined {
  return /^https?:\/\//.test(url) ? `${url.replace(/^http/, 'ws')}/websocket` : undefined;
}

function ether(wei: bigint): string {
  const text = formatEther(wei);
  return text.endsWith('.0') ? text.slice(0, -2) : text;
}

export interface BannerOptions {
  readonly color: boolean;
  /** Milliseconds from the process start to ready, shown in the title. */
  readonly readyMs?: number;
}

/**
 * The start-up banner, as anvil and hardhat print one: what is running, where to reach it and, on
 * the devnet, the accounts to use (marked as development-only). Plain text, ANSI colours optional.
 */
export function renderBanner(s: GatewaySummary, options: BannerOptions): string {
  const c = options.color ? COLORS : NO_COLORS;
  const row = (label: string, value: string) => `  ${c.dim(label.padEnd(12))}  ${value}`;
  const off = (how: string) => c.dim(`off (${how})`);
  const lines: string[] = [];

  const ready = options.readyMs === undefined ? '' : c.dim(` · ready in ${(options.readyMs / 1000).toFixed(1)} s`);
  lines.push('', `${c.bold(`rpc-gateway ${s.version}`)}${ready}`, '');

  if (s.devnet) {
    const role = s.devnet.follow ? `full node following ${s.devnet.follow}` : `validator, a block every ${formatDuration(s.devnet.blockTimeMs)}`;
    lines.push(row('Backend', `embedded devnet (${role}${s.devnet.ephemeral ? ', in memory' : ''})`));
  } else {
    lines.push(row('Backend', s.backend === 'upstream' ? 'upstream nodes' : s.backend));
  }
  const chain = s.chainId === undefined ? c.yellow('unknown (the node backend did not answer status)') : c.cyan(s.chainId);
  const evmChain = s.evmChainId === undefined ? '' : `  ${c.dim('EVM')} ${c.cyan(s.evmChainId.toString())} ${c.dim(`(0x${s.evmChainId.toString(16)})`)}`;
  lines.push(row('Chain ID', `${chain}${evmChain}`));
  for (const [i, url] of s.nodeRpcUrls.entries()) {
    const ws = nodeWsUrl(url);
    lines.push(row(i === 0 ? 'Node RPC' : '', `${url}${ws ? `  ${ws}` : ''}`));
  }
  if (s.nodeRpcUrls.length === 0) lines.push(row('Node RPC', off('[rpc] laddr')));
  lines.push(
    row(
      'EVM RPC',
      s.evmHttpUrl ? `${s.evmHttpUrl}  ${s.evmWsUrl ?? ''}  ${c.dim(`(${s.evmApi.join(', ')})`)}` : off('--json-rpc.enable'),
    ),
  );
  lines.push(row('Metrics', s.metricsUrl ? `${s.metricsUrl}/metrics  ${c.dim('/livez /readyz')}` : off('--instrumentation.prometheus')));
  lines.push(row('Home', s.home));

  for (const pool of s.pools) {
    lines.push('', `  ${c.bold(`${pool.surface === 'node' ? 'Node RPC' : 'EVM'} upstreams`)} ${c.dim(`(head ${pool.head})`)}`);
    const nameWidth = Math.max(...pool.upstreams.map((u) => u.name.length));
    const urlWidth = Math.max(...pool.upstreams.map((u) => u.url.length));
    for (const u of pool.upstreams) {
      const health = u.healthy ? c.green('up  ') : c.red('down');
      const detail = u.healthy ? c.dim(`height ${u.height}`) : c.yellow(u.reason || 'not answering');
      lines.push(`  ${health}  ${u.name.padEnd(nameWidth)}  ${u.url.padEnd(urlWidth)}  ${detail}`);
    }
  }

  if (s.devAccounts.length > 0) {
    const balances = new Set(s.devAccounts.map((a) => a.balance));
    const each = balances.size === 1 && s.devAccounts[0].balance !== undefined ? ` ${c.dim(`(${ether(s.devAccounts[0].balance)} ETH each)`)}` : '';
    lines.push('', `  ${c.bold('Dev accounts')}${each}`);
    lines.push(`  ${c.yellow('For development only: these keys are public. Anything sent to them on a real network is lost.')}`);
    for (const [i, a] of s.devAccounts.entries()) {
      lines.push(`  ${c.dim(`(${i})`.padStart(4))} ${a.address}  ${c.dim('key')} ${a.privateKey}`);
    }
    if (s.mnemonic) lines.push(row('Mnemonic', `${s.mnemonic}  ${c.dim("(m/44'/60'/0'/0/i)")}`));
  }

  lines.push('', c.dim(`Logs follow${s.devnet ? ', with a line per block' : ''}. Ctrl-C to stop.`), '');
  return `${lines.join('\n')}\n`;
}
