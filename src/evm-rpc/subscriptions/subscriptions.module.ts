import { Module } from '@nestjs/common';
import { methodsModule } from '../../rpc/registration';
import { FiltersModule } from '../filters/filters.module';
import { SubscriptionMethods } from './subscription.methods';

/** eth_subscribe (WebSocket only) / eth_unsubscribe. */
@Module(methodsModule('evm', 'eth-subscriptions', [SubscriptionMethods], { imports: [FiltersModule] }))
export class SubscriptionsModule {}
