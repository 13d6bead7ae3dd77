import type { WebSocket } from 'ws';
import type { RpcConnection } from './call-context';

/** A Buffer goes out as a text frame too: it holds JSON. */
const TEXT = { binary: false } as const;

export interface WsKeepAlive {
  /** Interval of server pings. */
  readonly pingMs: number;
  /** The socket is closed when nothing (frame or pong) arrived for this long, a ping included. */
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
    // Only a client silent since the previous ping is judged: a tick that fires late (a busy event
    // loop, pongs not read yet) must not cut off clients that answer.
    let pingedAt: number | undefined;
    this.timer = setInterval(() => {
      const now = Date.now();
      if (pingedAt !== undefined && this.lastSeen < pingedAt && now - this.lastSeen > keepAlive.readTimeoutMs) {
        socket.terminate();
        return;
      }
      pingedAt = now;
      socket.ping();
    }, keepAlive.pingMs);
    this.timer.unref();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  send(frame: string | Buffer, timeoutMs?: number): Promise<boolean> | undefined {
    if (this.queued >= this.maxQueued && !this.closed) return this.sendWhenRoom(frame, timeoutMs === undefined ? Infinity : Date.now() + timeoutMs);
    this.write(frame);
    return undefined;
  }

  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.closeListeners.push(listener);
  }

  private async sendWhenRoom(frame: string | Buffer, deadline: number): Promise<boolean> {
    while (this.queued >= this.maxQueued && !this.closed) {
      if (!(await this.room(deadline))) return false;
    }
    return this.write(frame);
  }

  /** Waits for a sent frame to free a place; false once `deadline` passes first. */
  private room(deadline: number): Promise<boolean> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer =
        deadline === Infinity
          ? undefined
          : setTimeout(() => {
              this.waiters.splice(this.waiters.indexOf(wake), 1);
              resolve(false);
            }, Math.max(0, deadline - Date.now()));
      this.waiters.push(wake);
    });
  }

  private write(frame: string | Buffer): boolean {
    if (this.closed || this.socket.readyState !== this.socket.OPEN) return false;
    this.queued++;
    this.socket.send(frame, TEXT, this.sent);
    return true;
  }

  private readonly sent = (err?: Error): void => {
    this.queued--;
    this.waiters.shift()?.();
    if (err) this.socket.terminate();
  };

  private markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    for (const wake of this.waiters.splice(0)) wake();
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}
