import { positionalParams } from '../../src/backends/params-form';
import { ForwardPath } from '../../src/backends/upstream/forward-path';
import type { UpstreamPool } from '../../src/backends/upstream/upstream-pool';
import type { GatewayConfigService } from '../../src/config/gateway-config.service';
import { UPSTREAM_DEFAULTS } from '../../src/config/upstream-config';
import { Invoker } from '../../src/rpc/invoker';

/** The `[json-rpc]` keys the EVM definitions' hooks read. */
export interface EvmLimits {
  readonly 'gas-cap': number;
  readonly 'evm-timeout': number;
  readonly 'block-range-cap': number;
  readonly 'logs-cap': number;
}

const LIMITS: EvmLimits = { 'gas-cap': 25_000_000, 'evm-timeout': 0, 'block-range-cap': 10_000, 'logs-cap': 10_000 };

/** The Invoker an upstream-mode gateway runs EVM calls with, over `pool` (its settings and `limits` as the config). */
export function upstreamEvmInvoker(pool: UpstreamPool, limits: Partial<EvmLimits> = {}): Invoker {
  const config = {
    jsonRpc: { ...LIMITS, ...limits, 'feehistory-cap': 100 },
    gateway: { upstream: { settings: { ...UPSTREAM_DEFAULTS, ...pool.settings } } },
  } as unknown as GatewayConfigService;
  return new Invoker(new ForwardPath(pool, positionalParams, { config }), { config });
}
