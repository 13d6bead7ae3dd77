/** Polling filters and WebSocket subscriptions fed by the event bus, with a fake chain publishing blocks. */
import { Logger } from '@nestjs/common';
import { Transaction, Wallet } from 'ethers';
import { uncachedDevnetMethods } from '../../support/devnet-methods';
import type { GatewayConfigService } from '../../../src/config/gateway-config.service';
import { EventBus } from '../../../src/events';
import { EvmDialect } from '../../../src/evm-rpc/evm-dialect';
import { NotificationsNotSupportedError } from '../../../src/evm-rpc/evm-errors';
import { ChainFeed } from '../../../src/evm-rpc/filters/chain-feed';
import { PollingFilters } from '../../../src/evm-rpc/filters/polling-filters';
import { SubscriptionMethods } from '../../../src/evm-rpc/subscriptions/subscription.methods';
import type { RpcConnection } from '../../../src/rpc/call-context';
import { RpcEngine } from '../../../src/rpc/engine';
import { ApplicationError, RpcError } from '../../../src/rpc/errors';
import { Invoker } from '../../../src/rpc/invoker';
import { MethodRegistry } from '../../../src/rpc/method-registry';
import { CHAIN_ID, DEV_KEYS, EMITTER, FakeEvmChain, TOPIC } from '../../e2e/evm-surface-backend';

Logger.overrideLogger(false);

const wallet = new Wallet(DEV_KEYS[0]);
let nonce = 0;
async function signedTx(to: string, data = '0x'): Promise<Transaction> {
  return Transaction.from(await wallet.signTransaction({ type: 2, chainId: CHAIN_ID, nonce: nonce++, to, data, gasLimit: 50_000, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n }));
}

/** Lets the bus and the feed's listener chains deliver what was published. */
const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
};

const FILTER_TIMEOUT_MS = 300_000;
const SWEEP_INTERVAL_MS = 30_000;
const config = { jsonRpc: { 'filter-cap': 3, 'block-range-cap': 100, 'logs-cap': 100, 'filter-timeout': FILTER_TIMEOUT_MS, 'filter-cleanup-interval': SWEEP_INTERVAL_MS } } as GatewayConfigService;
let bus: EventBus;
let chain: FakeEvmChain;
let evm: Invoker;
let feed: ChainFeed;
let filters: PollingFilters;

beforeEach(() => {
  bus = new EventBus();
  chain = new FakeEvmChain(bus);
  evm = new Invoker(uncachedDevnetMethods(chain.handlers(config)), { config });
  feed = new ChainFeed(bus, evm);
  filters = new PollingFilters(feed, config, evm);
});
afterEach(() => filters.onModuleDestroy());

function errorOf(fn: () => unknown): RpcError {
  try {
    fn();
  } catch (err) {
    return err as RpcError;
  }
  throw new Error('expected an error');
}

async function failureOf(answer: Promise<unknown>): Promise<RpcError> {
  try {
    await answer;
  } catch (err) {
    return err as RpcError;
  }
  throw new Error('expected an error');
}

describe('polling filters', () => {
  it('ids are go-ethereum NewIDs', () => {
    expect(filters.create('blocks')).toMatch(/^0x[0-9a-f]{1,32}$/);
  });

  it('a block filter returns the hashes of blocks committed since the last poll', async () => {
    const id = filters.create('blocks');
    const [a, b] = [chain.mine([]), chain.mine([])];
    await settle();
    expect(filters.changes(id)).toEqual([a.hash, b.hash]);
    expect(filters.changes(id)).toEqual([]);
  });

  it('a pending transaction filter returns the EVM transaction hashes of new blocks', async () => {
    const id = filters.create('pendingTransactions');
    const tx = await signedTx(EMITTER);
    chain.mine([tx]);
    await settle();
    expect(filters.changes(id)).toEqual([tx.hash]);
  });

  it('a log filter accumulates the logs matching its criteria', async () => {
    const byTopic = filters.create('logs', { topics: [[TOPIC]] });
    const otherAddress = filters.create('logs', { address: ['0x' + '99'.repeat(20)] });
    const tx = await signedTx(EMITTER, '0x01');
    chain.mine([tx]);
    await settle();
    const logs = filters.changes(byTopic) as Array<Record<string, unknown>>;
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ address: EMITTER, topics: [TOPIC], data: '0x01', transactionHash: tx.hash });
    expect(filters.changes(otherAddress)).toEqual([]);
  });

  it('a log filter honours a fixed block range', async () => {
    const id = filters.create('logs', { fromBlock: { kind: 'number', number: 100n } });
    chain.mine([await signedTx(EMITTER)]);
    await settle();
    expect(filters.changes(id)).toEqual([]);
  });

  it('an impossible range is refused', () => {
    const err = errorOf(() => filters.create('logs', { fromBlock: { kind: 'number', number: 5n }, toBlock: { kind: 'number', number: 2n } }));
    expect(err).toBeInstanceOf(ApplicationError);
    expect(err.message).toBe('invalid from and to block combination: from > to (5 > 2)');
    expect(errorOf(() => filters.create('logs', { fromBlock: { kind: 'tag', tag: 'pending' } })).message).toBe(
      'invalid from and to block combination: from > to (-2 > -1)',
    );
  });

  it('getFilterLogs queries the range again, only for log filters', async () => {
    chain.mine([await signedTx(EMITTER)]);
    const logs = filters.create('logs', { fromBlock: { kind: 'number', number: 1n } });
    expect(await filters.logs(logs)).toHaveLength(1);
    const blocks = filters.create('blocks');
    expect(() => filters.logs(blocks)).toThrow(`filter ${blocks} doesn't have a LogsSubscription type: got 5`);
    const pending = filters.create('pendingTransactions');
    expect(() => filters.logs(pending)).toThrow(`filter ${pending} doesn't have a LogsSubscription type: got 4`);
  });

  it('unknown ids', () => {
    expect(errorOf(() => filters.changes('0x1234')).message).toBe('filter 0x1234 not found');
    expect(filters.uninstall('0x1234')).toBe(false);
  });

  it('filter-cap counts every filter; the cap is a real error', () => {
    filters.create('blocks');
    filters.create('pendingTransactions');
    filters.create('logs');
    const err = errorOf(() => filters.create('blocks'));
    expect(err).toBeInstanceOf(ApplicationError);
    expect(err.toJSON()).toEqual({ code: -32000, message: 'error creating block filter: max limit reached' });
    expect(errorOf(() => filters.create('pendingTransactions')).message).toBe('error creating pending tx filter: max limit reached');
    expect(errorOf(() => filters.create('logs')).message).toBe('error creating filter: max limit reached');
  });

  it('the bus subscription exists only while a filter does', () => {
    expect(bus.numClients()).toBe(0);
    const id = filters.create('blocks');
    expect(bus.numClientSubscriptions('evm-rpc')).toBe(1);
    expect(filters.uninstall(id)).toBe(true);
    expect(bus.numClients()).toBe(0);
  });
});

describe('filter expiry', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'queueMicrotask', 'nextTick'] }));
  afterEach(() => jest.useRealTimers());

  it('a filter not polled for 5 minutes is removed by the sweeper; polling keeps it', () => {
    const idle = filters.create('blocks');
    const polled = filters.create('blocks');
    jest.advanceTimersByTime(FILTER_TIMEOUT_MS - SWEEP_INTERVAL_MS);
    filters.changes(polled);
    jest.advanceTimersByTime(2 * SWEEP_INTERVAL_MS);
    expect(() => filters.changes(idle)).toThrow(`filter ${idle} not found`);
    expect(filters.changes(polled)).toEqual([]);
  });

  it('getFilterLogs does not keep a filter alive', async () => {
    const id = filters.create('logs');
    jest.advanceTimersByTime(FILTER_TIMEOUT_MS - SWEEP_INTERVAL_MS);
    await filters.logs(id);
    jest.advanceTimersByTime(2 * SWEEP_INTERVAL_MS);
    expect(() => filters.changes(id)).toThrow('not found');
    expect(bus.numClients()).toBe(0);
  });
});

describe('WebSocket subscriptions', () => {
  class FakeConnection implements RpcConnection {
    readonly sent: any[] = [];
    private readonly closeListeners: Array<() => void> = [];
    constructor(
      readonly id: string,
      private readonly stalled = false,
    ) {}
    send(json: string | Buffer): Promise<boolean> {
      this.sent.push(JSON.parse(json.toString()));
      return this.stalled ? new Promise(() => undefined) : Promise.resolve(true);
    }
    onClose(listener: () => void): void {
      this.closeListeners.push(listener);
    }
    close(): void {
      for (const l of this.closeListeners) l();
    }
  }

  let engine: RpcEngine;
  let nextId = 1;
  /** One call over the connection, as the WebSocket endpoint hands it to the engine: its result, or its error thrown. */
  async function call(connection: RpcConnection, method: string, params: unknown[]): Promise<unknown> {
    const text = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params });
    const { body } = await engine.handle(text, { transport: 'ws', remote: connection.id, bytes: Buffer.byteLength(text), connection });
    const answer = JSON.parse(body!);
    if (answer.error) throw new RpcError(answer.error.code, answer.error.message, answer.error.data);
    return answer.result;
  }
  const subscribe = (connection: RpcConnection, kind: unknown, options?: unknown) =>
    call(connection, 'eth_subscribe', options === undefined ? [kind] : [kind, options]) as Promise<string>;
  const unsubscribe = (connection: RpcConnection, id: string) => call(connection, 'eth_unsubscribe', [id]);

  beforeEach(() => {
    const registry = new MethodRegistry();
    registry.registerAll(new SubscriptionMethods(feed, evm).methods());
    engine = new RpcEngine(
      new EvmDialect(),
      registry,
      { unsafeEnabled: () => false, groupEnabled: (group) => group === 'rpc' || group === 'eth', websocketOnlyRefusal: () => new NotificationsNotSupportedError() },
      () => ({ requests: { max: 0, key: 'batch-request-limit' }, responseBytes: { max: 0, key: 'batch-response-max-size' } }),
    );
  });

  it('newHeads: the header of each new block; its hash is the block hash', async () => {
    const connection = new FakeConnection('a');
    const id = await subscribe(connection, 'newHeads');
    const block = chain.mine([]);
    await settle();
    expect(connection.sent).toHaveLength(1);
    const { jsonrpc, method, params } = connection.sent[0];
    expect({ jsonrpc, method, subscription: params.subscription }).toEqual({ jsonrpc: '2.0', method: 'eth_subscription', subscription: id });
    expect(params.result).toMatchObject({ number: '0x' + block.number.toString(16), hash: block.hash, parentHash: block.parentHash });
    expect(params.result).not.toHaveProperty('transactions');
  });

  it('logs: one notification per matching log', async () => {
    const connection = new FakeConnection('a');
    await subscribe(connection, 'logs', { address: EMITTER });
    chain.mine([await signedTx(EMITTER, '0x01'), await signedTx('0x' + '01'.repeat(20)), await signedTx(EMITTER, '0x02')]);
    await settle();
    expect(connection.sent.map((m) => m.params.result.data)).toEqual(['0x01', '0x02']);
  });

  it('newPendingTransactions: hashes, or whole transactions when asked', async () => {
    const hashes = new FakeConnection('a');
    const full = new FakeConnection('b');
    await subscribe(hashes, 'newPendingTransactions');
    await subscribe(full, 'newPendingTransactions', true);
    const tx = await signedTx(EMITTER);
    chain.mine([tx]);
    await settle();
    expect(hashes.sent.map((m) => m.params.result)).toEqual([tx.hash]);
    expect(full.sent[0].params.result).toMatchObject({ hash: tx.hash, from: wallet.address.toLowerCase() });
  });

  it('kinds and arguments are checked with go-ethereum texts', async () => {
    const connection = new FakeConnection('a');
    await expect(subscribe(connection, 1)).rejects.toThrow('expected subscription name as first argument');
    expect((await failureOf(subscribe(connection, 'syncing'))).toJSON()).toEqual({ code: -32601, message: 'syncing subscription is not implemented' });
    expect((await failureOf(subscribe(connection, 'foo'))).toJSON()).toEqual({ code: -32601, message: 'no "foo" subscription in eth namespace' });
    expect((await failureOf(subscribe(connection, 'newHeads', {}))).toJSON()).toEqual({ code: -32602, message: 'too many arguments, want at most 1' });
    expect((await failureOf(subscribe(connection, 'logs', { address: '0x12' }))).toJSON()).toEqual({
      code: -32602,
      message: 'invalid argument 1: invalid address: hex has invalid length 1 after decoding; expected 20 for address',
    });
    expect(bus.numClients()).toBe(0);
  });

  it('eth_unsubscribe: true once, then false; only the owner connection can', async () => {
    const owner = new FakeConnection('a');
    const id = await subscribe(owner, 'newHeads');
    expect(await unsubscribe(new FakeConnection('b'), id)).toBe(false);
    expect(await unsubscribe(owner, id)).toBe(true);
    expect(await unsubscribe(owner, id)).toBe(false);
    chain.mine([]);
    await settle();
    expect(owner.sent).toEqual([]);
    expect(bus.numClients()).toBe(0);
  });

  it('subscriptions die with their connection', async () => {
    const connection = new FakeConnection('a');
    await subscribe(connection, 'newHeads');
    await subscribe(connection, 'logs');
    expect(bus.numClientSubscriptions('evm-rpc')).toBe(1);
    connection.close();
    expect(bus.numClients()).toBe(0);
  });

  it('a client that does not read is dropped with an error; others keep receiving', async () => {
    const stalled = new FakeConnection('slow', true);
    const healthy = new FakeConnection('fast');
    const slowId = await subscribe(stalled, 'newHeads');
    await subscribe(healthy, 'newHeads');
    for (let i = 0; i < 300; i++) {
      chain.mine([]);
      await settle();
    }
    expect(healthy.sent).toHaveLength(300);
    expect(stalled.sent.at(-1)).toEqual({
      jsonrpc: '2.0',
      method: 'eth_subscription',
      params: { subscription: slowId, error: { code: -32000, message: 'subscription dropped: the client does not keep up with notifications' } },
    });
    expect(await unsubscribe(stalled, slowId)).toBe(false);
  });
});
