/**
 * The BullMQ driver: one BullMQ queue per lane (`<prefix>:node`, `<prefix>:evm`) on Redis, shared by every
 * replica and `rpc-gateway worker` process that names the same Redis and prefix. A job's id is its tx
 * hash, so BullMQ itself joins duplicates; each caller waits on the job's completion through the
 * queue's event stream, whichever process delivered it.
 *
 * Redis down: `submit` refuses at once (nothing is queued half-way: the producer connection has no
 * offline queue and never resends a command), reads of the gateway are untouched, and every connection
 * reconnects by itself; workers and waiters pick up where they were. An outage is logged once when it
 * starts and once when it ends.
 */
import { Logger } from '@nestjs/common';
import { DelayedError, Job, Queue, QueueEvents, Worker, type ConnectionOptions, type JobsOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { redactUrl } from '../backends/upstream/redact-url';
import { retryDelay } from './backoff';
import { LANES, QueueUnavailableError, RetryLater, sendClock, sentDuring, type BroadcastJob, type BroadcastQueue, type Deliver, type Delivery, type FailedJob, type Lane, type LaneCounts, type QueueStatus, type SubmitOptions, type Submitted } from './broadcast-queue';
import { JobWatch, deliveryOf, finisherOf, type Finished } from './job-watch';
import { ORDER_WAIT_MS, type QueueSettings } from './memory-queue';
import { QueueMeters } from './queue-metrics';

/** What a job holds in Redis. */
interface JobData extends BroadcastJob {
  /** Epoch ms it was queued. */
  readonly queuedAt: number;
  /** Tells the submission that created the job from the ones that joined it. */
  readonly token: string;
}

const BACKOFF_TYPE = 'rpcgw';
/** Finished jobs stay this long (s) so that a late waiter reads the outcome; failed ones stay for the operator. */
const KEEP_COMPLETED = { age: 600, count: 10_000 };
const KEEP_FAILED = { age: 7 * 24 * 3600, count: 5_000 };
/** Bounds the operator's reads (gateway_queue, /metrics) when Redis is slow. */
const STATUS_TIMEOUT_MS = 2_000;
/** How long a shutdown waits for the deliveries under way. */
const SHUTDOWN_GRACE_MS = 30_000;
/** How long a connection whose reconnect is due is given to be ready again, before a shutdown closes it. */
const RECONNECT_SETTLE_MS = 250;
/**
 * How far apart the clocks of two processes may be (ms): a tx sent through one replica this long after
 * another process finished its delivery is still taken as sent during it (it gets that answer).
 */
const CLOCK_SKEW_MS = 100;
const PENDING_STATES = new Set(['waiting', 'active', 'delayed', 'prioritized', 'paused', 'waiting-children']);

export class BullQueue implements BroadcastQueue {
  readonly driver = 'redis' as const;
  readonly durable = true;
  private readonly logger = new Logger('BroadcastQueue');
  /** Commands of this process (submit, reads): fail at once while Redis is away. */
  private readonly producer: Redis;
  private readonly queues: Record<Lane, Queue>;
  private readonly events: Record<Lane, QueueEvents>;
  private readonly workers: LaneWorker[] = [];
  /** Names this process in the outcomes of the jobs it delivers. */
  private readonly instance = randomUUID();
  /** Where logs say Redis is (no password). */
  readonly where: string;
  private down = false;
  private closed = false;
  /** Until when (epoch ms) a connection of this queue may still be waiting to reconnect. */
  private reconnectingUntil = 0;

  constructor(
    private readonly settings: QueueSettings,
    private readonly meters: QueueMeters = QueueMeters.none,
  ) {
    this.where = redactUrl(settings.redis_url);
    this.producer = new Redis(settings.redis_url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      retryStrategy: this.reconnect,
    });
    this.producer.on('error', (err: Error) => this.outage(err));
    this.producer.on('ready', () => this.recovered());
    const prefix = settings.redis_key_prefix;
    const defaultJobOptions: JobsOptions = {
      attempts: settings.max_attempts,
      backoff: { type: BACKOFF_TYPE },
      removeOnComplete: KEEP_COMPLETED,
      removeOnFail: KEEP_FAILED,
    };
    const quiet = (err: Error) => this.logger.debug(`Redis: ${err.message}`);
    this.queues = {
      node: new Queue('node', { connection: this.producer, prefix, defaultJobOptions }).on('error', quiet),
      evm: new Queue('evm', { connection: this.producer, prefix, defaultJobOptions }).on('error', quiet),
    };
    const blocking = this.connectionOptions();
    this.events = {
      node: new QueueEvents('node', { connection: blocking, prefix }).on('error', quiet),
      evm: new QueueEvents('evm', { connection: blocking, prefix }).on('error', quiet),
    };
    // Every caller waiting on a job listens on its events: many callers of one tx are expected.
    for (const lane of LANES) this.events[lane].setMaxListeners(0);
    meters.sampleDepth(() => this.counts());
  }

  async submit(job: BroadcastJob, options: SubmitOptions = {}): Promise<Submitted> {
    const sentAt = options.sentAt ?? sendClock();
    this.ensureUp();
    // Listening before the job is added or joined: the outcome heard is that of this submission's delivery.
    const watch = options.waitMs === undefined ? undefined : new JobWatch(this.events[job.lane], job.id);
    try {
      const placed = await this.place(job, sentAt);
      if (watch === undefined || options.waitMs === undefined) return { added: placed.added };
      if (placed.settled !== undefined) return { added: placed.added, delivery: placed.settled };
      this.lookBack(job.lane, job.id, watch);
      const delivery = await watch.wait(sentAt + options.waitMs - Date.now());
      return delivery === undefined ? { added: placed.added } : { added: placed.added, delivery };
    } finally {
      watch?.stop();
    }
  }

  /**
   * Adds the job, or joins the one of its id: waiting, delayed or being delivered, or delivered with the
   * node's answer after `sentAt` (then `settled` is that answer). One finished before is delivered again.
   */
  private async place(job: BroadcastJob, sentAt: number): Promise<{ added: boolean; settled?: Delivery }> {
    const queue = this.queues[job.lane];
    const data: JobData = { ...job, queuedAt: Date.now(), token: randomUUID() };
    try {
      // The sender's nonce is held before the job exists, so that a later nonce's worker sees it.
      await this.holdNonce(job);
      // A no-op when a job of this id exists (BullMQ keeps the first); its token tells whose it is.
      await queue.add(job.lane, data, { jobId: job.id });
      const stored = (await queue.getJob(job.id)) as Job<JobData, Finished> | undefined;
      if (stored === undefined || stored.data.token === data.token) return { added: true };
      if (stored.finishedOn !== undefined) {
        const state = await stored.getState();
        const skew = finisherOf(stored.returnvalue) === this.instance ? 0 : CLOCK_SKEW_MS;
        if (state === 'completed' && sentDuring(sentAt, stored.finishedOn, skew)) {
          // Sent while that delivery was under way: its answer is this caller's too.
          this.meters.deduplicated();
          return { added: false, settled: deliveryOf(stored.returnvalue) };
        }
        if (state === 'completed' || state === 'failed') {
          try {
            // Sent again after it was delivered or gave up: the node is asked again, attempts from zero.
            await stored.retry(state, { resetAttemptsMade: true, resetAttemptsStarted: true });
            return { added: true };
          } catch {
            // Another caller moved it first: this one joins.
          }
        }
      }
      this.meters.deduplicated();
      return { added: false };
    } catch (err) {
      throw new QueueUnavailableError(`Redis at ${this.where} failed: ${(err as Error).message}`);
    }
  }

  outcome(lane: Lane, id: string, timeoutMs: number): Promise<Delivery | undefined> {
    const watch = new JobWatch(this.events[lane], id);
    this.lookBack(lane, id, watch);
    return watch.wait(timeoutMs);
  }

  /** A job that finished before the watch listened (or before the event stream was read): its stored outcome. */
  private lookBack(lane: Lane, id: string, watch: JobWatch): void {
    void (async () => {
      await this.events[lane].waitUntilReady();
      if (watch.settled || !this.up) return;
      // The state first: a job read before it is finished holds no outcome yet.
      const state = await this.queues[lane].getJobState(id);
      if (state !== 'completed' && state !== 'failed') return;
      const job = await this.queues[lane].getJob(id);
      if (job === undefined) return;
      watch.settle(state === 'failed' ? { status: 'failed', reason: job.failedReason } : deliveryOf(job.returnvalue));
    })().catch(() => undefined);
  }

  work(deliver: Deliver): void {
    const { concurrency, rate_limit } = this.settings;
    for (const lane of LANES) {
      const worker = new LaneWorker(lane, (job, token) => this.process(job, token, deliver), {
        connection: this.connectionOptions(),
        prefix: this.settings.redis_key_prefix,
        concurrency,
        ...(rate_limit > 0 ? { limiter: { max: rate_limit, duration: 1_000 } } : {}),
        settings: { backoffStrategy: (attemptsMade: number) => retryDelay(this.settings, attemptsMade) },
        // A worker that died holding jobs gives them back after this long.
        lockDuration: 10_000,
        stalledInterval: 5_000,
        maxStalledCount: 10,
      });
      worker.on('error', (err) => this.logger.debug(`worker (${lane}): ${err.message}`));
      worker.on('failed', (job, err) => {
        if (job === undefined || err instanceof DelayedError || err.name === 'DelayedError') return;
        if (job.attemptsMade < (job.opts.attempts ?? 1)) {
          this.meters.retried();
          return;
        }
        this.meters.finished({ status: 'failed', reason: err.message }, job.data.queuedAt);
        this.logger.warn(`gave up on ${lane} tx ${job.id} after ${job.attemptsMade} attempts: ${err.message}`);
        void this.releaseNonce(job.data).catch(() => undefined);
      });
      this.workers.push(worker);
    }
  }

  async counts(): Promise<LaneCounts[] | undefined> {
    if (!this.up) return undefined;
    return withTimeout(
      Promise.all(
        LANES.map(async (lane) => {
          const c = await this.queues[lane].getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized');
          return { lane, waiting: (c.waiting ?? 0) + (c.prioritized ?? 0), active: c.active ?? 0, delayed: c.delayed ?? 0, failed: c.failed ?? 0 };
        }),
      ),
    ).catch(() => undefined);
  }

  async status(): Promise<QueueStatus> {
    const workers = this.workers.length > 0;
    // The failed set before the counts: a job moves from active to failed in one step, so a job listed is counted.
    const failed = this.up ? await withTimeout(Promise.all(LANES.map((lane) => this.failedJobs(lane)))).catch(() => [] as FailedJob[][]) : [];
    const lanes = await this.counts();
    if (lanes === undefined) return { driver: 'redis', durable: true, up: false, workers, lanes: [], failed: [] };
    return { driver: 'redis', durable: true, up: true, workers, lanes, failed: failed.flat().sort((a, b) => b.failed_at - a.failed_at).slice(0, 100) };
  }

  /**
   * Stops taking jobs, lets the deliveries under way finish (up to SHUTDOWN_GRACE_MS), and closes every
   * connection. With Redis away nothing can be finished in it: the connections are cut at once.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // BullMQ's graceful close never settles if it starts while a worker's blocking connection waits to
    // reconnect (it cancels the reconnect, then waits for an `end` that ioredis never emits), and a forced
    // close after it returns that same promise. So connections that are about to reconnect are given the
    // time to (Redis is up), only a close that starts forced is tried while Redis is away, and a worker
    // whose close did not finish has its lock-renewal timer stopped, which would otherwise hold the
    // process open forever.
    const settling = this.reconnectingUntil - Date.now();
    if (this.up && settling > 0) await new Promise((r) => setTimeout(r, settling + RECONNECT_SETTLE_MS));
    const up = this.up;
    const closed = await settlesWithin(Promise.all(this.workers.map((w) => w.close(!up))), up ? SHUTDOWN_GRACE_MS : 1_000);
    if (!closed) {
      this.logger.warn(`closing the queue's workers without waiting (Redis at ${this.where} ${up ? 'did not finish in time' : 'is unreachable'})`);
      for (const worker of this.workers) await worker.stopTimers();
    }
    await settlesWithin(Promise.all(LANES.flatMap((lane) => [this.events[lane].close(), this.queues[lane].close()])), this.up ? 5_000 : 0);
    if (this.producer.status === 'ready') await this.producer.quit().catch(() => this.producer.disconnect());
    else this.producer.disconnect();
    for (const lane of LANES) {
      // Connections of BullMQ's own still trying to reach Redis stop trying.
      void this.events[lane].disconnect().catch(() => undefined);
      void this.queues[lane].disconnect().catch(() => undefined);
    }
    for (const worker of this.workers) void worker.disconnect().catch(() => undefined);
  }

  /** Redis answers the producer now. */
  get up(): boolean {
    return this.producer.status === 'ready';
  }

  private async process(job: Job<JobData, Finished>, token: string | undefined, deliver: Deliver): Promise<Finished> {
    const data = job.data;
    if (await this.lowerNoncePending(data)) {
      // Not an attempt: the job comes back once its sender's earlier nonce had its turn.
      await job.moveToDelayed(Date.now() + ORDER_WAIT_MS, token);
      throw new DelayedError();
    }
    const first = job.attemptsMade === 0 && job.stalledCounter === 0;
    const delivery = await deliver(data, first).catch((err: unknown) => {
      throw err instanceof RetryLater ? err : new RetryLater(`delivery failed: ${(err as Error).message}`);
    });
    this.meters.finished(delivery, data.queuedAt);
    await this.releaseNonce(data).catch(() => undefined);
    return { ...delivery, by: this.instance };
  }

  /** The sender's set of nonces still to deliver (a sorted set: nonce → lane:hash). */
  private senderKey(sender: string): string {
    return `${this.settings.redis_key_prefix}:senders:${sender}`;
  }

  private async holdNonce(job: BroadcastJob): Promise<void> {
    if (job.sender === undefined || job.nonce === undefined) return;
    const key = this.senderKey(job.sender);
    await this.producer.multi().zadd(key, job.nonce, `${job.lane}:${job.id}`).expire(key, 7 * 24 * 3600).exec();
  }

  private async releaseNonce(job: BroadcastJob): Promise<void> {
    if (job.sender === undefined || job.nonce === undefined) return;
    await this.producer.zrem(this.senderKey(job.sender), `${job.lane}:${job.id}`);
  }

  /** A lower nonce of the sender is still to be delivered; holds left by a job that is gone are dropped. */
  private async lowerNoncePending(job: BroadcastJob): Promise<boolean> {
    if (job.sender === undefined || job.nonce === undefined) return false;
    const key = this.senderKey(job.sender);
    const lower = await this.producer.zrangebyscore(key, '-inf', `(${job.nonce}`, 'LIMIT', 0, 10);
    for (const member of lower) {
      const [lane, id] = splitMember(member);
      const state = lane === undefined ? 'unknown' : await this.queues[lane].getJobState(id);
      if (PENDING_STATES.has(state)) return true;
      await this.producer.zrem(key, member);
    }
    return false;
  }

  private ensureUp(): void {
    if (this.closed) throw new QueueUnavailableError('the broadcast queue is shutting down');
    if (!this.up) throw new QueueUnavailableError(`Redis at ${this.where} is unreachable`);
  }

  private async failedJobs(lane: Lane): Promise<FailedJob[]> {
    const jobs = (await this.queues[lane].getFailed(0, 99)) as Job<JobData>[];
    return jobs
      .filter((j) => j !== undefined)
      .map((j) => ({
        lane,
        id: String(j.id),
        reason: j.failedReason,
        attempts: j.attemptsMade,
        queued_at: j.data.queuedAt,
        failed_at: j.finishedOn ?? j.processedOn ?? j.timestamp,
      }));
  }

  /** Options of the connections that block (workers, event readers): they wait for Redis rather than fail. */
  private connectionOptions(): ConnectionOptions {
    return { url: this.settings.redis_url, maxRetriesPerRequest: null, retryStrategy: this.reconnect };
  }

  /**
   * ioredis's retry strategy of every connection: reconnect quickly (a broadcast refused while Redis is
   * away is refused for as short a time as can be), and not at all once the queue is closed.
   */
  private readonly reconnect = (attempt: number): number | null => {
    if (this.closed) return null;
    const delay = Math.min(attempt * 100, 1_000);
    this.reconnectingUntil = Math.max(this.reconnectingUntil, Date.now() + delay);
    return delay;
  };

  private outage(err: Error): void {
    if (this.down || this.closed) return;
    this.down = true;
    this.logger.warn(`Redis at ${this.where} is unreachable (${err.message}): broadcasts are refused until it is back`);
  }

  private recovered(): void {
    if (!this.down) {
      this.logger.log(`Redis at ${this.where} connected`);
      return;
    }
    this.down = false;
    this.logger.log(`Redis at ${this.where} is back: broadcasts are queued again`);
  }
}

function splitMember(member: string): [Lane | undefined, string] {
  const at = member.indexOf(':');
  const lane = member.slice(0, at);
  return [(LANES as readonly string[]).includes(lane) ? (lane as Lane) : undefined, member.slice(at + 1)];
}

/** A BullMQ worker whose timers can be stopped when its close cannot finish (see close()). */
class LaneWorker extends Worker<JobData, Finished> {
  /** Stops renewing the locks of the jobs it holds; they return to the queue once the locks expire. */
  stopTimers(): Promise<void> {
    return this.lockManager.close();
  }
}

/** Whether `work` settled within `ms` (its failure counts as settled); it is left to run on otherwise. */
async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const done = work.then(
    () => true,
    () => true,
  );
  try {
    return await Promise.race([done, late]);
  } finally {
    clearTimeout(timer);
  }
}

function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('Redis did not answer in time')), STATUS_TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}
