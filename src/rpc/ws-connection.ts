import type { WebSocket } from 'ws';
import type { RpcConnection } from './call-context';
import type { UnfinishedMessage } from './ws-unfinished';

/** A Buffer goes out as a text frame too: it holds JSON. */
const TEXT = { binary: false } as const;

/**
 * Bytes of answers and notifications handed to a connection's socket and not yet written out to the
 * kernel. Past it, senders wait for room and the gateway stops reading the connection (no new message
 * reaches the engine) until it drains: a client that never reads holds at most this much (and one frame).
 */
export const WS_MAX_QUEUED_BYTES = 8 * 1024 * 1024;
/** A connection whose queued frames make no progress for this long is closed with 1008 (go-ethereum: 10 s). */
export const WS_WRITE_TIMEOUT_MS = 10_000;
/** Messages of one connection being served at once; past it, reading stops until one is answered. */
export const WS_MAX_IN_FLIGHT = 16;

export interface WsKeepAlive {
  /** Interval of server pings. */
  readonly pingMs: number;
  /**
   * The socket is closed when nothing (frame or pong) arrived for this long, a ping included, or when a
   * message started this long ago is still unfinished (pongs do not keep that one alive).
   */
  readonly readTimeoutMs: number;
}

/**
 * A JSON-RPC WebSocket connection: bounded outgoing queue, in frames and in bytes (a sender awaits room,
 * so a slow reader pushes back on whoever feeds it), a write deadline, bounded incoming work (at most
 * WS_MAX_IN_FLIGHT messages served at once; reading stops while the cap or the byte budget is reached),
 * server pings, and a read deadline (for silence, and for an unfinished message).
 */
export class WsRpcConnection implements RpcConnection {
  private queued = 0;
  private queuedBytes = 0;
  private progressAt = 0;
  private stallTimer: NodeJS.Timeout | undefined;
  private inFlight = 0;
  private readonly backlog: Array<() => Promise<unknown>> = [];
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
    unfinished?: UnfinishedMessage,
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
      // A connection the gateway stopped reading cannot show its pongs: its write deadline judges it.
      if (this.socket.isPaused) {
        this.lastSeen = now;
        unfinished?.restartClock(now);
      } else if (pingedAt !== undefined && this.lastSeen < pingedAt && now - this.lastSeen > keepAlive.readTimeoutMs) {
        socket.terminate();
        return;
      } else if (now - (unfinished?.startedAt ?? now) > keepAlive.readTimeoutMs) {
        socket.close(1008, 'read timeout');
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

  /** Bytes handed to the socket and not yet written out. */
  get outboundBytes(): number {
    return this.queuedBytes;
  }

  /** Messages being served, and those read but waiting for a place. */
  get inbound(): { readonly inFlight: number; readonly waiting: number } {
    return { inFlight: this.inFlight, waiting: this.backlog.length };
  }

  /**
   * Serves one incoming message (`serve`: its call and the sending of its answer) now, or once fewer
   * than WS_MAX_IN_FLIGHT are being served; the socket is not read while any waits.
   */
  dispatch(serve: () => Promise<unknown>): void {
    if (this.closed) return;
    if (this.inFlight >= WS_MAX_IN_FLIGHT) this.backlog.push(serve);
    else this.start(serve);
    this.updateReading();
  }

  private start(serve: () => Promise<unknown>): void {
    this.inFlight++;
    const finished = (): void => {
      this.inFlight--;
      const next = this.closed ? undefined : this.backlog.shift();
      if (next) this.start(next);
      this.updateReading();
    };
    serve().then(finished, finished);
  }

  /** Reads the socket only while a message could be served at once and the byte budget has room. */
  private updateReading(): void {
    if (this.closed) return;
    const full = this.backlog.length > 0 || this.inFlight >= WS_MAX_IN_FLIGHT || this.queuedBytes >= WS_MAX_QUEUED_BYTES;
    if (full && !this.socket.isPaused) this.socket.pause();
    else if (!full && this.socket.isPaused) {
      this.lastSeen = Date.now();
      this.socket.resume();
    }
  }

  send(frame: string | Buffer, timeoutMs?: number): Promise<boolean> | undefined {
    if (this.full && !this.closed) return this.sendWhenRoom(frame, timeoutMs === undefined ? Infinity : Date.now() + timeoutMs);
    this.write(frame);
    return undefined;
  }

  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.closeListeners.push(listener);
  }

  private async sendWhenRoom(frame: string | Buffer, deadline: number): Promise<boolean> {
    while (this.full && !this.closed) {
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

  /** No room for another frame: the queue is full in frames or in bytes (a frame always fits an empty queue). */
  private get full(): boolean {
    return this.queued >= this.maxQueued || (this.queued > 0 && this.queuedBytes >= WS_MAX_QUEUED_BYTES);
  }

  private write(frame: string | Buffer): boolean {
    if (this.closed || this.socket.readyState !== this.socket.OPEN) return false;
    if (this.queued === 0) this.progressAt = Date.now();
    this.queued++;
    const bytes = frame.length;
    this.queuedBytes += bytes;
    this.stallTimer ??= this.armStallTimer(WS_WRITE_TIMEOUT_MS);
    this.socket.send(frame, TEXT, (err?: Error) => this.sent(bytes, err));
    if (this.queuedBytes >= WS_MAX_QUEUED_BYTES) this.updateReading();
    return true;
  }

  private sent(bytes: number, err?: Error): void {
    this.queued--;
    this.queuedBytes -= bytes;
    this.progressAt = Date.now();
    this.waiters.shift()?.();
    if (err) this.socket.terminate();
    else if (this.socket.isPaused) this.updateReading();
  }

  /** Judges the queue `ms` from now: no frame written out since WS_WRITE_TIMEOUT_MS closes the connection. */
  private armStallTimer(ms: number): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.stallTimer = undefined;
      if (this.closed || this.queued === 0) return;
      const idle = Date.now() - this.progressAt;
      if (idle < WS_WRITE_TIMEOUT_MS) return void (this.stallTimer = this.armStallTimer(WS_WRITE_TIMEOUT_MS - idle));
      this.closeStalled();
    }, ms);
    timer.unref();
    return timer;
  }

  /** 1008 (policy violation) for a client that does not read; cut at once, since it will not read that either. */
  private closeStalled(): void {
    this.socket.close(1008, 'write timeout');
    this.socket.terminate();
    this.markClosed();
  }

  private markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    clearTimeout(this.stallTimer);
    this.backlog.length = 0;
    for (const wake of this.waiters.splice(0)) wake();
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}
