import { Module } from '@nestjs/common';
import { EventBus } from './event-bus';

/** Provides the process's one EventBus, shared by the backends that publish and the transports that subscribe. */
@Module({
  providers: [{ provide: EventBus, useFactory: () => new EventBus() }],
  exports: [EventBus],
})
export class EventsModule {}
