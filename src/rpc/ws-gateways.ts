import { ApplicationConfig, type ModuleRef, type NestContainer } from '@nestjs/core';
import { NoopGraphInspector } from '@nestjs/core/internal';
import { SocketModule } from '@nestjs/websockets/socket-module';
import { RpcWsAdapter } from './ws-adapter';

/**
 * The app's `@WebSocketGateway`s, connected by Nest's own SocketModule on RpcWsAdapter, as
 * NestApplication.init connects them. The gateway is an application context (its listeners are bare
 * node:http servers, see Listeners), which does not run that step itself: this does, over the app's
 * container, before the listeners start.
 */
export class WsGateways {
  private sockets: SocketModule | undefined;

  constructor(private readonly moduleRef: ModuleRef) {}

  async connect(): Promise<void> {
    if (this.sockets) return;
    // ModuleRef holds the app's container (protected in its type): the one SocketModule.register reads.
    const container = (this.moduleRef as unknown as { readonly container: NestContainer }).container;
    const config = container.applicationConfig ?? new ApplicationConfig();
    config.setIoAdapter(new RpcWsAdapter());
    this.sockets = new SocketModule();
    await this.sockets.register(container, config, NoopGraphInspector, {});
  }

  /** Closes the gateways' servers (their sockets are closed before, with 1001, by Listeners). */
  async close(): Promise<void> {
    const sockets = this.sockets;
    this.sockets = undefined;
    await sockets?.close();
  }
}
