import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import type { AppConfig } from './config.types';
import { GatewayConfigService } from './gateway-config.service';

/** Makes an already loaded AppConfig (see loadConfig) available app-wide as GatewayConfigService. */
@Module({})
export class GatewayConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: GatewayConfigModule,
      global: true,
      imports: [
        // skipProcessEnv: the config is resolved; ConfigService must not fall back to process.env.
        ConfigModule.forRoot({ ignoreEnvFile: true, skipProcessEnv: true, load: [() => config], isGlobal: true }),
      ],
      providers: [GatewayConfigService],
      exports: [GatewayConfigService],
    };
  }
}
