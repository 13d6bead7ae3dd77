/**
 * Both drivers of the broadcast queue, with the same cases: the in-memory one, and BullMQ on the real
 * Redis at 127.0.0.1:6379 (a fresh key prefix per test, removed after it). Deliveries go to a scripted
 * backend: it takes txs, refuses them, or is unavailable for a number of attempts.
 */
import { ConsoleLogger, Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { CONFIG_TABLES } from '../../../src/config/config-tables';
import { RetryLater, type BroadcastJob, type BroadcastQueue, type Delivery } from '../../../src/queue/broadcast-queue';
import { BullQueue } from '../../../src/queue/bullmq-queue';
import { MemoryQueue, type QueueSettings } from '../../../src/queue/memory-queue';

const REDIS_URL = 'redis://127.0.0.1:6379';

const base: QueueSettings = { ...CONFIG_TABLES.queue.defaults, retry_backoff: 20, max_retry_backoff: 40, check_timeout: 2_000 };

type Driver = 'memory' | 'redis';

/** A backend whose answer per tx is scripted: each call takes the next of its answers (the last repeats). */
class ScriptedBackend {
  readonly calls: { id: string; first: boolean; at: number }[] = [];
  private readonly scripts = new Map<string, (Delivery | 'down')[]>();
  /** Deliveries under way right now, and the most at once. */
  inFlight = 0;
  maxInFlight = 0;
  /** How long each delivery takes. */
  latencyMs = 0;

  script(id: string, ...answers: (Delivery | 'down')[]): void {
    this.scripts.set(id, answers);
  }

  readonly deliver = async (job: BroadcastJob, first: boolean): Promise<Delivery> => {
    this.calls.push({ id: job.id, first, at: Date.now() });
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
      const script = this.scripts.get(job.id) ?? [];
      const answer = script.length > 1 ? script.shift()! : (script[0] ?? { status: 'accepted' });
      if (answer === 'down') throw new RetryLater('connect ECONNREFUSED 127.0.0.1:1');
      return answer;
    } finally {
      this.inFlight--;
    }
  };

  callsOf(id: string): number {
    return this.calls.filter((c) => c.id === id).length;
  }
}

const job = (id: string, extra: Partial<BroadcastJob> = {}): BroadcastJob => ({ lane: 'node', id, tx: Buffer.from(id).toString('base64'), ...extra });

async function until(done: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe.each<Driver>(['memory', 'redis'])('the %s driver', (driver) => {
  let queue: BroadcastQueue;
  let backend: ScriptedBackend;
  let prefix: string;
  // Opened in beforeAll: a connection opened while the tests are collected stays open when a filter skips them all.
  let redis: Redis;

  const open = (settings: Partial<QueueSettings> = {}): BroadcastQueue => {
    const all = { ...base, redis_key_prefix: prefix, ...settings };
    return driver === 'memory' ? new MemoryQueue(all) : new BullQueue({ ...all, redis_url: REDIS_URL });
  };

  /** Waits until the queue takes jobs (the BullMQ driver's connection is up). */
  const ready = async (q: BroadcastQueue) => {
    if (q instanceof BullQueue) await until(() => q.up);
  };

  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });

  beforeEach(async () => {
    prefix = `rpcgw-test:${randomUUID()}`;
    backend = new ScriptedBackend();
    queue = open();
    await ready(queue);
    queue.work(backend.deliver);
  });

  afterEach(async () => {
    await queue.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  });

  afterAll(async () => {
    await redis.quit();
  });

  it('delivers a job and tells every caller waiting on it', async () => {
    backend.script('A1', { status: 'accepted', check: { code: 0, log: 'ok' } });
    expect(await queue.submit(job('A1'))).toEqual({ added: true });
    const outcomes = await Promise.all([queue.outcome('node', 'A1', 5_000), queue.outcome('node', 'A1', 5_000)]);
    expect(outcomes).toEqual([
      { status: 'accepted', check: { code: 0, log: 'ok' } },
      { status: 'accepted', check: { code: 0, log: 'ok' } },
    ]);
    // Asked after it finished: still known.
    expect(await queue.outcome('node', 'A1', 100)).toEqual({ status: 'accepted', check: { code: 0, log: 'ok' } });
    expect(backend.calls).toEqual([{ id: 'A1', first: true, at: expect.any(Number) }]);
  });

  it('joins a duplicate to the job under way: one delivery', async () => {
    backend.latencyMs = 200;
    const submitted = await Promise.all([queue.submit(job('D1')), queue.submit(job('D1')), queue.submit(job('D1'))]);
    expect(submitted.filter((s) => s.added)).toHaveLength(1);
    expect(await queue.outcome('node', 'D1', 5_000)).toEqual({ status: 'accepted' });
    expect(backend.callsOf('D1')).toBe(1);
  });

  it('retries while the backend is unavailable, then delivers; a later attempt is not the first', async () => {
    backend.script('R1', 'down', 'down', { status: 'known', first: false, error: { code: -32000, message: 'tx already exists in cache' } });
    await queue.submit(job('R1'));
    const outcome = await queue.outcome('node', 'R1', 5_000);
    expect(outcome).toMatchObject({ status: 'known' });
    expect(backend.calls.map((c) => c.first)).toEqual([true, false, false]);
    // The backoff doubles: the third attempt comes later after the second than the second after the first.
    const [a, b, c] = backend.calls.map((call) => call.at);
    expect(b - a).toBeGreaterThanOrEqual(10);
    expect(c - b).toBeGreaterThanOrEqual(20);
  });

  it('does not retry a refusal, and tells it to the callers', async () => {
    const refusal: Delivery = { status: 'rejected', check: { code: 2, log: 'bad tx' } };
    backend.script('X1', refusal);
    await queue.submit(job('X1'));
    expect(await queue.outcome('node', 'X1', 5_000)).toEqual(refusal);
    await new Promise((r) => setTimeout(r, 200));
    expect(backend.callsOf('X1')).toBe(1);
    expect((await queue.status()).failed).toEqual([]);
  });

  it('puts a job whose attempts all failed in the failed set, with its reason', async () => {
    await queue.close();
    queue = open({ max_attempts: 3 });
    await ready(queue);
    queue.work(backend.deliver);
    backend.script('F1', 'down');
    await queue.submit(job('F1'));
    expect(await queue.outcome('node', 'F1', 5_000)).toEqual({ status: 'failed', reason: 'connect ECONNREFUSED 127.0.0.1:1' });
    expect(backend.callsOf('F1')).toBe(3);
    const status = await queue.status();
    expect(status.failed).toEqual([
      { lane: 'node', id: 'F1', reason: 'connect ECONNREFUSED 127.0.0.1:1', attempts: 3, queued_at: expect.any(Number), failed_at: expect.any(Number) },
    ]);
    expect(status.lanes.find((l) => l.lane === 'node')).toMatchObject({ failed: 1, waiting: 0, active: 0, delayed: 0 });
  });

  it('delivers a tx sent again after it finished, as a first attempt', async () => {
    backend.script('S1', { status: 'accepted' }, { status: 'known', first: true, error: { code: -32000, message: 'tx already exists in cache' } });
    await queue.submit(job('S1'));
    expect(await queue.outcome('node', 'S1', 5_000)).toEqual({ status: 'accepted' });
    expect(await queue.submit(job('S1'))).toEqual({ added: true });
    expect(await queue.outcome('node', 'S1', 5_000)).toEqual({ status: 'known', first: true, error: { code: -32000, message: 'tx already exists in cache' } });
    expect(backend.calls.map((c) => c.first)).toEqual([true, true]);
  });

  it("delivers one sender's txs in nonce order, whatever order they came in", async () => {
    backend.script('N7', 'down');
    const sender = '0x00000000000000000000000000000000000000aa';
    // Nonce 7 is queued first and finds the backend down; 8 and 9 must wait for it.
    await queue.submit(job('N7', { lane: 'evm', sender, nonce: 7 }));
    await until(() => backend.callsOf('N7') >= 1);
    await queue.submit(job('N9', { lane: 'evm', sender, nonce: 9 }));
    await queue.submit(job('N8', { lane: 'evm', sender, nonce: 8 }));
    await new Promise((r) => setTimeout(r, 300));
    expect(backend.callsOf('N8') + backend.callsOf('N9')).toBe(0);
    backend.script('N7', { status: 'accepted' });
    for (const id of ['N7', 'N8', 'N9']) expect(await queue.outcome('evm', id, 5_000)).toEqual({ status: 'accepted' });
    const order = backend.calls.map((c) => c.id).filter((id, i, all) => id !== 'N7' || all.indexOf('N8') < 0 || i > all.indexOf('N8'));
    const lastN7 = backend.calls.map((c) => c.id).lastIndexOf('N7');
    expect(backend.calls.findIndex((c) => c.id === 'N8')).toBeGreaterThan(lastN7);
    expect(backend.calls.findIndex((c) => c.id === 'N9')).toBeGreaterThan(backend.calls.findIndex((c) => c.id === 'N8'));
    expect(order).toContain('N9');
  });

  it('keeps to the concurrency and the rate limit of a lane', async () => {
    await queue.close();
    queue = open({ concurrency: 2, rate_limit: 20 });
    await ready(queue);
    queue.work(backend.deliver);
    backend.latencyMs = 10;
    const ids = Array.from({ length: 30 }, (_, i) => `C${i}`);
    for (const id of ids) await queue.submit(job(id));
    for (const id of ids) await queue.outcome('node', id, 5_000);
    expect(backend.maxInFlight).toBeLessThanOrEqual(2);
    // At most 20 start in any second: the 21st starts a second after the first.
    const starts = backend.calls.map((c) => c.at).sort((a, b) => a - b);
    expect(starts[20] - starts[0]).toBeGreaterThanOrEqual(900);
  });

  it('closes gracefully: the delivery under way finishes, no new one starts', async () => {
    backend.latencyMs = 300;
    await queue.submit(job('G1'));
    await until(() => backend.inFlight === 1);
    await queue.close();
    expect(backend.inFlight).toBe(0);
    expect(backend.callsOf('G1')).toBe(1);
  });

  it('answers undefined when the outcome is not known in time', async () => {
    backend.script('T1', 'down');
    await queue.submit(job('T1'));
    const started = Date.now();
    expect(await queue.outcome('node', 'T1', 150)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('the redis driver without Redis', () => {
  it('refuses jobs at once, shows itself down, and closes without waiting for Redis', async () => {
    const queue = new BullQueue({ ...base, redis_url: 'redis://127.0.0.1:1', redis_key_prefix: 'rpcgw-test:none' });
    queue.work(async () => ({ status: 'accepted' }));
    await expect(queue.submit(job('Z1'))).rejects.toThrow('Redis at redis://127.0.0.1:1 is unreachable');
    expect(await queue.outcome('node', 'Z1', 100)).toBeUndefined();
    expect(await queue.status()).toEqual({ driver: 'redis', durable: true, up: false, workers: true, lanes: [], failed: [] });
    const started = Date.now();
    await queue.close();
    expect(Date.now() - started).toBeLessThan(3_000);
    // Closed, its connections stop trying to reach Redis (each failed try is logged at debug): a reconnect
    // already due when it closed (at most 1 s away) may still run once, none after that.
    await new Promise((r) => setTimeout(r, 1_500));
    const tries: string[] = [];
    Logger.overrideLogger({ log() {}, error() {}, warn() {}, debug: (message: string) => tries.push(message), verbose() {} });
    try {
      await new Promise((r) => setTimeout(r, 2_500));
    } finally {
      Logger.overrideLogger(new ConsoleLogger());
    }
    expect(tries).toEqual([]);
  });
});
