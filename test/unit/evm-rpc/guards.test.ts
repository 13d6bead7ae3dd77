/** The EVM guards apply alike to single calls, batch members and WebSocket messages. */
import { Logger } from '@nestjs/common';
import type { GatewayConfigService } from '../../../src/config/gateway-config.service';
import type { JsonRpcConfig } from '../../../src/config/config.types';
import { EvmParamDecoder } from '../../../src/evm-rpc/codec/evm-param-decoder';
import { EvmDispatcher } from '../../../src/evm-rpc/core/evm-dispatcher';
import { EvmErrorDialect } from '../../../src/evm-rpc/core/evm-error-dialect';
import { rpcModulesMethod } from '../../../src/evm-rpc/core/rpc-modules';
import { JsonRpcMessageHandler, type BodyOrigin } from '../../../src/evm-rpc/envelope/message-handler';
import { NamespaceGuard } from '../../../src/evm-rpc/guards/namespace.guard';
import { NotImplementedGuard } from '../../../src/evm-rpc/guards/not-implemented.guard';
import { WebsocketOnlyGuard } from '../../../src/evm-rpc/guards/websocket-only.guard';
import type { RpcConnection } from '../../../src/rpc/call-context';
import { MethodRegistry } from '../../../src/rpc/method-registry';

Logger.overrideLogger(false);

const jsonRpc = { api: ['eth', 'web3'] } as unknown as JsonRpcConfig;
const config = { jsonRpc } as GatewayConfigService;
const registry = new MethodRegistry();
const method = (name: string, group: string, websocketOnly = false) => ({ name, group, params: [], websocketOnly, handler: () => name });
registry.registerAll([
  method('eth_chainId', 'eth'),
  method('web3_clientVersion', 'web3'),
  method('debug_memStats', 'debug'),
  method('admin_peers', 'admin'),
  method('eth_fillTransaction', 'eth'),
  method('trace_block', 'trace'),
  method('eth_subscribe', 'eth', true),
  method('eth_unsubscribe', 'eth', true),
  rpcModulesMethod(registry, () => jsonRpc),
]);
const guards = [new NamespaceGuard(config), new NotImplementedGuard(), new WebsocketOnlyGuard()];
const handler = new JsonRpcMessageHandler(new EvmDispatcher(registry, new EvmParamDecoder(), guards, new EvmErrorDialect()), () => ({ requests: 0, responseBytes: 0 }));

const connection: RpcConnection = { id: 'ws', send: () => undefined, onClose: () => undefined };
const http: BodyOrigin = { transport: 'jsonrpc', remote: 'r' };
const ws: BodyOrigin = { transport: 'ws', remote: 'r', connection };

const single = async (name: string, origin: BodyOrigin) => JSON.parse((await handler.handle(JSON.stringify({ id: 1, method: name }), origin))!);
const inBatch = async (name: string, origin: BodyOrigin) =>
  JSON.parse((await handler.handle(JSON.stringify([{ id: 0, method: 'eth_chainId' }, { id: 1, method: name }]), origin))!)[1];
const notAvailable = (name: string) => ({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: `the method ${name} does not exist/is not available` } });

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
  it.each(['eth_fillTransaction', 'trace_block'])('%s, not implemented, does not exist', async (name) => {
    expect(await send(name, origin)).toEqual(notAvailable(name));
  });
  it('rpc_modules lists the enabled namespaces that have methods, and rpc', async () => {
    expect((await send('rpc_modules', origin)).result).toEqual({ eth: '1.0', web3: '1.0', rpc: '1.0' });
  });
});

describe('subscriptions need a WebSocket', () => {
  it('eth_subscribe over HTTP: notifications not supported', async () => {
    expect((await single('eth_subscribe', http)).error).toEqual({ code: -32000, message: 'notifications not supported' });
    expect((await inBatch('eth_subscribe', http)).error).toEqual({ code: -32000, message: 'notifications not supported' });
  });
  it('eth_unsubscribe over HTTP: subscription not found', async () => {
    expect((await single('eth_unsubscribe', http)).error).toEqual({ code: -32000, message: 'subscription not found' });
  });
  it('both run over WebSocket', async () => {
    expect((await single('eth_subscribe', ws)).result).toBe('eth_subscribe');
    expect((await inBatch('eth_unsubscribe', ws)).result).toBe('eth_unsubscribe');
  });
});
