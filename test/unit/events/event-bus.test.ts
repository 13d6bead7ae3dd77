import { EventBus, EventTimeoutError, OUT_OF_CAPACITY, SubscriptionCanceledError, parseQuery, type BusEvent, type SubscribeOptions } from '../../../src/events';

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function event(type: string, extra: Record<string, string[]> = {}): BusEvent {
  return { type, data: { type: `tendermint/event/${type}`, value: {} }, events: { 'tm.event': [type], ...extra } };
}

interface Recorder {
  readonly received: BusEvent[];
  readonly cancels: string[];
  readonly options: SubscribeOptions;
}

function recorder(bufferSize = 10, onEvent?: (event: BusEvent) => void | Promise<void>): Recorder {
  const received: BusEvent[] = [];
  const cancels: string[] = [];
  return {
    received,
    cancels,
    options: {
      bufferSize,
      onEvent: (ev) => {
        received.push(ev);
        return onEvent?.(ev);
      },
      onCancel: (reason) => cancels.push(reason),
    },
  };
}

const never = (): Promise<void> => new Promise<void>(() => undefined);
const txQuery = parseQuery("tm.event = 'Tx'");

describe('EventBus delivery', () => {
  it('delivers matching events asynchronously and in order', async () => {
    const bus = new EventBus();
    const sub = recorder();
    bus.subscribe('client', txQuery, sub.options);
    const events = [event('NewBlock'), event('Tx', { 'tx.height': ['1'] }), event('Tx', { 'tx.height': ['2'] })];
    for (const ev of events) bus.publish(ev);
    expect(sub.received).toEqual([]);
    await settle();
    expect(sub.received).toEqual([events[1], events[2]]);
  });

  it('feeds every subscriber of a query and filters per query', async () => {
    const bus = new EventBus();
    const [a, b, c] = [recorder(), recorder(), recorder()];
    bus.subscribe('a', txQuery, a.options);
    bus.subscribe('b', parseQuery("tm.event='Tx'"), b.options);
    bus.subscribe('c', parseQuery("tm.event = 'Tx' AND transfer.amount > 5"), c.options);
    const small = event('Tx', { 'transfer.amount': ['5stake'] });
    const large = event('Tx', { 'transfer.amount': ['6stake'] });
    bus.publish(small);
    bus.publish(large);
    await settle();
    expect(a.received).toEqual([small, large]);
    expect(b.received).toEqual([small, large]);
    expect(c.received).toEqual([large]);
  });

  it('holds back the next event while onEvent’s promise is pending', async () => {
    const bus = new EventBus();
    const releases: Array<() => void> = [];
    const sub = recorder(10, () => new Promise<void>((resolve) => releases.push(resolve)));
    bus.subscribe('client', txQuery, sub.options);
    const [first, second, third] = [event('Tx'), event('Tx'), event('Tx')];
    bus.publish(first);
    bus.publish(second);
    await settle();
    expect(sub.received).toEqual([first]);
    bus.publish(third);
    releases[0]();
    await settle();
    expect(sub.received).toEqual([first, second]);
    releases[1]();
    await settle();
    expect(sub.received).toEqual([first, second, third]);
  });

  it('keeps delivering after onEvent throws or rejects', async () => {
    const bus = new EventBus();
    let calls = 0;
    const sub = recorder(10, () => {
      calls += 1;
      if (calls === 1) throw new Error('boom');
      if (calls === 2) return Promise.reject(new Error('write failed'));
    });
    bus.subscribe('client', txQuery, sub.options);
    for (let i = 0; i < 3; i += 1) bus.publish(event('Tx'));
    await settle();
    expect(sub.received).toHaveLength(3);
  });

  it('does not let a slow subscriber delay another', async () => {
    const bus = new EventBus();
    const slow = recorder(100, never);
    const fast = recorder(100);
    bus.subscribe('slow', txQuery, slow.options);
    bus.subscribe('fast', txQuery, fast.options);
    for (let i = 0; i < 10; i += 1) bus.publish(event('Tx'));
    await settle();
    expect(fast.received).toHaveLength(10);
    expect(slow.received).toHaveLength(1);
    expect(slow.cancels).toEqual([]);
  });
});

describe('EventBus buffer overflow', () => {
  it('cancels a subscription whose buffer is full, with CometBFT’s reason', async () => {
    const bus = new EventBus();
    const slow = recorder(2, never);
    const other = recorder(10);
    bus.subscribe('slow', txQuery, slow.options);
    bus.subscribe('other', txQuery, other.options);
    bus.publish(event('Tx'));
    await settle(); // the first event is in onEvent, which never finishes
    bus.publish(event('Tx'));
    bus.publish(event('Tx'));
    expect(slow.cancels).toEqual([]);
    bus.publish(event('Tx'));
    await settle();
    expect(slow.cancels).toEqual([OUT_OF_CAPACITY]);
    expect(OUT_OF_CAPACITY).toBe('internal subscription event buffer is out of capacity');
    expect(slow.received).toHaveLength(1);
    expect(other.received).toHaveLength(4);
    expect(other.cancels).toEqual([]);
  });

  it('counts events published before the first delivery', async () => {
    const bus = new EventBus();
    const sub = recorder(2);
    bus.subscribe('client', txQuery, sub.options);
    for (let i = 0; i < 3; i += 1) bus.publish(event('Tx'));
    await settle();
    expect(sub.cancels).toEqual([OUT_OF_CAPACITY]);
    expect(sub.received).toEqual([]);
  });

  it('keeps the cancelled query registered until the client unsubscribes, as CometBFT does', async () => {
    const bus = new EventBus();
    const sub = recorder(1);
    bus.subscribe('client', txQuery, sub.options);
    bus.publish(event('Tx'));
    bus.publish(event('Tx'));
    await settle();
    expect(sub.cancels).toEqual([OUT_OF_CAPACITY]);
    expect(bus.numClientSubscriptions('client')).toBe(1);
    expect(() => bus.subscribe('client', txQuery, recorder().options)).toThrow('already subscribed');
    bus.unsubscribe('client', txQuery);
    const again = recorder();
    bus.subscribe('client', txQuery, again.options);
    bus.publish(event('Tx'));
    await settle();
    expect(again.received).toHaveLength(1);
  });
});

describe('EventBus subscriptions', () => {
  it('rejects a second subscription to the same normalized query', () => {
    const bus = new EventBus();
    bus.subscribe('client', parseQuery("tm.event='Tx'"), recorder().options);
    expect(() => bus.subscribe('client', parseQuery("tm.event = 'Tx'"), recorder().options)).toThrow(
      new Error('already subscribed'),
    );
    expect(() => bus.subscribe('other', txQuery, recorder().options)).not.toThrow();
  });

  it('counts clients and their subscriptions', () => {
    const bus = new EventBus();
    bus.subscribe('a', txQuery, recorder().options);
    bus.subscribe('a', parseQuery("tm.event = 'NewBlock'"), recorder().options);
    bus.subscribe('b', txQuery, recorder().options);
    expect(bus.numClients()).toBe(2);
    expect(bus.numClientSubscriptions('a')).toBe(2);
    expect(bus.numClientSubscriptions('nobody')).toBe(0);
    expect(bus.hasSubscription('a', "tm.event = 'NewBlock'")).toBe(true);
    expect(bus.hasSubscription('b', parseQuery("tm.event = 'NewBlock'"))).toBe(false);
  });

  it('unsubscribes by query or normalized query string, dropping what is buffered without calling onCancel', async () => {
    const bus = new EventBus();
    const sub = recorder();
    bus.subscribe('client', txQuery, sub.options);
    bus.publish(event('Tx'));
    bus.unsubscribe('client', "tm.event = 'Tx'");
    bus.publish(event('Tx'));
    await settle();
    expect(sub.received).toEqual([]);
    expect(sub.cancels).toEqual([]);
    expect(bus.numClients()).toBe(0);
  });

  it('fails to unsubscribe what is not subscribed', () => {
    const bus = new EventBus();
    bus.subscribe('client', txQuery, recorder().options);
    expect(() => bus.unsubscribe('client', "tm.event = 'NewBlock'")).toThrow(new Error('subscription not found'));
    expect(() => bus.unsubscribe('stranger', txQuery)).toThrow(new Error('subscription not found'));
    // A string is a normalized query: it is not parsed again.
    expect(() => bus.unsubscribe('client', "tm.event='Tx'")).toThrow(new Error('subscription not found'));
  });

  it('unsubscribes all of a client’s queries, and fails when it has none', async () => {
    const bus = new EventBus();
    const [a, b, other] = [recorder(), recorder(), recorder()];
    bus.subscribe('client', txQuery, a.options);
    bus.subscribe('client', parseQuery("tm.event = 'NewBlock'"), b.options);
    bus.subscribe('other', txQuery, other.options);
    bus.unsubscribeAll('client');
    expect(bus.numClients()).toBe(1);
    bus.publish(event('Tx'));
    bus.publish(event('NewBlock'));
    await settle();
    expect([a.received, b.received, other.received.length]).toEqual([[], [], 1]);
    expect(() => bus.unsubscribeAll('client')).toThrow(new Error('subscription not found'));
  });

  it('requires a positive integer buffer size', () => {
    expect(() => new EventBus().subscribe('client', txQuery, recorder(0).options)).toThrow(RangeError);
  });

  it('cancels everything on close, with the given reason', async () => {
    const bus = new EventBus();
    const [a, b] = [recorder(), recorder()];
    bus.subscribe('a', txQuery, a.options);
    bus.subscribe('b', parseQuery("tm.event = 'NewBlock'"), b.options);
    bus.close('CometBFT exited');
    bus.publish(event('Tx'));
    await settle();
    expect([a.cancels, b.cancels]).toEqual([['CometBFT exited'], ['CometBFT exited']]);
    expect(a.received).toEqual([]);
    expect(bus.numClients()).toBe(0);
    expect(() => bus.subscribe('a', txQuery, recorder().options)).toThrow('service is shutting down');
  });
});

describe('EventBus.once', () => {
  it('resolves with the first matching event and unsubscribes', async () => {
    const bus = new EventBus();
    const waiting = bus.once(txQuery, 1_000);
    expect(bus.numClients()).toBe(1);
    const first = event('Tx', { 'tx.height': ['1'] });
    bus.publish(event('NewBlock'));
    bus.publish(first);
    bus.publish(event('Tx', { 'tx.height': ['2'] }));
    await expect(waiting).resolves.toBe(first);
    expect(bus.numClients()).toBe(0);
  });

  it('rejects with EventTimeoutError when nothing matches in time', async () => {
    const bus = new EventBus();
    const waiting = bus.once(txQuery, 20);
    bus.publish(event('NewBlock'));
    await expect(waiting).rejects.toBeInstanceOf(EventTimeoutError);
    expect(bus.numClients()).toBe(0);
  });

  it('rejects with SubscriptionCanceledError when the bus closes', async () => {
    const bus = new EventBus();
    const waiting = bus.once(txQuery, 1_000);
    bus.close('CometBFT exited');
    const error = await waiting.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SubscriptionCanceledError);
    expect(error).toMatchObject({ reason: 'CometBFT exited', message: 'subscription was canceled (reason: CometBFT exited)' });
  });

  it('subscribes as the given subscriber and stops when aborted', async () => {
    const bus = new EventBus();
    const controller = new AbortController();
    const waiting = bus.once(txQuery, 1_000, { subscriber: '10.0.0.1:5000', signal: controller.signal });
    expect(bus.hasSubscription('10.0.0.1:5000', txQuery)).toBe(true);
    await expect(bus.once(txQuery, 1_000, { subscriber: '10.0.0.1:5000' })).rejects.toThrow('already subscribed');
    controller.abort(new Error('check failed'));
    await expect(waiting).rejects.toThrow('check failed');
    expect(bus.numClients()).toBe(0);
  });
});
