import type { ModuleMetadata } from '@nestjs/common';
import { NODE_BACKEND, type NodeBackend } from '../backends/node-backend';
import type { MethodRegistry } from '../rpc/method-registry';
import type { MethodSpec } from '../rpc/method-spec';
import { NODE_REGISTRY, NodeRpcCoreModule } from './node-rpc-core.module';

/** Metadata of a category module: registers its method table with the node RPC's registry. */
export function categoryModule(category: string, methods: (backend: NodeBackend) => MethodSpec[]): ModuleMetadata {
  return {
    imports: [NodeRpcCoreModule],
    providers: [
      {
        provide: `node-rpc:${category}`,
        inject: [NODE_REGISTRY, NODE_BACKEND],
        useFactory: (registry: MethodRegistry, backend: NodeBackend) => registry.registerAll(methods(backend)),
      },
    ],
  };
}
