import { Module } from '@nestjs/common';
import { namespaceModule } from '../core/namespace-module';
import { FiltersModule } from '../filters/filters.module';
import { SubscriptionMethods } from './subscription.methods';

/** eth_subscribe / eth_unsubscribe (WebSocket only). */
@Module(namespaceModule('eth-subscriptions', [SubscriptionMethods], { imports: [FiltersModule] }))
export class SubscriptionsModule {}
