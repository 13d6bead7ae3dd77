/**
 * Learns the leader's latest height: a NewBlockHeader subscription on its /websocket tells of each
 * new block at once (the header is all a follower needs to hear), and `status` is polled on an
 * interval as the fallback for a socket that is down or silent. A dropped socket is reopened.
 */
import WebSocket from 'ws';
import type { LeaderConnection } from './leader-connection';

const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 5_000;

export class LeaderHeads {
  private socket: WebSocket | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private reconnectDelayMs = RECONNECT_MIN_MS;
  private running = false;

  constructor(
    private readonly leader: LeaderConnection,
    private readonly pollIntervalMs: number,
    private readonly onHeight: (height: bigint) => void,
    /** A failed status poll: the leader is unreachable or answers errors. */
    private readonly onPollError: (err: Error) => void,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.connect();
    void this.poll();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.pollTimer);
    clearTimeout(this.reconnectTimer);
    this.socket?.terminate();
    this.socket = undefined;
  }

  private async poll(): Promise<void> {
    try {
      const status = await this.leader.call('status');
      const sync = status.sync_info as { latest_block_height?: string } | undefined;
      if (sync?.latest_block_height !== undefined) this.onHeight(BigInt(sync.latest_block_height));
    } catch (err) {
      if (this.running) this.onPollError(err as Error);
    }
    if (this.running) this.pollTimer = setTimeout(() => void this.poll(), this.pollIntervalMs);
  }

  private connect(): void {
    const socket = new WebSocket(this.leader.websocketUrl);
    this.socket = socket;
    socket.on('open', () => {
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: 'follower', method: 'subscribe', params: { query: "tm.event='NewBlockHeader'" } }));
    });
    socket.on('message', (raw) => {
      const height = headerHeight(raw.toString());
      if (height === undefined) return;
      this.reconnectDelayMs = RECONNECT_MIN_MS;
      this.onHeight(height);
    });
    // 'close' follows 'error'; polling covers the gap until the socket is back.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (!this.running || this.socket !== socket) return;
      this.reconnectTimer = setTimeout(() => this.connect(), this.reconnectDelayMs);
      this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, RECONNECT_MAX_MS);
    });
  }
}

function headerHeight(text: string): bigint | undefined {
  try {
    const msg = JSON.parse(text) as { result?: { data?: { value?: { header?: { height?: string } } } } };
    const height = msg.result?.data?.value?.header?.height;
    return height === undefined ? undefined : BigInt(height);
  } catch {
    return undefined;
  }
}
