import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { BackendKind } from '../config/config.types';
import { EmbeddedModule } from './embedded/embedded.module';
import { UpstreamModule } from './upstream/upstream.module';

/** Provides the configured backend behind NODE_BACKEND (and EVM_BACKEND); nothing outside backends/ knows which runs. */
@Global()
@Module({})
export class BackendsModule {
  static forRoot(kind: BackendKind): DynamicModule {
    const backend = kind === 'upstream' ? UpstreamModule : EmbeddedModule;
    return { module: BackendsModule, imports: [backend], exports: [backend] };
  }
}
