/**
 * Three gateway replicas in upstream mode over one embedded-devnet gateway (the real node), sharing one
 * Redis under a key prefix of their own: two in this process and one in a process of its own, which a
 * test can SIGKILL.
 */
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { evmRpcFlags } from './backends';
import { startTestGateway, waitForHeight, type TestGateway } from './gateway';
import { startUpstreamGateway, startUpstreamGatewayProcess, upstreamToml, type UpstreamGateway, type UpstreamGatewayProcess } from './upstream';

export const REDIS_URL = 'redis://127.0.0.1:6379';

export interface Replica {
  /** EVM JSON-RPC over HTTP, and its WebSocket. */
  readonly evmHttpUrl: string;
  readonly evmWsUrl: string;
}

export interface ReplicaSet {
  readonly devnet: TestGateway;
  /** A and B run in this process; C in a process of its own. */
  readonly replicas: readonly [Replica, Replica, Replica];
  /** SIGKILL to C: it dies mid-whatever, its sockets reset, its Redis leases stay until they expire. */
  killC(): Promise<void>;
  close(): Promise<void>;
}

/** `flags` (CLI dotted keys) are given to every replica, over shared filters and access on Redis. */
export async function startReplicaSet(flags: Record<string, string>, blockTime = '250ms'): Promise<ReplicaSet> {
  const prefix = `rpcgw-test:replicas:${randomUUID()}:`;
  const devnet = await startTestGateway({ ...evmRpcFlags('eth,net,web3'), 'devnet.block_time': blockTime });
  const started: UpstreamGateway[] = [];
  let c: UpstreamGatewayProcess | undefined;
  const close = async () => {
    await c?.close();
    await Promise.all(started.map((r) => r.close()));
    await devnet.close();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  };
  try {
    await waitForHeight(devnet.url, 1);
    const all = {
      ...evmRpcFlags('eth,net,web3'),
      'filters.redis_url': REDIS_URL,
      'filters.redis_key_prefix': `${prefix}filters:`,
      'access.redis_url': REDIS_URL,
      'access.redis_key_prefix': `${prefix}access:`,
      ...flags,
    };
    const nodes = [{ name: 'devnet', url: devnet.url }];
    const evm = [{ name: 'devnet', url: devnet.evmHttpUrl! }];
    const inProcess = () => startUpstreamGateway(nodes, { evm, flags: all }).then((r) => (started.push(r), r));
    const separate = startUpstreamGatewayProcess(upstreamToml(nodes, { health_check_interval: '200ms' }, evm), all).then((p) => (c = p));
    // Every start settles before any failure is thrown, so that close() stops all that did start.
    const settled = await Promise.allSettled([inProcess(), inProcess(), separate]);
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    const [a, b] = started;
    const proc = c!;
    return {
      devnet,
      replicas: [
        { evmHttpUrl: a.evmHttpUrl!, evmWsUrl: a.evmWsUrl! },
        { evmHttpUrl: b.evmHttpUrl!, evmWsUrl: b.evmWsUrl! },
        { evmHttpUrl: proc.evmUrl, evmWsUrl: proc.evmWsUrl },
      ],
      async killC() {
        process.kill(proc.pid, 'SIGKILL');
        await proc.exited;
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
