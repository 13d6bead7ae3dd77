/** The EVM guards apply alike to single calls, batch members and WebSocket messages. */
import 'reflect-metadata';
import { Global, Logger, Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uncachedDevnetMethods } from '../../support/devnet-methods';
import { GatewayConfigModule } from '../../../src/config/config.module';
import { GatewayConfigService } from '../../../src/config/gateway-config.service';
import type { JsonRpcConfig, RpcConfig } from '../../../src/config/config.types';
import { loadConfig } from '../../../src/config/load-config';
import { EventBus } from '../../../src/events';
import { EventsModule } from '../../../src/events/events.module';
import { EvmRpcCoreModule } from '../../../src/evm-rpc/core/evm-rpc-core.module';
import { RpcModulesMethods } from '../../../src/evm-rpc/core/rpc-modules';
import { EvmRpcModule } from '../../../src/evm-rpc/evm-rpc.module';
import { openedNamespaces } from '../../../src/access/opened-namespaces';
import { ChainFeed } from '../../../src/evm-rpc/filters/chain-feed';
import { SubscriptionMethods } from '../../../src/evm-rpc/subscriptions/subscription.methods';
import type { RpcConnection } from '../../../src/rpc/call-context';
import type { Origin, RpcEngine } from '../../../src/rpc/engine';
import { Invoker } from '../../../src/rpc/invoker';
import { defineMethod } from '../../../src/rpc/method';
import { MethodRegistry } from '../../../src/rpc/method-registry';
import { INVOKER, METHOD_REGISTRY, RPC_ENGINE } from '../../../src/rpc/registration';
import { RpcCoreModule } from '../../../src/rpc/rpc-core.module';
import { fakeEvmBackendModule } from '../../e2e/evm-surface-app';
import { FakeEvmChain } from '../../e2e/evm-surface-backend';

Logger.overrideLogger(false);

const jsonRpc = { api: ['eth', 'web3'] } as unknown as JsonRpcConfig;
const config = { jsonRpc, rpc: { unsafe: false } as RpcConfig } as GatewayConfigService;
const registry = new MethodRegistry();
const bus = new EventBus();
const chain = new FakeEvmChain(bus);
const invoker = new Invoker(uncachedDevnetMethods(chain.handlers(config)), { config });
const method = (name: string, group: string) => defineMethod({ name, group, params: [], handler: () => name });
registry.registerAll([
  method('eth_chainId', 'eth'),
  method('web3_clientVersion', 'web3'),
  method('debug_memStats', 'debug'),
  method('admin_peers', 'admin'),
  ...new SubscriptionMethods(new ChainFeed(bus, invoker), invoker).methods(),
  ...new RpcModulesMethods(registry, config).methods(),
]);

/** The EVM engine as EvmRpcCoreModule builds it (its dialect and guard policy), over the methods above and the fake chain's Invoker. */
async function engineOver(methods: MethodRegistry): Promise<{ context: INestApplicationContext; engine: RpcEngine }> {
  @Global()
  @Module({
    providers: [
      { provide: GatewayConfigService, useValue: config },
      { provide: METHOD_REGISTRY.evm, useValue: methods },
      { provide: INVOKER.evm, useValue: invoker },
    ],
    exports: [GatewayConfigService, METHOD_REGISTRY.evm, INVOKER.evm],
  })
  class GivenModule {}

  @Module({ imports: [GivenModule, EvmRpcCoreModule] })
  class GuardTestModule {}

  const context = await NestFactory.createApplicationContext(GuardTestModule, { logger: false });
  return { context, engine: context.get<RpcEngine>(RPC_ENGINE.evm) };
}

/** The gateway's EVM interface as it boots with `[json-rpc] api = eth,web3` (only those namespaces' modules). */
async function gateway(): Promise<{ registry: MethodRegistry; engine: RpcEngine; close(): Promise<void> }> {
  const home = mkdtempSync(join(tmpdir(), 'rpcgw-guards-'));
  const appConfig = loadConfig({ home, env: {}, flags: { 'json-rpc.api': 'eth,web3' } });

  @Module({ imports: [GatewayConfigModule.forRoot(appConfig), RpcCoreModule, EventsModule, fakeEvmBackendModule(), EvmRpcModule.forRoot(openedNamespaces(appConfig, null))] })
  class GatewayModule {}

  const app = await NestFactory.createApplicationContext(GatewayModule, { logger: false });
  return {
    registry: app.get<MethodRegistry>(METHOD_REGISTRY.evm),
    engine: app.get<RpcEngine>(RPC_ENGINE.evm),
    async close() {
      await app.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

let context: INestApplicationContext;
let handler: RpcEngine;
let real: Awaited<ReturnType<typeof gateway>>;
beforeAll(async () => {
  ({ context, engine: handler } = await engineOver(registry));
  real = await gateway();
});
afterAll(async () => {
  await context.close();
  await real.close();
});

const connection: RpcConnection = { id: 'ws', send: () => undefined, onClose: () => undefined };
type BodyOrigin = Omit<Origin, 'bytes'>;
const http: BodyOrigin = { transport: 'jsonrpc', remote: 'r' };
const ws: BodyOrigin = { transport: 'ws', remote: 'r', connection };

/** The answer text of a body (the engine under test unless another is given). */
async function answer(body: unknown, origin: BodyOrigin, engine: RpcEngine | undefined): Promise<string> {
  const text = JSON.stringify(body);
  return (await (engine ?? handler).handle(text, { ...origin, bytes: Buffer.byteLength(text) })).body!;
}
const single = async (name: string, origin: BodyOrigin, params?: unknown[], engine?: RpcEngine) =>
  JSON.parse(await answer({ id: 1, method: name, params }, origin, engine));
const inBatch = async (name: string, origin: BodyOrigin, params?: unknown[], engine?: RpcEngine) =>
  JSON.parse(await answer([{ id: 0, method: 'eth_chainId' }, { id: 1, method: name, params }], origin, engine))[1];
const notAvailable = (name: string) => ({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: `the method ${name} does not exist/is not available` } });

/** What the gateway does not implement: not registered, so it answers as an unknown method. */
const NOT_IMPLEMENTED = ['eth_fillTransaction', 'trace_block', 'debug_getRawBlock', 'engine_newPayloadV1'];

describe.each([
  ['HTTP', http, single],
  ['an HTTP batch', http, inBatch],
  ['WebSocket', ws, single],
  ['a WebSocket batch', ws, inBatch],
])('over %s', (_name, origin, send) => {
  it('an enabled namespace is served', async () => {
    expect((await send('web3_clientVersion', origin)).result).toBe('web3_clientVersion');
  });
  it.each(['debug_memStats', 'admin_peers'])('%s of a disabled namespace does not exist', async (name) => {
    expect(await send(name, origin)).toEqual(notAvailable(name));
  });
  it.each(NOT_IMPLEMENTED)('%s, not implemented, does not exist', async (name) => {
    expect(await send(name, origin, undefined, real.engine)).toEqual(notAvailable(name));
  });
  it('rpc_modules lists the enabled namespaces that have methods, and rpc', async () => {
    expect((await send('rpc_modules', origin)).result).toEqual({ eth: '1.0', web3: '1.0', rpc: '1.0' });
  });
});

it('the gateway registers none of the methods it does not implement', () => {
  const names = real.registry.list().map((m) => m.name);
  expect(names).toContain('eth_chainId');
  expect(names.filter((name) => name === 'eth_fillTransaction' || /^(trace_|engine_|debug_getRaw)/.test(name))).toEqual([]);
  for (const name of NOT_IMPLEMENTED) expect(real.registry.has(name)).toBe(false);
});

describe('subscriptions need a WebSocket', () => {
  it('eth_subscribe over HTTP: notifications not supported', async () => {
    expect((await single('eth_subscribe', http)).error).toEqual({ code: -32000, message: 'notifications not supported' });
    expect((await inBatch('eth_subscribe', http)).error).toEqual({ code: -32000, message: 'notifications not supported' });
  });
  it('eth_unsubscribe over HTTP: subscription not found', async () => {
    expect((await single('eth_unsubscribe', http, ['0x1'])).error).toEqual({ code: -32000, message: 'subscription not found' });
  });
  it('both run over WebSocket', async () => {
    const id = (await single('eth_subscribe', ws, ['newHeads'])).result;
    expect(id).toMatch(/^0x[0-9a-f]+$/);
    expect((await inBatch('eth_unsubscribe', ws, [id])).result).toBe(true);
  });
});
