/**
 * A subscriber whose connection has no room: CometBFT waits a while to hand an event over, then drops
 * that event, or with `experimental_close_on_slow_client` ends the subscription with "slow client".
 */
import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import type { BackendServices } from '../../../src/backends/backend-services';
import type { GatewayConfigService } from '../../../src/config/gateway-config.service';
import { EventBus, type BusEvent } from '../../../src/events';
import { NodeDialect } from '../../../src/node-rpc/node-dialect';
import { SubscriptionMethods } from '../../../src/node-rpc/subscriptions/subscription.methods';
import { RpcEngine } from '../../../src/rpc/engine';
import { MethodNotFoundError } from '../../../src/rpc/errors';
import { MethodRegistry } from '../../../src/rpc/method-registry';
import { WsRpcConnection } from '../../../src/rpc/ws-connection';

const TIMEOUT_MS = 30;

/** A socket that takes frames but reports them written only when told to. */
class StuckSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  readonly frames: string[] = [];
  private readonly pending: Array<() => void> = [];
  send(frame: string | Buffer, _options: unknown, done: () => void): void {
    this.frames.push(frame.toString());
    this.pending.push(done);
  }
  ping(): void {}
  close(): void {}
  terminate(): void {}
  /** The client reads everything sent so far. */
  drain(): void {
    for (const done of this.pending.splice(0)) done();
  }
}

const height = (h: number): BusEvent => ({
  type: 'NewBlock',
  data: { type: 'tendermint/event/NewBlock', value: { height: String(h) } },
  events: { 'tm.event': ['NewBlock'] },
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function subscribed(closeOnSlowClient: boolean) {
  const bus = new EventBus();
  const backend = { feedEvents: async () => () => undefined } as unknown as BackendServices;
  const rpc = { max_subscription_clients: 100, max_subscriptions_per_client: 5, experimental_subscription_buffer_size: 200, experimental_close_on_slow_client: closeOnSlowClient };
  const config = { rpc, gateway: { limits: { max_query_length: 512, max_query_conditions: 20 } } } as unknown as GatewayConfigService;
  const registry = new MethodRegistry();
  registry.registerAll(new SubscriptionMethods(bus, backend, config, undefined, TIMEOUT_MS).methods());
  const engine = new RpcEngine(
    new NodeDialect(),
    registry,
    { unsafeEnabled: () => false, groupEnabled: () => true, websocketOnlyRefusal: () => new MethodNotFoundError('websocket-only') },
    () => ({ requests: { max: 0, key: 'max_request_batch_size' }, responseBytes: { max: 0, key: '' } }),
  );
  const socket = new StuckSocket();
  const connection = new WsRpcConnection('127.0.0.1:9', socket as unknown as WebSocket, 1, { pingMs: 60_000, readTimeoutMs: 60_000 });
  const request = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'subscribe', params: { query: "tm.event='NewBlock'" } });
  const reply = await engine.handle(request, { transport: 'ws', remote: connection.id, bytes: request.length, connection });
  expect(JSON.parse(reply.body!)).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
  return { bus, socket, connection };
}

const heights = (frames: string[]) => frames.map((f) => JSON.parse(f).result?.data?.value?.height).filter(Boolean);

it('drops an event it cannot hand over in time and keeps the subscription', async () => {
  const { bus, socket } = await subscribed(false);
  bus.publish(height(1));
  bus.publish(height(2));
  await sleep(TIMEOUT_MS * 4);
  socket.drain();
  bus.publish(height(3));
  await sleep(10);
  expect(heights(socket.frames)).toEqual(['1', '3']);
  expect(bus.hasSubscription('127.0.0.1:9', "tm.event = 'NewBlock'")).toBe(true);
});

it('with experimental_close_on_slow_client, ends the subscription with "slow client" and keeps the socket', async () => {
  const { bus, socket, connection } = await subscribed(true);
  bus.publish(height(1));
  bus.publish(height(2));
  await sleep(TIMEOUT_MS * 4);
  expect(bus.hasSubscription('127.0.0.1:9', "tm.event = 'NewBlock'")).toBe(false);
  socket.drain();
  await sleep(10);
  expect(JSON.parse(socket.frames.at(-1)!)).toEqual({
    jsonrpc: '2.0',
    id: 7,
    error: { code: -32000, message: 'Server error', data: 'subscription was canceled (reason: slow client)' },
  });
  expect(connection.isClosed).toBe(false);
  bus.publish(height(3));
  await sleep(10);
  expect(heights(socket.frames)).toEqual(['1']);
});
