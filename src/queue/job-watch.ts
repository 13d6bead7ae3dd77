/**
 * Waiting on one BullMQ job's outcome through its queue's event stream (`completed:<id>`,
 * `failed:<id>`). A submission attaches its watch before it adds or joins the job, so what it hears is
 * the outcome of the delivery it started or joined, never that of a later delivery of the same tx.
 */
import type { EventEmitter } from 'node:events';
import type { Delivery } from './broadcast-queue';

/** What a job's worker returns: the delivery, and which process finished it (whose clock `finishedOn` is). */
export type Finished = Delivery & { by?: string };

export class JobWatch {
  private done = false;
  private resolve: (delivery: Delivery) => void = () => undefined;
  private readonly outcome = new Promise<Delivery>((resolve) => {
    this.resolve = resolve;
  });
  private readonly onCompleted = (args: { returnvalue: unknown }) => this.settle(deliveryOf(args.returnvalue));
  private readonly onFailed = (args: { failedReason: string }) => this.settle({ status: 'failed', reason: args.failedReason });

  constructor(
    private readonly events: EventEmitter,
    private readonly id: string,
  ) {
    events.on(`completed:${id}`, this.onCompleted);
    events.on(`failed:${id}`, this.onFailed);
  }

  get settled(): boolean {
    return this.done;
  }

  settle(delivery: Delivery): void {
    if (this.done) return;
    this.stop();
    this.resolve(delivery);
  }

  stop(): void {
    this.done = true;
    this.events.off(`completed:${this.id}`, this.onCompleted);
    this.events.off(`failed:${this.id}`, this.onFailed);
  }

  /** The outcome, or undefined when it is not heard within `ms`; the watch stops either way. */
  async wait(ms: number): Promise<Delivery | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), Math.max(0, ms));
    });
    try {
      return await Promise.race([this.outcome, late]);
    } finally {
      clearTimeout(timer);
      this.stop();
    }
  }
}

/** A job's return value (as stored, or as the event stream carries it, JSON) as a delivery. */
export function deliveryOf(value: unknown): Delivery {
  const parsed = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  if (!isDelivery(parsed)) return { status: 'failed', reason: 'the job finished without a delivery result' };
  const delivery: Finished = { ...parsed };
  delete delivery.by;
  return delivery;
}

/** The process that finished the job, when its return value says. */
export function finisherOf(value: unknown): string | undefined {
  return isDelivery(value) ? value.by : undefined;
}

function isDelivery(value: unknown): value is Finished {
  return typeof value === 'object' && value !== null && 'status' in value;
}
