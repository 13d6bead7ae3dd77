import { Module } from '@nestjs/common';
import { EventsModule } from '../../events/events.module';
import { namespaceModule } from '../core/namespace-module';
import { ChainFeed } from './chain-feed';
import { FilterMethods } from './filter.methods';
import { PollingFilters } from './polling-filters';

/** eth's polling filters and the chain feed they share with WebSocket subscriptions. */
@Module(namespaceModule('eth-filters', [FilterMethods], { imports: [EventsModule], providers: [ChainFeed, PollingFilters], exports: [ChainFeed] }))
export class FiltersModule {}
