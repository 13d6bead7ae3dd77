/**
 * A leader for follower tests: a devnet whose blocks the test makes, served over plain HTTP JSON-RPC
 * (no WebSocket, so followers find new heights by polling `status`), with a hook that may rewrite any
 * answer on its way out.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EmbeddedBackendConfig, DevnetNode } from '../../../src/backends/embedded/devnet-node';
import type { JsonObject } from '../../../src/rpc/json';
import { startDevnet, type Harness } from './harness';

type Params = Record<string, string>;
export type Rewrite = (method: string, params: Params, result: JsonObject) => JsonObject;

const routes: Record<string, (b: DevnetNode, p: Params) => Promise<JsonObject>> = {
  genesis: (b) => b.info.genesis(),
  status: (b) => b.info.status(),
  block: (b, p) => b.blocks.block(BigInt(p.height)),
  commit: (b, p) => b.blocks.commit(BigInt(p.height)),
  block_results: (b, p) => b.blocks.blockResults(BigInt(p.height)),
  broadcast_tx_sync: (b, p) => b.mempool.broadcastTxSync(Buffer.from(p.tx, 'base64')),
};

export interface FakeLeader extends Harness {
  url: string;
  /** Calls answered, by method. */
  calls: Map<string, number>;
  rewrite: Rewrite | undefined;
}

export async function startLeader(overrides: Partial<EmbeddedBackendConfig> = {}): Promise<FakeLeader> {
  const harness = await startDevnet(overrides);
  const calls = new Map<string, number>();
  const leader: FakeLeader = { ...harness, url: '', calls, rewrite: undefined };
  const answer = async (msg: { id: number; method: string; params: Params }) => {
    calls.set(msg.method, (calls.get(msg.method) ?? 0) + 1);
    try {
      const result = await routes[msg.method](harness.backend, msg.params);
      return { jsonrpc: '2.0', id: msg.id, result: leader.rewrite ? leader.rewrite(msg.method, msg.params, result) : result };
    } catch (err) {
      return { jsonrpc: '2.0', id: msg.id, error: { code: -32603, message: 'Internal error', data: (err as Error).message } };
    }
  };
  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString());
      const reply = Array.isArray(body) ? await Promise.all(body.map(answer)) : await answer(body);
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  leader.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  leader.stop = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await harness.stop();
  };
  return leader;
}

/** Resolves once `read()` is at least `height`. */
export async function reach(read: () => bigint, height: bigint, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (read() < height) {
    if (Date.now() > deadline) throw new Error(`height ${height} not reached (at ${read()})`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
