import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { BACKEND_SERVICES, type BackendServices } from '../../../src/backends/backend-services';
import { DevnetNode } from '../../../src/backends/embedded/devnet-node';
import { EmbeddedModule } from '../../../src/backends/embedded/embedded.module';
import { GatewayConfigModule } from '../../../src/config/config.module';
import type { AppConfig } from '../../../src/config/config.types';
import { GatewayConfigService } from '../../../src/config/gateway-config.service';
import { eth_blockNumber, eth_chainId, eth_getBlockByNumber } from '../../../src/evm-rpc/definitions';
import { Invoker, type MethodBackend } from '../../../src/rpc/invoker';
import { METHOD_BACKEND } from '../../../src/rpc/registration';

type Obj = Record<string, any>;

describe('EmbeddedModule: the EVM methods', () => {
  it('answers EVM definitions over the same devnet as the node RPC', async () => {
    const config = {
      home: '/nonexistent',
      rpc: { laddr: 'tcp://127.0.0.1:36657', timeout_broadcast_tx_commit: 1000 },
      jsonRpc: { 'allow-unprotected-txs': false, 'gas-cap': 25_000_000, 'evm-timeout': 5000 },
      gateway: {
        backend: { kind: 'embedded' },
        devnet: { chain_id: 'evmos_9002-1', moniker: 'm', block_time: 60_000, ephemeral: true, follow: '', mempool_size: 10, max_tx_bytes: 100_000, evm_chain_id: 0, block_gas_limit: 30_000_000, initial_base_fee: 1_000_000_000 },
        cache: { max_bytes: 67_108_864 },
      },
    } as unknown as AppConfig;

    @Module({ imports: [GatewayConfigModule.forRoot(config), EmbeddedModule] })
    class TestAppModule {}

    const app = await NestFactory.createApplicationContext(TestAppModule, { logger: false });
    try {
      const node = app.get(DevnetNode);
      const evm = new Invoker(app.get<MethodBackend>(METHOD_BACKEND.evm), { config: app.get(GatewayConfigService) });
      // The chain id follows an Evmos-style genesis chain id.
      expect(await evm.invoke(eth_chainId, {})).toBe('0x232a');
      const status = (await node.info.status()) as Obj;
      expect(BigInt(await evm.invoke(eth_blockNumber, {}))).toBe(BigInt(status.sync_info.latest_block_height));
      const block = (await evm.invoke(eth_getBlockByNumber, { block: { kind: 'tag', tag: 'latest' }, fullTransactions: false }))!;
      expect(block.hash).toBe('0x' + status.sync_info.latest_block_hash.toLowerCase());
      // A new EVM genesis limits the block gas as the EVM block does.
      expect(((await node.blocks.consensusParams()) as Obj).consensus_params.block.max_gas).toBe('30000000');
      expect(block.gasLimit).toBe('0x1c9c380');
      expect(app.get<BackendServices>(BACKEND_SERVICES).devAccountKeys()).toHaveLength(10);
    } finally {
      await app.close();
    }
  });
});
