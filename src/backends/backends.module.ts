import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { BackendKind } from '../config/config.types';
import { INVOKER, invokerProvider } from '../rpc/registration';
import { EmbeddedModule } from './embedded/embedded.module';
import { UpstreamModule } from './upstream/upstream.module';

/**
 * The configured backend behind each interface's MethodBackend and BACKEND_SERVICES, and the Invoker
 * every call runs through; nothing outside backends/ knows which backend runs.
 */
@Global()
@Module({})
export class BackendsModule {
  static forRoot(kind: BackendKind): DynamicModule {
    const backend = kind === 'upstream' ? UpstreamModule : EmbeddedModule;
    return {
      module: BackendsModule,
      imports: [backend],
      providers: [invokerProvider('node'), invokerProvider('evm')],
      exports: [backend, INVOKER.node, INVOKER.evm],
    };
  }
}
