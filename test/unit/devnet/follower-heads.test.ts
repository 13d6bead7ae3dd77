import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { LeaderClient } from '../../../src/backends/embedded/leader-client';
import { LeaderHeads } from '../../../src/devnet/follower/leader-heads';
import { reach } from '../embedded/follower-leader';

/**
 * A leader's node RPC reduced to what LeaderHeads reads: `status` over HTTP (answering `polled`) and
 * NewBlockHeader events pushed to subscribers of /websocket.
 */
class HeadsLeader {
  polled = '1';
  readonly subscribers = new Set<WebSocket>();
  subscriptions = 0;
  private readonly server: Server;
  private readonly wss = new WebSocketServer({ noServer: true });

  constructor(websocket: boolean) {
    this.server = createServer((req, res) => {
      req.resume().on('end', () => {
        const status = { sync_info: { latest_block_height: this.polled } };
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 0, result: status }));
      });
    });
    this.server.on('upgrade', (req, socket, head) => {
      if (!websocket) {
        socket.destroy();
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        ws.on('message', (raw) => {
          const msg = JSON.parse(raw.toString());
          if (msg.method !== 'subscribe') return;
          this.subscriptions++;
          this.subscribers.add(ws);
          ws.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: {} }));
        });
        ws.on('close', () => this.subscribers.delete(ws));
      });
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  announce(height: number): void {
    const event = { jsonrpc: '2.0', id: 'follower', result: { query: "tm.event='NewBlockHeader'", data: { type: 'tendermint/event/NewBlockHeader', value: { header: { height: String(height) } } } } };
    for (const ws of this.subscribers) ws.send(JSON.stringify(event));
  }

  dropSockets(): void {
    for (const ws of this.subscribers) ws.terminate();
  }

  async close(): Promise<void> {
    this.dropSockets();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

describe('LeaderHeads', () => {
  let leader: HeadsLeader;
  let heads: LeaderHeads;
  let heard: bigint;
  let errors: string[];

  async function start(websocket: boolean, pollIntervalMs: number): Promise<void> {
    leader = new HeadsLeader(websocket);
    const url = await leader.listen();
    heard = 0n;
    errors = [];
    heads = new LeaderHeads(new LeaderClient(url), pollIntervalMs, (h) => (heard = h), (err) => errors.push(err.message));
    heads.start();
  }

  afterEach(async () => {
    heads.stop();
    await leader.close();
  });

  it('hears each new height from the subscription, and again after the socket drops', async () => {
    // Polling slow enough that the subscription is what brings the heights.
    await start(true, 60_000);
    await reach(() => heard, 1n);
    await reach(() => BigInt(leader.subscribers.size), 1n);
    leader.announce(2);
    await reach(() => heard, 2n);

    leader.dropSockets();
    await reach(() => BigInt(leader.subscriptions), 2n);
    leader.announce(3);
    await reach(() => heard, 3n);
    expect(errors).toEqual([]);
  });

  it('polls status when the leader has no WebSocket, and reports a leader that stops answering', async () => {
    await start(false, 20);
    await reach(() => heard, 1n);
    leader.polled = '6';
    await reach(() => heard, 6n);
    await leader.close();
    await reach(() => BigInt(errors.length), 1n);
    expect(errors[0]).toMatch(/ECONNREFUSED|socket hang up|ECONNRESET/);
  });
});
