import { Module } from '@nestjs/common';
import { engineProvider, RPC_ENGINE } from '../../rpc/registration';
import { EvmDialect } from '../evm-dialect';
import { NotificationsNotSupportedError } from '../evm-errors';
import { evmNamespaceServed } from './rpc-modules';

/**
 * The EVM RPC's engine: go-ethereum's dialect, and the guard policy and batch limits of `[json-rpc]`
 * (a namespace not listed in `api` does not exist for clients; `rpc` always does).
 */
@Module({
  providers: [
    engineProvider('evm', (config) => ({
      dialect: new EvmDialect(),
      policy: {
        groupEnabled: (group) => evmNamespaceServed(group, config.jsonRpc.api),
        websocketOnlyRefusal: () => new NotificationsNotSupportedError(),
        groupOfName: (method) => (method.includes('_') ? method.slice(0, method.indexOf('_')) : undefined),
      },
      limits: () => ({
        requests: { max: config.jsonRpc['batch-request-limit'], key: 'batch-request-limit' },
        responseBytes: { max: config.jsonRpc['batch-response-max-size'], key: 'batch-response-max-size' },
        timeout: { max: config.jsonRpc['http-timeout'], key: 'http-timeout' },
      }),
    })),
  ],
  exports: [RPC_ENGINE.evm],
})
export class EvmRpcCoreModule {}
