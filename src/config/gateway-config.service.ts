import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig, GatewayOwnConfig, InstrumentationConfig, JsonRpcConfig, RpcConfig } from './config.types';

/** Typed access to the resolved configuration, for any provider of the app. */
@Injectable()
export class GatewayConfigService {
  constructor(private readonly config: ConfigService<AppConfig, true>) {}

  /** The whole resolved configuration. */
  get all(): AppConfig {
    return { home: this.home, rpc: this.rpc, instrumentation: this.instrumentation, jsonRpc: this.jsonRpc, gateway: this.gateway };
  }

  /** Absolute home directory. */
  get home(): string {
    return this.config.get('home', { infer: true });
  }

  /** `[rpc]` of config.toml. */
  get rpc(): RpcConfig {
    return this.config.get('rpc', { infer: true });
  }

  /** `[instrumentation]` of config.toml. */
  get instrumentation(): InstrumentationConfig {
    return this.config.get('instrumentation', { infer: true });
  }

  /** `[json-rpc]` of app.toml. */
  get jsonRpc(): JsonRpcConfig {
    return this.config.get('jsonRpc', { infer: true });
  }

  /** gateway.toml. */
  get gateway(): GatewayOwnConfig {
    return this.config.get('gateway', { infer: true });
  }
}
