import { Module } from '@nestjs/common';
import { EventsModule } from '../../events/events.module';
import { methodsModule } from '../../rpc/registration';
import { SubscriptionMethods } from './subscription.methods';

@Module(methodsModule('node', 'events', [SubscriptionMethods], { imports: [EventsModule] }))
export class SubscriptionsModule {}
