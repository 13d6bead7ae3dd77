import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import { WsRpcConnection } from '../../../src/rpc/ws-connection';

/** CometBFT's timings, as the node RPC transport uses them. */
const KEEP_ALIVE = { pingMs: 27_000, readTimeoutMs: 30_000 };

class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  pings = 0;
  terminated = false;
  readonly sent: Array<{ frame: string | Buffer; done: (err?: Error) => void }> = [];

  ping(): void {
    this.pings++;
  }

  close(): void {}

  terminate(): void {
    this.terminated = true;
  }

  send(frame: string | Buffer, _options: unknown, done: (err?: Error) => void): void {
    this.sent.push({ frame, done });
  }
}

function open(maxQueued = 2): { socket: FakeSocket; connection: WsRpcConnection } {
  const socket = new FakeSocket();
  const connection = new WsRpcConnection('127.0.0.1:1', socket as unknown as WebSocket, maxQueued, KEEP_ALIVE);
  return { socket, connection };
}

describe('WsRpcConnection keep-alive', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('pings before judging: a first tick that fires late keeps a client that answers', () => {
    const { socket } = open();
    socket.emit('message', Buffer.from('{}'));
    // The event loop was busy: the tick comes 7 s late, 34 s after the client's last frame.
    jest.setSystemTime(Date.now() + 7_000);
    jest.advanceTimersByTime(KEEP_ALIVE.pingMs);
    expect(socket.terminated).toBe(false);
    expect(socket.pings).toBe(1);
    socket.emit('pong');
    jest.advanceTimersByTime(KEEP_ALIVE.pingMs);
    expect(socket.terminated).toBe(false);
    expect(socket.pings).toBe(2);
  });

  it('closes a client that stays silent after a ping for longer than the read timeout', () => {
    const { socket } = open();
    jest.advanceTimersByTime(KEEP_ALIVE.pingMs);
    expect(socket.pings).toBe(1);
    jest.advanceTimersByTime(KEEP_ALIVE.pingMs);
    expect(socket.terminated).toBe(true);
  });
});

describe('WsRpcConnection send queue', () => {
  it('hands frames to the socket at once while there is room, and makes the next one wait for room', async () => {
    const { socket, connection } = open(2);
    expect(connection.send('a')).toBeUndefined();
    expect(connection.send(Buffer.from('b'))).toBeUndefined();
    const waiting = connection.send('c');
    expect(waiting).toBeInstanceOf(Promise);
    expect(socket.sent.map((s) => String(s.frame))).toEqual(['a', 'b']);
    socket.sent[0].done();
    await waiting;
    expect(socket.sent.map((s) => String(s.frame))).toEqual(['a', 'b', 'c']);
  });

  it('drops frames once the socket is closed', () => {
    const { socket, connection } = open();
    socket.emit('close');
    expect(connection.send('a')).toBeUndefined();
    expect(socket.sent).toEqual([]);
  });
});
