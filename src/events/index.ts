// EventsModule is left out so that importing this barrel does not load @nestjs/common (ESM-only, which
// jest cannot require); import it from './events.module'.
export { EventTimeoutError, OUT_OF_CAPACITY, SubscriptionCanceledError } from './bus-errors';
export { EventBus, type BusEvent, type OnceOptions, type SubscribeOptions, type Subscription } from './event-bus';
export * from './query';
