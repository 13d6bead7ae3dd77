/**
 * The broadcast queue: every transaction the gateway accepts for broadcast is a job, delivered to the
 * backend by workers, retried while the backend is unavailable. Two drivers implement it: BullMQ on
 * Redis (durable, shared by replicas and `rpc-gateway worker` processes) and one in memory. A job's id
 * is its tx hash, so the same tx sent twice, by anyone, through any replica, is one job.
 */
import type { Json, JsonObject } from '../rpc/json';

export const BROADCAST_QUEUE = Symbol('BROADCAST_QUEUE');

/** Each backend has its lane: its own jobs, workers, rate limit and failed set. */
export type Lane = 'node' | 'evm';
export const LANES: readonly Lane[] = ['node', 'evm'];

/** One transaction to deliver. */
export interface BroadcastJob {
  readonly lane: Lane;
  /** Its hash: CometBFT's (sha256, upper-case hex) on the node lane, the EVM's (keccak, 0x-hex) on the evm lane. */
  readonly id: string;
  /** The signed tx, base64. */
  readonly tx: string;
  /** A signed Ethereum tx's sender (0x, lower case) and nonce: one sender's txs are delivered in nonce order. */
  readonly sender?: string;
  readonly nonce?: number;
}

/** A JSON-RPC error as the node answered it. */
export interface NodeError {
  readonly code: number;
  readonly message: string;
  readonly data?: Json;
}

/** What delivering a job came to. */
export type Delivery =
  /** The node took the tx. Node lane: broadcast_tx_sync's answer (code 0). */
  | { readonly status: 'accepted'; readonly check?: JsonObject }
  /**
   * The node already had the tx (in its mempool or cache, or in a block): delivered. `first`: said to the
   * job's first attempt, so it is the node's answer to this submission, not an echo of an earlier attempt.
   */
  | { readonly status: 'known'; readonly first: boolean; readonly error: NodeError }
  /** The node refused the tx for good: a check with code ≠ 0 (node lane) or an error answer. Not retried. */
  | { readonly status: 'rejected'; readonly check?: JsonObject; readonly error?: NodeError }
  /** Every attempt found the backend unavailable: the job is in the failed set. */
  | { readonly status: 'failed'; readonly reason: string };

/** Delivers one job; throws a RetryLater when the backend is unavailable. `first`: the job's first attempt. */
export type Deliver = (job: BroadcastJob, first: boolean) => Promise<Delivery>;

/** The backend is unavailable (or busy): the attempt counts, and the job is tried again after a backoff. */
export class RetryLater extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RetryLater';
  }
}

/** The queue's store (Redis) cannot take a job now: nothing was queued. */
export class QueueUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QueueUnavailableError';
  }
}

/** How many jobs a lane holds, by state. */
export interface LaneCounts {
  readonly lane: Lane;
  readonly waiting: number;
  readonly active: number;
  readonly delayed: number;
  readonly failed: number;
}

/** A job of the failed set. */
export interface FailedJob {
  readonly lane: Lane;
  readonly id: string;
  readonly reason: string;
  readonly attempts: number;
  /** Epoch milliseconds. */
  readonly queued_at: number;
  readonly failed_at: number;
}

/** The operator's view of the queue (gateway_queue). */
export interface QueueStatus {
  /** `redis` (BullMQ) or `memory`. */
  readonly driver: 'redis' | 'memory';
  /** Jobs survive a restart of the gateway. */
  readonly durable: boolean;
  /** The store answers (always true in memory). */
  readonly up: boolean;
  /** This process delivers jobs. */
  readonly workers: boolean;
  /** Counts per lane; empty when the store does not answer. */
  readonly lanes: readonly LaneCounts[];
  /** The latest failed jobs, the latest first. */
  readonly failed: readonly FailedJob[];
}

/** How a caller submits. */
export interface SubmitOptions {
  /**
   * When the caller sent the tx (epoch ms, this process's clock; default: now). A job of the same hash
   * whose delivery finished at or after it is joined, not delivered again: the caller sent the tx while
   * that delivery was under way, and gets its answer.
   */
  readonly sentAt?: number;
  /** Waits at most this long (from `sentAt`) for the outcome of the delivery the submission started or joined. */
  readonly waitMs?: number;
}

/** What the callers of the queue get from `submit`. */
export interface Submitted {
  /** False when the tx joined the job queued, being delivered, or delivered while it was sent, under its hash. */
  readonly added: boolean;
  /** With `waitMs`: the outcome of that delivery; undefined when it is not known in time. */
  readonly delivery?: Delivery;
}

/**
 * A submission sent at `sentAt` joins a delivery that finished at `finishedOn` (epoch ms) rather than
 * starting another: it was sent while that delivery was under way. Clocks of two processes are trusted
 * to agree within `skewMs` (0 when the delivery was finished by the submitting process).
 */
export function sentDuring(sentAt: number, finishedOn: number, skewMs: number): boolean {
  return sentAt <= finishedOn + skewMs;
}

/**
 * Epoch ms with a fraction: when a submission was sent and (in this process) when a delivery finished.
 * Whole milliseconds would tie a tx sent again right after its answer with the delivery that answered it.
 */
export function sendClock(): number {
  return performance.timeOrigin + performance.now();
}

export interface BroadcastQueue {
  readonly driver: 'redis' | 'memory';
  readonly durable: boolean;
  /**
   * Queues the job, or joins the one of the same id that waits, is delayed or is being delivered, or
   * whose delivery finished with the node's answer after the caller sent it (`sentDuring`): one
   * delivery, one answer for every caller. A job of that id finished before (delivered or refused
   * earlier, or in the failed set) is delivered again. With `waitMs`, resolves with the outcome of the
   * delivery it started or joined, bound to it (not to a later delivery of the same tx). Throws
   * QueueUnavailableError when the store cannot take it (then nothing was queued).
   */
  submit(job: BroadcastJob, options?: SubmitOptions): Promise<Submitted>;
  /** The outcome of the job's delivery, once known; undefined when it is not known within `timeoutMs`. */
  outcome(lane: Lane, id: string, timeoutMs: number): Promise<Delivery | undefined>;
  /** Starts this process's workers, which deliver with `deliver`. */
  work(deliver: Deliver): void;
  status(): Promise<QueueStatus>;
  /** The depth of each lane; undefined when the store does not answer. */
  counts(): Promise<readonly LaneCounts[] | undefined>;
  /**
   * Stops taking jobs, lets the deliveries under way finish, and lets go of the store. The in-memory
   * driver answers how many jobs it dropped.
   */
  close(): Promise<void | number>;
}
