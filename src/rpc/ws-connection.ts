import type { WebSocket } from 'ws';
import type { RpcConnection } from './call-context';

export interface WsKeepAlive {
  /** Interval of server pings. */
  readonly pingMs: number;
  /** The socket is closed when nothing (frame or pong) arrives for this long. */
  readonly readTimeoutMs: number;
}

/**
 * A JSON-RPC WebSocket connection: bounded outgoing queue (a sender awaits room, so a slow reader
 * pushes back on whoever feeds it), server pings, and a read deadline.
 */
export class WsRpcConnection implements RpcConnection {
  private queued = 0;
  private readonly waiters: Array<() => void> = [];
  private closed = false;
  private readonly closeListeners: Array<() => void> = [];
  private lastSeen = Date.now();
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly id: string,
    private readonly socket: WebSocket,
    private readonly maxQueued: number,
    keepAlive: WsKeepAlive,
  ) {
    const seen = () => (this.lastSeen = Date.now());
    socket.on('message', seen);
    socket.on('pong', seen);
    socket.on('ping', seen);
    socket.once('close', () => this.markClosed());
    this.timer = setInterval(() => {
      if (Date.now() - this.lastSeen > keepAlive.readTimeoutMs) socket.terminate();
      else socket.ping();
    }, keepAlive.pingMs);
    this.timer.unref();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  async send(json: string): Promise<void> {
    while (this.queued >= this.maxQueued && !this.closed) await new Promise<void>((resolve) => this.waiters.push(resolve));
    if (this.closed) return;
    this.queued++;
    this.socket.send(json, (err) => {
      this.queued--;
      this.waiters.shift()?.();
      if (err) this.socket.terminate();
    });
  }

  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.closeListeners.push(listener);
  }

  private markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    for (const wake of this.waiters.splice(0)) wake();
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}
