import 'reflect-metadata';
import { Global, Module, type INestApplicationContext, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { BACKEND_SERVICES } from '../../src/backends/backend-services';
import { uncachedDevnetMethods } from '../support/devnet-methods';
import { GatewayConfigModule } from '../../src/config/config.module';
import { GatewayConfigService } from '../../src/config/gateway-config.service';
import { loadConfig } from '../../src/config/load-config';
import { EventBus } from '../../src/events';
import { EventsModule } from '../../src/events/events.module';
import { EvmRpcModule } from '../../src/evm-rpc/evm-rpc.module';
import { openedNamespaces } from '../../src/access/opened-namespaces';
import { Listeners } from '../../src/rpc/listeners';
import { INVOKER, invokerProvider, METHOD_BACKEND } from '../../src/rpc/registration';
import { RpcCoreModule } from '../../src/rpc/rpc-core.module';
import { FakeEvmChain } from './evm-surface-backend';

export interface EvmTestApp {
  readonly app: INestApplicationContext;
  readonly chain: FakeEvmChain;
  readonly bus: EventBus;
  readonly httpUrl: string;
  readonly wsUrl: string;
  close(): Promise<void>;
}

/**
 * The fake chain as the backend of the EVM interface, global as BackendsModule is: its answers as the
 * EVM MethodBackend, its BACKEND_SERVICES, the EVM Invoker over them, and the chain itself (under its
 * class) for the tests to mine and inspect.
 */
export function fakeEvmBackendModule(): Type {
  @Global()
  @Module({
    imports: [EventsModule],
    providers: [
      { provide: FakeEvmChain, inject: [EventBus], useFactory: (bus: EventBus) => new FakeEvmChain(bus) },
      {
        provide: METHOD_BACKEND.evm,
        inject: [FakeEvmChain, GatewayConfigService],
        useFactory: (chain: FakeEvmChain, config: GatewayConfigService) => uncachedDevnetMethods(chain.handlers(config)),
      },
      { provide: BACKEND_SERVICES, inject: [FakeEvmChain], useFactory: (chain: FakeEvmChain) => chain.services() },
      invokerProvider('evm'),
    ],
    exports: [FakeEvmChain, METHOD_BACKEND.evm, BACKEND_SERVICES, INVOKER.evm],
  })
  class FakeBackendModule {}
  return FakeBackendModule;
}

/** Boots EvmRpcModule alone on ephemeral ports over the fake chain; `flags` use the CLI's dotted names. */
export async function startEvmApp(flags: Record<string, string> = {}): Promise<EvmTestApp> {
  const home = mkdtempSync(join(tmpdir(), 'rpcgw-evm-'));
  const config = loadConfig({
    home,
    env: {},
    flags: { 'json-rpc.address': '127.0.0.1:0', 'json-rpc.ws-address': '127.0.0.1:0', ...flags },
  });

  @Module({ imports: [GatewayConfigModule.forRoot(config), RpcCoreModule, EventsModule, fakeEvmBackendModule(), EvmRpcModule.forRoot(openedNamespaces(config, null))] })
  class TestAppModule {}

  const app = await NestFactory.createApplicationContext(TestAppModule, { logger: false });
  const listeners = app.get(Listeners);
  await listeners.start();
  return {
    app,
    chain: app.get(FakeEvmChain),
    bus: app.get(EventBus),
    httpUrl: listeners.urls('evm', 'http')[0],
    wsUrl: listeners.urls('evm', 'ws')[0],
    async close() {
      await listeners.close(0);
      await app.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export interface RawAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

export async function postRaw(url: string, body: string, headers: Record<string, string> = { 'Content-Type': 'application/json' }): Promise<RawAnswer> {
  const res = await fetch(url, { method: 'POST', headers, body });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** A JSON-RPC call over HTTP; returns the whole response object. */
export async function rpc(url: string, method: string, params: unknown[] = []): Promise<any> {
  const res = await postRaw(url, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
  return JSON.parse(res.text);
}

/** A raw WebSocket JSON-RPC client: sends text, collects every frame. */
export class EvmWsClient {
  readonly frames: any[] = [];
  private nextId = 1000;
  private waiters: Array<() => void> = [];

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.frames.push(JSON.parse(data.toString()));
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<EvmWsClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { headers });
      socket.once('open', () => resolve(new EvmWsClient(socket)));
      socket.once('error', reject);
      socket.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The first frame (already received or to come) that satisfies `pred`, removed from the list. */
  async next(pred: (frame: any) => boolean, timeoutMs = 5000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.frames.findIndex(pred);
      if (i >= 0) return this.frames.splice(i, 1)[0];
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no matching WebSocket frame');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** A call with a fresh numeric id; resolves with the whole response. */
  call(method: string, params: unknown[] = []): Promise<any> {
    const id = this.nextId++;
    this.send({ jsonrpc: '2.0', id, method, params });
    return this.next((f) => f.id === id);
  }

  notification(subscription: string): Promise<any> {
    return this.next((f) => f.method === 'eth_subscription' && f.params.subscription === subscription);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.readyState === WebSocket.CLOSED) return resolve();
      this.socket.once('close', () => resolve());
      this.socket.close();
    });
  }
}
