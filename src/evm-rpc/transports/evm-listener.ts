import type { GatewayConfigService } from '../../config/gateway-config.service';
import { readTlsFiles } from '../../config/tls-files';
import type { Listener } from '../../rpc/listeners';

type EvmAddressKey = 'address' | 'ws-address';

/**
 * What the EVM RPC's HTTP and WebSocket listeners share: the address under its `[json-rpc]` key, the
 * `[tls]` files and `max-open-connections`; undefined while `[json-rpc] enable` is off.
 */
export function evmListenerBase(config: GatewayConfigService, key: EvmAddressKey): Pick<Listener, 'rpc' | 'address' | 'scheme' | 'setting' | 'tls' | 'maxConnections'> | undefined {
  const rpc = config.jsonRpc;
  if (!rpc.enable) return undefined;
  return {
    rpc: 'evm',
    address: rpc[key],
    scheme: key === 'address' ? 'http' : 'ws',
    setting: `config/app.toml: [json-rpc] ${key}`,
    tls: readTlsFiles(config.all, 'evm'),
    maxConnections: rpc['max-open-connections'],
  };
}
