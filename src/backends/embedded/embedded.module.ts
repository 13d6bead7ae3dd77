/**
 * The embedded devnet as the backend of both interfaces: one devnet, opened when the app starts,
 * producing (or, with `follow`, replaying) blocks from bootstrap until shutdown, answering the node
 * RPC's and the EVM RPC's method definitions through their handler tables, each interface's cacheable
 * answers kept in a response cache of its own (`[cache] max_bytes` each, as each upstream pool's).
 */
import { Injectable, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { devAccounts } from '../../devnet/app/evm/dev-accounts';
import { EventBus } from '../../events';
import { EventsModule } from '../../events/events.module';
import { METHOD_BACKEND } from '../../rpc/registration';
import { BACKEND_SERVICES, type BackendServices } from '../backend-services';
import { namedParams, positionalParams } from '../params-form';
import { cacheStats } from '../response-cache';
import { DevnetCache } from './devnet-cache';
import { DevnetEvm } from './devnet-evm';
import { DevnetMethods } from './devnet-methods';
import { DevnetNode } from './devnet-node';
import { evmHandlers } from './evm-handlers';
import { nodeHandlers } from './node-handlers';

@Injectable()
export class DevnetLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(private readonly node: DevnetNode) {}

  onApplicationBootstrap(): Promise<void> {
    return this.node.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.node.stop();
  }
}

@Module({
  imports: [EventsModule],
  providers: [
    {
      provide: DevnetNode,
      inject: [GatewayConfigService, EventBus],
      useFactory: (config: GatewayConfigService, bus: EventBus): Promise<DevnetNode> => {
        const { devnet } = config.gateway;
        // Absent in configs that leave out [json-rpc] (tests); the default refuses unprotected txs.
        const jsonRpc = config.jsonRpc as typeof config.jsonRpc | undefined;
        return DevnetNode.open(
          {
            home: config.home,
            chainId: devnet.chain_id,
            moniker: devnet.moniker,
            blockTimeMs: devnet.block_time,
            ephemeral: devnet.ephemeral,
            mempoolSize: devnet.mempool_size,
            maxTxBytes: devnet.max_tx_bytes,
            rpcAddress: config.rpc.laddr,
            ...(devnet.follow === '' ? {} : { follow: devnet.follow }),
            evm: {
              // 0: the EIP-155 chain id follows the genesis chain id when it has Evmos's form (name_9000-1), else 9000.
              ...(devnet.evm_chain_id === 0 ? {} : { chainId: BigInt(devnet.evm_chain_id) }),
              blockGasLimit: BigInt(devnet.block_gas_limit),
              initialBaseFee: BigInt(devnet.initial_base_fee),
              allowUnprotectedTxs: jsonRpc?.['allow-unprotected-txs'] ?? false,
            },
          },
          bus,
        );
      },
    },
    { provide: DevnetEvm, inject: [DevnetNode], useFactory: (node: DevnetNode) => new DevnetEvm(node.devnet) },
    {
      provide: METHOD_BACKEND.node,
      inject: [DevnetNode, GatewayConfigService],
      useFactory: (node: DevnetNode, config: GatewayConfigService) =>
        new DevnetMethods(nodeHandlers(node), new DevnetCache(config.gateway.cache.max_bytes, node.devnet), namedParams),
    },
    {
      provide: METHOD_BACKEND.evm,
      inject: [DevnetNode, DevnetEvm, GatewayConfigService],
      useFactory: (node: DevnetNode, evm: DevnetEvm, config: GatewayConfigService) =>
        new DevnetMethods(evmHandlers(evm, config), new DevnetCache(config.gateway.cache.max_bytes, node.devnet), positionalParams),
    },
    {
      provide: BACKEND_SERVICES,
      inject: [DevnetNode, DevnetEvm, METHOD_BACKEND.node, METHOD_BACKEND.evm],
      useFactory: (node: DevnetNode, evm: DevnetEvm, nodeMethods: DevnetMethods, evmMethods: DevnetMethods): BackendServices => ({
        // The devnet publishes every event itself; there is nothing to feed or release.
        feedEvents: async () => () => undefined,
        health: () => node.info.health(),
        ready: async () => {
          await node.info.health();
          return true;
        },
        devAccountKeys: () => devAccounts().map((account) => Uint8Array.from(account.privateKey)),
        pools: () => ({}),
        caches: () => ({ node: cacheStats(nodeMethods.cache.memory), evm: cacheStats(evmMethods.cache.memory) }),
        addressHistory: evm.history,
      }),
    },
    DevnetLifecycle,
  ],
  exports: [DevnetNode, METHOD_BACKEND.node, METHOD_BACKEND.evm, BACKEND_SERVICES],
})
export class EmbeddedModule {}
