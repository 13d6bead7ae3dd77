import type { EvmBackend } from '../../src/backends/evm-backend';
import type { UpstreamPool } from '../../src/backends/upstream/upstream-pool';
import { UpstreamEvmBackend } from '../../src/backends/upstream/upstream-evm-backend';
import { DebugTraceMethods } from '../../src/evm-rpc/debug/trace.methods';
import { EthAccountMethods } from '../../src/evm-rpc/eth/account.methods';
import { EthBlockMethods } from '../../src/evm-rpc/eth/blocks.methods';
import { EthChainMethods } from '../../src/evm-rpc/eth/chain.methods';
import { EthStateMethods } from '../../src/evm-rpc/eth/state.methods';
import { FilterMethods } from '../../src/evm-rpc/filters/filter.methods';
import { netMethods } from '../../src/evm-rpc/net/net.methods';
import { txpoolMethods } from '../../src/evm-rpc/txpool/txpool.methods';
import { Web3Methods } from '../../src/evm-rpc/web3/web3.methods';
import { MethodRegistry } from '../../src/rpc/method-registry';

/**
 * The EVM definitions an upstream backend calls through, as the namespace modules register them (their
 * handlers, which never run here, get no config, keystore or filters).
 */
function registerEvmMethods(registry: MethodRegistry, backend: EvmBackend): void {
  const none = undefined as never;
  registry.registerAll([
    ...new EthChainMethods(backend, none, none).methods(),
    ...new EthStateMethods(backend, none).methods(),
    ...new EthBlockMethods(backend).methods(),
    ...new EthAccountMethods(backend, none, none, none).methods(),
    ...new FilterMethods(none, backend).methods(),
    ...netMethods(backend),
    ...new Web3Methods(backend).methods(),
    ...txpoolMethods(backend),
    ...new DebugTraceMethods(backend, none).methods(),
  ]);
}

/** An UpstreamEvmBackend over `pool` with the real EVM method definitions behind it. */
export function upstreamEvmBackend(pool: UpstreamPool): UpstreamEvmBackend {
  const registry = new MethodRegistry();
  const backend = new UpstreamEvmBackend(pool, registry);
  registerEvmMethods(registry, backend);
  return backend;
}
