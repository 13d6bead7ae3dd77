import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { CallGate } from '../rpc/engine';
import { RPC_GATE } from '../rpc/registration';
import { AccessService } from './access.service';
import { FileKeys } from './api-keys';

/**
 * Access to both interfaces (API keys, client addresses, rate limits, per-IP caps); global, as
 * transports and methods read it. `keys`: the `[access] keys_file` as read at start (the app's modules
 * are chosen by what it opens), or null without one.
 */
@Global()
@Module({})
export class AccessModule {
  static forRoot(keys: FileKeys | null): DynamicModule {
    return {
      module: AccessModule,
      providers: [
        { provide: FileKeys, useValue: keys },
        AccessService,
        { provide: RPC_GATE, inject: [AccessService], useFactory: (access: AccessService): CallGate | null => access.gate ?? null },
      ],
      exports: [AccessService, RPC_GATE],
    };
  }
}
