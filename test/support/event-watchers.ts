/**
 * Real dApp clients watching a contract's events through a balancer, each counting its own
 * `eth_getFilterChanges` polls (answered ones) and the errors they got, so that a test can tell when an
 * event arrived in polls rather than in seconds.
 */
import { request } from 'node:http';
import { Contract, JsonRpcProvider, type Interface, type JsonRpcPayload, type JsonRpcResult, type Log } from 'ethers';
import { createPublicClient, http, type Abi } from 'viem';

export interface Sighting {
  readonly tx: string;
  /** Answered polls of this watcher when it saw the event. */
  readonly poll: number;
}

export interface EventWatcher {
  readonly name: string;
  readonly seen: Sighting[];
  /** Error messages of its polls (answered with an error, or failed). */
  readonly errors: string[];
  polls(): number;
  stop(): Promise<void>;
}

interface RpcAnswer {
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error?: { code: number; message: string };
}

/** ethers v6 `contract.on`: ethers makes an `eth_newFilter` and polls it on each new block. */
export async function watchWithEthers(url: string, address: string, abi: Interface, event: string, pollingInterval: number): Promise<EventWatcher> {
  let polls = 0;
  const errors: string[] = [];
  class CountingProvider extends JsonRpcProvider {
    override async _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
      const polling = (Array.isArray(payload) ? payload : [payload]).some((p) => p.method === 'eth_getFilterChanges');
      let answers: (JsonRpcResult | RpcAnswer)[];
      try {
        answers = await super._send(payload);
      } catch (err) {
        if (polling) errors.push((err as Error).message);
        throw err;
      }
      if (polling) {
        const failed = answers.filter((a): a is RpcAnswer & { error: { message: string } } => 'error' in a && a.error !== undefined);
        errors.push(...failed.map((a) => a.error.message));
        if (failed.length === 0) polls++;
      }
      return answers as JsonRpcResult[];
    }
  }
  const provider = new CountingProvider(url, undefined, { staticNetwork: true, pollingInterval, batchMaxCount: 1 });
  const seen: Sighting[] = [];
  const contract = new Contract(address, abi, provider);
  await contract.on(event, (...args: unknown[]) => {
    const payload = args[args.length - 1] as { log: Log };
    seen.push({ tx: payload.log.transactionHash, poll: polls });
  });
  return {
    name: 'ethers contract.on',
    seen,
    errors,
    polls: () => polls,
    async stop() {
      await contract.removeAllListeners();
      provider.destroy();
    },
  };
}

/** viem `watchContractEvent` over its HTTP transport, polling (`eth_newFilter`, then `eth_getFilterChanges`). */
export async function watchWithViem(url: string, address: string, abi: Interface, event: string, pollingInterval: number): Promise<EventWatcher> {
  let polls = 0;
  const errors: string[] = [];
  const seen: Sighting[] = [];
  const countingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const polling = typeof init?.body === 'string' && init.body.includes('"eth_getFilterChanges"');
    let res: Response;
    try {
      res = await fetch(input, init);
    } catch (err) {
      if (polling) errors.push((err as Error).message);
      throw err;
    }
    if (!polling) return res;
    const answer = (await res.clone().json().catch(() => ({ error: { code: res.status, message: `HTTP ${res.status}` } }))) as RpcAnswer;
    if (answer.error) errors.push(answer.error.message);
    else polls++;
    return res;
  };
  const client = createPublicClient({ transport: http(url, { fetchFn: countingFetch, retryCount: 0 }), pollingInterval });
  const unwatch = client.watchContractEvent({
    address: address as `0x${string}`,
    abi: JSON.parse(abi.formatJson()) as Abi,
    eventName: event,
    poll: true,
    pollingInterval,
    onLogs: (logs) => {
      for (const log of logs) seen.push({ tx: log.transactionHash!, poll: polls });
    },
    onError: (err) => errors.push(err.message),
  });
  return {
    name: 'viem watchContractEvent',
    seen,
    errors,
    polls: () => polls,
    async stop() {
      unwatch();
    },
  };
}

export interface RawAnswer extends RpcAnswer {
  /** The connection failed (a replica killed under it) rather than answering. */
  readonly dropped?: string;
}

/** One JSON-RPC call on a connection of its own (no keep-alive agent): a TCP balancer routes each anew. */
export function callOnNewConnection(url: string, method: string, params: unknown[] = [], headers: Record<string, string> = {}): Promise<RawAnswer> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString()) as RawAnswer);
        } catch {
          resolve({ dropped: `HTTP ${res.statusCode}` });
        }
      });
      res.on('error', (err) => resolve({ dropped: err.message }));
    });
    req.on('error', (err) => resolve({ dropped: err.message }));
    req.end(body);
  });
}
