import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { GatewayConfigModule } from '../../../src/config/config.module';
import type { AppConfig } from '../../../src/config/config.types';
import { DevnetNode } from '../../../src/backends/embedded/devnet-node';
import { EmbeddedModule } from '../../../src/backends/embedded/embedded.module';

type Obj = Record<string, any>;

describe('EmbeddedModule', () => {
  it('opens the devnet, produces blocks from bootstrap and stops on shutdown', async () => {
    const config = {
      home: '/nonexistent',
      rpc: { laddr: 'tcp://127.0.0.1:36657', timeout_broadcast_tx_commit: 1000 },
      gateway: {
        backend: { kind: 'embedded' },
        devnet: { chain_id: 'module-test', moniker: 'm', block_time: 40, ephemeral: true, follow: '', mempool_size: 10, max_tx_bytes: 1000, evm_chain_id: 0, block_gas_limit: 30_000_000, initial_base_fee: 1_000_000_000 },
        cache: { max_bytes: 67_108_864 },
      },
    } as unknown as AppConfig;

    @Module({ imports: [GatewayConfigModule.forRoot(config), EmbeddedModule] })
    class TestAppModule {}

    const app = await NestFactory.createApplicationContext(TestAppModule, { logger: false });
    const backend = app.get(DevnetNode);
    const status = (await backend.info.status()) as Obj;
    expect(status.node_info).toMatchObject({ network: 'module-test', other: { rpc_address: 'tcp://127.0.0.1:36657' } });
    expect(BigInt(status.sync_info.latest_block_height)).toBeGreaterThanOrEqual(1n);
    // Blocks keep coming (however slowly a busy machine runs the 40 ms timer).
    const height = async () => BigInt(((await backend.info.status()) as Obj).sync_info.latest_block_height);
    for (let tries = 0; tries < 200 && (await height()) < 3n; tries++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await height()).toBeGreaterThanOrEqual(3n);
    await app.close();
    await expect(backend.blocks.block(1n)).rejects.toThrow();
  });
});
