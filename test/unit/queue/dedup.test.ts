/**
 * Dedup without a race, for both drivers (BullMQ on the real Redis at 127.0.0.1:6379, a fresh key
 * prefix per test): submissions of one tx sent while its delivery is under way, on one queue and on two
 * queues sharing Redis (two replicas), are one delivery, and every caller gets that delivery's answer;
 * a tx sent again after its delivery finished is delivered again.
 */
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { CONFIG_TABLES } from '../../../src/config/config-tables';
import type { BroadcastJob, BroadcastQueue, Delivery } from '../../../src/queue/broadcast-queue';
import { BullQueue } from '../../../src/queue/bullmq-queue';
import { MemoryQueue, type QueueSettings } from '../../../src/queue/memory-queue';

const REDIS_URL = 'redis://127.0.0.1:6379';
const base: QueueSettings = { ...CONFIG_TABLES.queue.defaults, retry_backoff: 20, max_retry_backoff: 40, check_timeout: 2_000 };
const ACCEPTED: Delivery = { status: 'accepted', check: { code: 0, data: '', log: '', codespace: '' } };
const DUPLICATE: Delivery = { status: 'known', first: true, error: { code: -32603, message: 'tx already exists in cache' } };

/** A node: the first delivery of a tx is accepted, any later one is refused as a duplicate. */
class Node {
  readonly calls = new Map<string, number>();
  readonly deliver = async (job: BroadcastJob): Promise<Delivery> => {
    const n = (this.calls.get(job.id) ?? 0) + 1;
    this.calls.set(job.id, n);
    return n === 1 ? ACCEPTED : DUPLICATE;
  };
}

const job = (id: string): BroadcastJob => ({ lane: 'node', id, tx: Buffer.from(id).toString('base64') });

async function until(done: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe.each(['memory', 'redis'] as const)('dedup, the %s driver', (driver) => {
  let prefix: string;
  let node: Node;
  const opened: BroadcastQueue[] = [];
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });

  const open = async (): Promise<BroadcastQueue> => {
    const settings = { ...base, redis_key_prefix: prefix };
    const queue = driver === 'memory' ? new MemoryQueue(settings) : new BullQueue({ ...settings, redis_url: REDIS_URL });
    if (queue instanceof BullQueue) await until(() => queue.up);
    queue.work(node.deliver);
    opened.push(queue);
    return queue;
  };

  beforeEach(() => {
    prefix = `rpcgw-test:${randomUUID()}`;
    node = new Node();
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((q) => q.close()));
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  });

  afterAll(async () => {
    await redis.quit();
  });

  it('gives a tx sent while its delivery was under way that delivery, and its answer', async () => {
    const queue = await open();
    const sentAt = Date.now();
    expect(await queue.submit(job('W1'), { sentAt, waitMs: 5_000 })).toEqual({ added: true, delivery: ACCEPTED });
    // Sent before the delivery finished, but submitted after it: joined, not delivered again.
    expect(await queue.submit(job('W1'), { sentAt, waitMs: 5_000 })).toEqual({ added: false, delivery: ACCEPTED });
    // Sent after the caller had the answer: delivered again, and the node's answer to a duplicate is the answer.
    expect(await queue.submit(job('W1'), { waitMs: 5_000 })).toEqual({ added: true, delivery: DUPLICATE });
    expect(node.calls.get('W1')).toBe(2);
  });

  it('delivers a tx submitted many times at once on one queue once; every caller gets its answer', async () => {
    const queue = await open();
    const ids = Array.from({ length: 20 }, (_, i) => `M${i}`);
    const answers = await Promise.all(ids.flatMap((id) => Array.from({ length: 5 }, () => queue.submit(job(id), { waitMs: 5_000 }))));
    expect(answers.map((a) => a.delivery)).toEqual(answers.map(() => ACCEPTED));
    expect(answers.filter((a) => a.added)).toHaveLength(ids.length);
    expect([...node.calls.values()]).toEqual(ids.map(() => 1));
  });

  if (driver === 'redis') {
    it('delivers a tx submitted at once through two replicas once; both callers get its answer', async () => {
      const [a, b] = [await open(), await open()];
      const ids = Array.from({ length: 100 }, (_, i) => `R${i}`);
      const answers = await Promise.all(ids.flatMap((id) => [a, b].map((q) => q.submit(job(id), { waitMs: 5_000 }))));
      expect(answers.map((x) => x.delivery)).toEqual(answers.map(() => ACCEPTED));
      expect(ids.filter((id) => node.calls.get(id) !== 1)).toEqual([]);
    });

    it('joins a delivery finished by another replica just before the tx was sent there (clocks apart)', async () => {
      const [a, b] = [await open(), await open()];
      expect((await a.submit(job('K1'), { waitMs: 5_000 })).delivery).toEqual(ACCEPTED);
      // Sent through B "now": within what two hosts' clocks may disagree by, of a delivery by another process.
      expect(await b.submit(job('K1'), { sentAt: Date.now() - 20, waitMs: 5_000 })).toEqual({ added: false, delivery: ACCEPTED });
      expect(node.calls.get('K1')).toBe(1);
    });
  }
});
