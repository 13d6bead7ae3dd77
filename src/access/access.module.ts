import { Global, Module } from '@nestjs/common';
import type { CallGate } from '../rpc/engine';
import { RPC_GATE } from '../rpc/registration';
import { AccessService } from './access.service';

/** Access to both interfaces (API keys, client addresses, rate limits, per-IP caps); global, as transports and methods read it. */
@Global()
@Module({
  providers: [AccessService, { provide: RPC_GATE, inject: [AccessService], useFactory: (access: AccessService): CallGate | null => access.gate ?? null }],
  exports: [AccessService, RPC_GATE],
})
export class AccessModule {}
