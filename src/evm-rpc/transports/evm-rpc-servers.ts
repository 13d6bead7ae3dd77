import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { GatewayConfigService } from '../../config/gateway-config.service';
import { EvmHttpTransport } from './http/evm-http.transport';
import { EvmWsTransport } from './ws/evm-ws.transport';

/**
 * Starts the EVM RPC's listeners with the application (when `[json-rpc] enable`) and stops them
 * before it shuts down; the bound URLs are readable once the application has bootstrapped.
 */
@Injectable()
export class EvmRpcServers implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('EvmRpc');
  private urls: { http?: string; ws?: string } = {};

  constructor(
    private readonly http: EvmHttpTransport,
    private readonly ws: EvmWsTransport,
    private readonly config: GatewayConfigService,
  ) {}

  /** `http://host:port` of the HTTP listener; undefined when not listening. */
  get httpUrl(): string | undefined {
    return this.urls.http;
  }

  /** `ws://host:port` of the WebSocket listener; undefined when not listening. */
  get wsUrl(): string | undefined {
    return this.urls.ws;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.jsonRpc.enable) return;
    this.urls = { http: await this.http.listen(), ws: await this.ws.listen() };
    this.logger.log(`EVM JSON-RPC on ${this.urls.http} and ${this.urls.ws}`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.urls = {};
    await Promise.all([this.http.close(), this.ws.close()]);
  }
}
