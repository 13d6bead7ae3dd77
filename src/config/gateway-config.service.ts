import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig, GatewayOwnConfig, InstrumentationConfig, JsonRpcConfig, RpcConfig, TlsConfig } from './config.types';

/**
 * Typed access to the resolved configuration, for any provider of the app. The configuration does not
 * change once loaded: each part is read from Nest's ConfigService once (its `get` walks the validated
 * environment and process.env before the loaded values, which calls on the request path would pay).
 */
@Injectable()
export class GatewayConfigService {
  /** Absolute home directory. */
  readonly home: string;
  /** `[rpc]` of config.toml. */
  readonly rpc: RpcConfig;
  /** `[instrumentation]` of config.toml. */
  readonly instrumentation: InstrumentationConfig;
  /** `[json-rpc]` of app.toml. */
  readonly jsonRpc: JsonRpcConfig;
  /** `[tls]` of app.toml. */
  readonly tls: TlsConfig;
  /** gateway.toml. */
  readonly gateway: GatewayOwnConfig;

  constructor(config: ConfigService<AppConfig, true>) {
    this.home = config.get('home', { infer: true });
    this.rpc = config.get('rpc', { infer: true });
    this.instrumentation = config.get('instrumentation', { infer: true });
    this.jsonRpc = config.get('jsonRpc', { infer: true });
    this.tls = config.get('tls', { infer: true });
    this.gateway = config.get('gateway', { infer: true });
  }

  /** The whole resolved configuration. */
  get all(): AppConfig {
    return { home: this.home, rpc: this.rpc, instrumentation: this.instrumentation, jsonRpc: this.jsonRpc, tls: this.tls, gateway: this.gateway };
  }
}
