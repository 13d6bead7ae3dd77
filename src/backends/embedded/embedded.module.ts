/**
 * The embedded devnet as the node backend and the EVM backend: one devnet, opened when the app
 * starts, producing (or, with `follow`, replaying) blocks from bootstrap until shutdown, seen through
 * NODE_BACKEND (CometBFT RPC) and EVM_BACKEND (Ethereum JSON-RPC).
 */
import { Inject, Injectable, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { EventBus } from '../../events';
import { EventsModule } from '../../events/events.module';
import { EVM_BACKEND } from '../evm-backend';
import { NODE_BACKEND } from '../node-backend';
import { EmbeddedEvmBackend } from './embedded-evm-backend';
import { EmbeddedNodeBackend } from './embedded-node-backend';

@Injectable()
export class DevnetLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(@Inject(NODE_BACKEND) private readonly backend: EmbeddedNodeBackend) {}

  onApplicationBootstrap(): Promise<void> {
    return this.backend.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.backend.stop();
  }
}

@Module({
  imports: [EventsModule],
  providers: [
    {
      provide: NODE_BACKEND,
      inject: [GatewayConfigService, EventBus],
      useFactory: (config: GatewayConfigService, bus: EventBus): Promise<EmbeddedNodeBackend> => {
        const { devnet } = config.gateway;
        // Absent in configs that leave out [json-rpc] (tests); the default refuses unprotected txs.
        const jsonRpc = config.jsonRpc as typeof config.jsonRpc | undefined;
        return EmbeddedNodeBackend.open(
          {
            home: config.home,
            chainId: devnet.chain_id,
            moniker: devnet.moniker,
            blockTimeMs: devnet.block_time,
            ephemeral: devnet.ephemeral,
            mempoolSize: devnet.mempool_size,
            maxTxBytes: devnet.max_tx_bytes,
            rpcAddress: config.rpc.laddr,
            timeoutBroadcastTxCommitMs: config.rpc.timeout_broadcast_tx_commit,
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
    {
      provide: EVM_BACKEND,
      inject: [NODE_BACKEND],
      useFactory: (node: EmbeddedNodeBackend): EmbeddedEvmBackend => new EmbeddedEvmBackend(node.devnet),
    },
    DevnetLifecycle,
  ],
  exports: [NODE_BACKEND, EVM_BACKEND],
})
export class EmbeddedModule {}
