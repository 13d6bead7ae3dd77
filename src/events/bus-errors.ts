/** CometBFT's reason for cancelling a subscription whose buffer overflowed. */
export const OUT_OF_CAPACITY = 'internal subscription event buffer is out of capacity';

/** EventBus.once(): the bus cancelled the subscription (e.g. it closed) before an event came. */
export class SubscriptionCanceledError extends Error {
  override readonly name = 'SubscriptionCanceledError';

  constructor(readonly reason: string) {
    super(`subscription was canceled (reason: ${reason})`);
  }
}

/** EventBus.once(): no matching event within the timeout. */
export class EventTimeoutError extends Error {
  override readonly name = 'EventTimeoutError';

  constructor(readonly timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms waiting for an event`);
  }
}
