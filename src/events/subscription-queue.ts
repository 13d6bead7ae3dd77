import type { BusEvent, SubscribeOptions, Subscription } from './event-bus';
import type { Query } from './query';

/**
 * A subscription's bounded buffer and its delivery loop. Delivery starts in a microtask and then runs
 * through everything buffered, pausing only while onEvent's promise is pending.
 */
export class SubscriptionQueue implements Subscription {
  private readonly buffer: BusEvent[] = [];
  /** 'draining': a delivery loop is scheduled, running or waiting for onEvent's promise. */
  private state: 'idle' | 'draining' | 'stopped' = 'idle';

  constructor(
    readonly subscriber: string,
    readonly query: Query,
    private readonly options: SubscribeOptions,
  ) {}

  /** Buffers the event; false when the buffer is full. */
  offer(event: BusEvent): boolean {
    if (this.buffer.length >= this.options.bufferSize) return false;
    this.buffer.push(event);
    if (this.state === 'idle') {
      this.state = 'draining';
      queueMicrotask(this.drain);
    }
    return true;
  }

  /** Drops what is buffered and delivers nothing more; with a reason, onCancel is told. */
  stop(reason?: string): void {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    this.buffer.length = 0;
    if (reason !== undefined) queueMicrotask(() => this.options.onCancel(reason));
  }

  private readonly drain = (): void => {
    while (this.state === 'draining') {
      const event = this.buffer.shift();
      if (event === undefined) {
        this.state = 'idle';
        return;
      }
      const pending = this.deliver(event);
      if (pending) {
        pending.then(this.drain, this.drain);
        return;
      }
    }
  };

  private deliver(event: BusEvent): PromiseLike<unknown> | undefined {
    try {
      const result = this.options.onEvent(event);
      return result && typeof result.then === 'function' ? result : undefined;
    } catch {
      return undefined;
    }
  }
}
