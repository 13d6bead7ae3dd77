/**
 * The in-memory driver: the queue lives in this process (the default without `[queue] redis_url`). Same
 * semantics as the BullMQ driver (dedup by hash, retries with backoff, nonce order per sender,
 * concurrency and rate limit per lane, a failed set), but a restart loses what was still queued.
 */
import type { GatewayOwnConfig } from '../config/config.types';
import { retryDelay } from './backoff';
import { LANES, RetryLater, sendClock, sentDuring, type BroadcastJob, type BroadcastQueue, type Deliver, type Delivery, type FailedJob, type Lane, type LaneCounts, type QueueStatus, type SubmitOptions, type Submitted, QueueUnavailableError } from './broadcast-queue';
import { QueueMeters } from './queue-metrics';

export type QueueSettings = GatewayOwnConfig['queue'];

/** How long a finished job's outcome stays, for the callers that wait on it. */
const KEEP_FINISHED_MS = 60_000;
/** How long a tx waits for a lower nonce of its sender to go first, before it looks again. */
export const ORDER_WAIT_MS = 200;
/** Failed jobs kept for the operator's view. */
const KEEP_FAILED = 1_000;

type State = 'waiting' | 'delayed' | 'active' | 'finished';

interface Entry {
  readonly job: BroadcastJob;
  readonly queuedAt: number;
  state: State;
  /** Attempts that ended in a retry or a result. */
  attempts: number;
  result?: Delivery;
  /** Epoch ms its delivery finished. */
  finishedAt?: number;
  timer?: NodeJS.Timeout;
  readonly waiters: Set<(delivery: Delivery | undefined) => void>;
}

interface LaneState {
  readonly waiting: Entry[];
  active: number;
  /** The rate limit's window (one second from its first delivery) and the deliveries started in it. */
  windowStart: number;
  startedInWindow: number;
  pumpTimer?: NodeJS.Timeout;
}

export class MemoryQueue implements BroadcastQueue {
  readonly driver = 'memory' as const;
  readonly durable = false;
  private readonly entries = new Map<string, Entry>();
  private readonly lanes: Record<Lane, LaneState>;
  private readonly failed: FailedJob[] = [];
  /** Unfinished jobs of each Ethereum sender, for nonce order. */
  private readonly bySender = new Map<string, Set<Entry>>();
  private deliver: Deliver | undefined;
  private closing = false;
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly settings: QueueSettings,
    private readonly meters: QueueMeters = QueueMeters.none,
  ) {
    this.lanes = { node: newLane(), evm: newLane() };
    meters.sampleDepth(async () => this.counts());
  }

  async submit(job: BroadcastJob, options: SubmitOptions = {}): Promise<Submitted> {
    const sentAt = options.sentAt ?? sendClock();
    if (this.closing) throw new QueueUnavailableError('the gateway is shutting down');
    const key = keyOf(job.lane, job.id);
    const existing = this.entries.get(key);
    if (existing !== undefined && (existing.state !== 'finished' || joinsFinished(existing, sentAt))) {
      this.meters.deduplicated();
      return { added: false, ...(await this.waitOn(existing, sentAt, options.waitMs)) };
    }
    if (existing !== undefined) this.forget(key, existing);
    const entry: Entry = { job, queuedAt: Date.now(), state: 'waiting', attempts: 0, waiters: new Set() };
    this.entries.set(key, entry);
    if (job.sender !== undefined) {
      const pending = this.bySender.get(job.sender) ?? new Set();
      pending.add(entry);
      this.bySender.set(job.sender, pending);
    }
    this.lanes[job.lane].waiting.push(entry);
    this.pump(job.lane);
    return { added: true, ...(await this.waitOn(entry, sentAt, options.waitMs)) };
  }

  outcome(lane: Lane, id: string, timeoutMs: number): Promise<Delivery | undefined> {
    const entry = this.entries.get(keyOf(lane, id));
    return entry === undefined ? Promise.resolve(undefined) : this.resultOf(entry, timeoutMs);
  }

  /** The outcome of this entry's delivery (never a later one of the same tx), when asked to wait. */
  private async waitOn(entry: Entry, sentAt: number, waitMs: number | undefined): Promise<{ delivery?: Delivery }> {
    if (waitMs === undefined) return {};
    const delivery = await this.resultOf(entry, Math.max(0, sentAt + waitMs - Date.now()));
    return delivery === undefined ? {} : { delivery };
  }

  private resultOf(entry: Entry, timeoutMs: number): Promise<Delivery | undefined> {
    if (entry.result !== undefined) return Promise.resolve(entry.result);
    return new Promise((resolve) => {
      const done = (delivery: Delivery | undefined) => {
        clearTimeout(timer);
        entry.waiters.delete(done);
        resolve(delivery);
      };
      const timer = setTimeout(() => done(undefined), timeoutMs);
      entry.waiters.add(done);
    });
  }

  work(deliver: Deliver): void {
    this.deliver = deliver;
    for (const lane of LANES) this.pump(lane);
  }

  async counts(): Promise<LaneCounts[]> {
    const counts = new Map<Lane, { waiting: number; active: number; delayed: number }>(LANES.map((lane) => [lane, { waiting: 0, active: 0, delayed: 0 }]));
    for (const entry of this.entries.values()) {
      if (entry.state !== 'finished') counts.get(entry.job.lane)![entry.state]++;
    }
    return LANES.map((lane) => ({ lane, ...counts.get(lane)!, failed: this.failed.filter((f) => f.lane === lane).length }));
  }

  async status(): Promise<QueueStatus> {
    return { driver: 'memory', durable: false, up: true, workers: this.deliver !== undefined, lanes: await this.counts(), failed: this.failed.slice(0, 100) };
  }

  /** Stops starting deliveries, waits for those under way; jobs still queued are dropped (their count is returned). */
  async close(): Promise<number> {
    this.closing = true;
    for (const lane of LANES) clearTimeout(this.lanes[lane].pumpTimer);
    await Promise.all(this.running);
    let dropped = 0;
    for (const [key, entry] of this.entries) {
      clearTimeout(entry.timer);
      if (entry.state !== 'finished') {
        dropped++;
        for (const waiter of [...entry.waiters]) waiter(undefined);
      }
      this.entries.delete(key);
    }
    return dropped;
  }

  /** Starts what the lane's concurrency and rate limit allow. */
  private pump(lane: Lane): void {
    const state = this.lanes[lane];
    if (this.deliver === undefined || this.closing) return;
    while (state.active < this.settings.concurrency && state.waiting.length > 0) {
      const rate = this.settings.rate_limit;
      const now = Date.now();
      if (rate > 0 && now - state.windowStart >= 1_000) {
        state.windowStart = now;
        state.startedInWindow = 0;
      }
      if (rate > 0 && state.startedInWindow >= rate) {
        if (state.pumpTimer === undefined) {
          state.pumpTimer = setTimeout(() => {
            state.pumpTimer = undefined;
            this.pump(lane);
          }, state.windowStart + 1_000 - now);
        }
        return;
      }
      const entry = state.waiting.shift()!;
      if (this.blockedByLowerNonce(entry)) {
        this.delay(entry, ORDER_WAIT_MS);
        continue;
      }
      state.startedInWindow++;
      const run = this.run(entry).finally(() => this.running.delete(run));
      this.running.add(run);
    }
  }

  private async run(entry: Entry): Promise<void> {
    const lane = this.lanes[entry.job.lane];
    entry.state = 'active';
    lane.active++;
    const first = entry.attempts === 0;
    entry.attempts++;
    try {
      const delivery = await this.deliver!(entry.job, first);
      this.finish(entry, delivery);
    } catch (err) {
      const reason = err instanceof RetryLater ? err.message : `delivery failed: ${(err as Error).message}`;
      if (entry.attempts >= this.settings.max_attempts || this.closing) {
        this.finish(entry, { status: 'failed', reason });
      } else {
        this.meters.retried();
        this.delay(entry, retryDelay(this.settings, entry.attempts));
      }
    } finally {
      lane.active--;
      this.pump(entry.job.lane);
    }
  }

  private delay(entry: Entry, ms: number): void {
    entry.state = 'delayed';
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      if (this.closing || this.entries.get(keyOf(entry.job.lane, entry.job.id)) !== entry) return;
      entry.state = 'waiting';
      this.lanes[entry.job.lane].waiting.push(entry);
      this.pump(entry.job.lane);
    }, ms);
  }

  private finish(entry: Entry, delivery: Delivery): void {
    entry.state = 'finished';
    entry.result = delivery;
    entry.finishedAt = sendClock();
    const pending = entry.job.sender === undefined ? undefined : this.bySender.get(entry.job.sender);
    pending?.delete(entry);
    if (pending?.size === 0) this.bySender.delete(entry.job.sender!);
    this.meters.finished(delivery, entry.queuedAt);
    if (delivery.status === 'failed') {
      this.failed.unshift({ lane: entry.job.lane, id: entry.job.id, reason: delivery.reason, attempts: entry.attempts, queued_at: entry.queuedAt, failed_at: Date.now() });
      this.failed.length = Math.min(this.failed.length, KEEP_FAILED);
    }
    for (const waiter of [...entry.waiters]) waiter(delivery);
    const key = keyOf(entry.job.lane, entry.job.id);
    entry.timer = setTimeout(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    }, KEEP_FINISHED_MS);
    entry.timer.unref();
  }

  private forget(key: string, entry: Entry): void {
    clearTimeout(entry.timer);
    this.entries.delete(key);
    const i = this.failed.findIndex((f) => f.lane === entry.job.lane && f.id === entry.job.id);
    if (i >= 0) this.failed.splice(i, 1);
  }

  /** Another tx of the same sender with a lower nonce is still to be delivered, in either lane. */
  private blockedByLowerNonce(entry: Entry): boolean {
    const { sender, nonce } = entry.job;
    if (sender === undefined || nonce === undefined) return false;
    for (const other of this.bySender.get(sender) ?? []) {
      if (other.job.nonce !== undefined && other.job.nonce < nonce) return true;
    }
    return false;
  }
}

function newLane(): LaneState {
  return { waiting: [], active: 0, windowStart: 0, startedInWindow: 0 };
}

/** A finished entry a submission sent at `sentAt` joins: the node answered it (not a failed set entry) after that. */
function joinsFinished(entry: Entry, sentAt: number): boolean {
  return entry.result !== undefined && entry.result.status !== 'failed' && entry.finishedAt !== undefined && sentDuring(sentAt, entry.finishedAt, 0);
}

function keyOf(lane: Lane, id: string): string {
  return `${lane}:${id}`;
}
