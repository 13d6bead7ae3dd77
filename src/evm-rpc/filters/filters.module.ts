import { Module } from '@nestjs/common';
import { EventsModule } from '../../events/events.module';
import { methodsModule } from '../../rpc/registration';
import { ChainFeed } from './chain-feed';
import { ConfiguredFilters } from './configured-filters';
import { FilterMethods } from './filter.methods';
import { PollingFilters } from './polling-filters';

/** eth's polling filters and the chain feed they share with WebSocket subscriptions. */
@Module(methodsModule('evm', 'eth-filters', [FilterMethods], { imports: [EventsModule], providers: [ChainFeed, PollingFilters, ConfiguredFilters], exports: [ChainFeed] }))
export class FiltersModule {}
