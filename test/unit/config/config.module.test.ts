import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import { GatewayConfigModule } from '../../../src/config/config.module';
import { GatewayConfigService } from '../../../src/config/gateway-config.service';
import { loadConfig } from '../../../src/config/load-config';
import { tempHome } from './temp-home';

@Injectable()
class NeedsConfig {
  constructor(readonly config: GatewayConfigService) {}
}

// A feature module that does not import GatewayConfigModule: the service reaches it as a global.
@Module({ providers: [NeedsConfig] })
class FeatureModule {}

describe('GatewayConfigModule', () => {
  it('provides the loaded config, typed, to every module', async () => {
    const config = loadConfig({ home: tempHome(), flags: { 'rpc.unsafe': 'true', 'devnet.block_time': '250ms' } });

    @Module({ imports: [GatewayConfigModule.forRoot(config), FeatureModule] })
    class AppModule {}

    const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
    try {
      const service = app.get(NeedsConfig).config;
      expect(service.home).toBe(config.home);
      expect(service.rpc).toEqual(config.rpc);
      expect(service.rpc.unsafe).toBe(true);
      expect(service.instrumentation).toEqual(config.instrumentation);
      expect(service.jsonRpc).toEqual(config.jsonRpc);
      expect(service.gateway).toEqual(config.gateway);
      expect(service.gateway.devnet.block_time).toBe(250);
      // @nestjs/config's own service holds the same values.
      expect(app.get(ConfigService).get('jsonRpc.address')).toBe('127.0.0.1:8545');
    } finally {
      await app.close();
    }
  });

  it('does not read process.env through ConfigService', async () => {
    const config = loadConfig({ home: tempHome() });
    process.env.RPCGW_PROBE_ONLY_IN_ENV = 'x';

    @Module({ imports: [GatewayConfigModule.forRoot(config)] })
    class AppModule {}

    const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
    try {
      expect(app.get(ConfigService).get('RPCGW_PROBE_ONLY_IN_ENV')).toBeUndefined();
    } finally {
      delete process.env.RPCGW_PROBE_ONLY_IN_ENV;
      await app.close();
    }
  });
});
