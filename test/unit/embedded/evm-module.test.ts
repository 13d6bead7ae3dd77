import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { GatewayConfigModule } from '../../../src/config/config.module';
import type { AppConfig } from '../../../src/config/config.types';
import { EVM_BACKEND, type EvmBackend } from '../../../src/backends/evm-backend';
import { NODE_BACKEND, type NodeBackend } from '../../../src/backends/node-backend';
import { EmbeddedModule } from '../../../src/backends/embedded/embedded.module';

type Obj = Record<string, any>;

describe('EmbeddedModule: the EVM backend', () => {
  it('provides EVM_BACKEND over the same devnet as NODE_BACKEND', async () => {
    const config = {
      home: '/nonexistent',
      rpc: { laddr: 'tcp://127.0.0.1:36657', timeout_broadcast_tx_commit: 1000 },
      jsonRpc: { 'allow-unprotected-txs': false },
      gateway: {
        backend: { kind: 'embedded' },
        devnet: { chain_id: 'evmos_9002-1', moniker: 'm', block_time: 60_000, ephemeral: true, follow: '', mempool_size: 10, max_tx_bytes: 100_000, evm_chain_id: 0, block_gas_limit: 30_000_000, initial_base_fee: 1_000_000_000 },
      },
    } as unknown as AppConfig;

    @Module({ imports: [GatewayConfigModule.forRoot(config), EmbeddedModule] })
    class TestAppModule {}

    const app = await NestFactory.createApplicationContext(TestAppModule, { logger: false });
    try {
      const node = app.get<NodeBackend>(NODE_BACKEND);
      const evm = app.get<EvmBackend>(EVM_BACKEND);
      // The chain id follows an Evmos-style genesis chain id.
      expect(await evm.chainId()).toBe(9002n);
      const status = (await node.status()) as Obj;
      expect(await evm.blockNumber()).toBe(BigInt(status.sync_info.latest_block_height));
      const block = (await evm.getBlockByNumber({ kind: 'tag', tag: 'latest' }, false))!;
      expect(block.hash).toBe('0x' + status.sync_info.latest_block_hash.toLowerCase());
      // A new EVM genesis limits the block gas as the EVM block does.
      expect(((await node.consensusParams()) as Obj).consensus_params.block.max_gas).toBe('30000000');
      expect(block.gasLimit).toBe('0x1c9c380');
      expect(await evm.devAccountKeys()).toHaveLength(10);
    } finally {
      await app.close();
    }
  });
});
