/**
 * class-validator schema of each config table, mirroring config.types.ts. The loader fills an instance
 * with values already read as their kind (durations in ms, lists as arrays) and validates it.
 */
import type { BackendKind, GatewayOwnConfig, InstrumentationConfig, JsonRpcConfig, RpcConfig } from './config.types';
import { IsCidrList, IsDurationAtLeast, IsFlag, IsHostPort, IsIntAtLeast, IsIntAtLeastKey, IsListenAddressList, IsMatching, IsNamespaceList, IsNonEmptyText, IsNumberAtLeast, IsNumberBetween, IsOneOf, IsTextList, IsUrlOrEmpty } from './config-validators';

/** The EVM namespaces the gateway serves itself; plugins may register more. */
export const EVM_NAMESPACES = ['eth', 'web3', 'net', 'txpool', 'debug', 'personal', 'admin', 'miner'] as const;

type Gateway<T extends keyof GatewayOwnConfig> = GatewayOwnConfig[T];

export const BACKEND_KINDS: readonly BackendKind[] = ['embedded', 'upstream'];

export const LOG_LEVELS: readonly GatewayOwnConfig['log']['level'][] = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
];

export const LOG_FORMATS: readonly GatewayOwnConfig['log']['format'][] = ['auto', 'plain', 'json'];

export class RpcConfigSchema implements RpcConfig {
  @IsListenAddressList() laddr!: string;
  @IsTextList() cors_allowed_origins!: string[];
  @IsTextList() cors_allowed_methods!: string[];
  @IsTextList() cors_allowed_headers!: string[];
  @IsFlag() unsafe!: boolean;
  @IsIntAtLeast(0) max_open_connections!: number;
  @IsIntAtLeast(0) max_subscription_clients!: number;
  @IsIntAtLeast(0) max_subscriptions_per_client!: number;
  @IsIntAtLeast(100) experimental_subscription_buffer_size!: number;
  @IsIntAtLeastKey('experimental_subscription_buffer_size') experimental_websocket_write_buffer_size!: number;
  @IsFlag() experimental_close_on_slow_client!: boolean;
  @IsDurationAtLeast(0) timeout_broadcast_tx_commit!: number;
  @IsIntAtLeast(0) max_request_batch_size!: number;
  @IsIntAtLeast(0) max_body_bytes!: number;
  @IsIntAtLeast(0) max_header_bytes!: number;
}

const OTLP_PROTOCOLS: readonly InstrumentationConfig['otlp_protocol'][] = ['http/protobuf', 'http/json', 'grpc'];

export class InstrumentationConfigSchema implements InstrumentationConfig {
  @IsFlag() prometheus!: boolean;
  @IsHostPort() prometheus_listen_addr!: string;
  @IsIntAtLeast(0) max_open_connections!: number;
  @IsMatching(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a metric name prefix [A-Za-z_][A-Za-z0-9_]*') namespace!: string;
  @IsUrlOrEmpty(['http', 'https']) otlp_traces_endpoint!: string;
  @IsOneOf(OTLP_PROTOCOLS) otlp_protocol!: InstrumentationConfig['otlp_protocol'];
  @IsNumberBetween(0, 1) trace_sample_ratio!: number;
  @IsNonEmptyText() trace_service_name!: string;
}

/** Where the loader puts the plugin namespaces that `api` may name besides EVM_NAMESPACES. */
export const EXTRA_NAMESPACES = Symbol('extraNamespaces');

export class JsonRpcConfigSchema implements JsonRpcConfig {
  [EXTRA_NAMESPACES]: readonly string[] = [];

  @IsFlag() enable!: boolean;
  @IsHostPort() address!: string;
  @IsHostPort() 'ws-address'!: string;
  @IsNamespaceList((o) => [...EVM_NAMESPACES, ...(o as JsonRpcConfigSchema)[EXTRA_NAMESPACES]]) api!: string[];
  @IsIntAtLeast(0) 'gas-cap'!: number;
  @IsDurationAtLeast(0) 'evm-timeout'!: number;
  @IsNumberAtLeast(0) 'txfee-cap'!: number;
  @IsIntAtLeast(0) 'filter-cap'!: number;
  @IsIntAtLeast(1) 'feehistory-cap'!: number;
  @IsIntAtLeast(0) 'logs-cap'!: number;
  @IsIntAtLeast(0) 'block-range-cap'!: number;
  @IsDurationAtLeast(0) 'http-timeout'!: number;
  @IsDurationAtLeast(0) 'http-idle-timeout'!: number;
  @IsFlag() 'allow-unprotected-txs'!: boolean;
  @IsIntAtLeast(0) 'max-open-connections'!: number;
  @IsIntAtLeast(0) 'batch-request-limit'!: number;
  @IsIntAtLeast(0) 'batch-response-max-size'!: number;
  @IsTextList() 'ws-origins'!: string[];
  @IsFlag() 'enable-indexer'!: boolean;
  @IsFlag() 'enable-profiling'!: boolean;
  @IsIntAtLeast(1) 'profile-max-size'!: number;
  @IsIntAtLeast(1) 'profile-dir-max-size'!: number;
  @IsIntAtLeast(0) 'trace-response-max-size'!: number;
}

export class BackendConfigSchema implements Gateway<'backend'> {
  @IsOneOf(BACKEND_KINDS) kind!: BackendKind;
}

export class DevnetConfigSchema implements Gateway<'devnet'> {
  // CometBFT caps chain IDs at 50 characters.
  @IsNonEmptyText(50) chain_id!: string;
  @IsNonEmptyText() moniker!: string;
  @IsDurationAtLeast(1) block_time!: number;
  @IsFlag() ephemeral!: boolean;
  @IsUrlOrEmpty(['http', 'https']) follow!: string;
  @IsIntAtLeast(1) mempool_size!: number;
  @IsIntAtLeast(1) max_tx_bytes!: number;
  @IsIntAtLeast(0) evm_chain_id!: number;
  @IsIntAtLeast(21_000) block_gas_limit!: number;
  @IsIntAtLeast(0) initial_base_fee!: number;
}

export class QueueConfigSchema implements Gateway<'queue'> {
  @IsUrlOrEmpty(['redis', 'rediss']) redis_url!: string;
  @IsMatching(/^[^\s{}]+$/, 'a key prefix without spaces or braces') redis_key_prefix!: string;
  @IsFlag() workers!: boolean;
  @IsIntAtLeast(1) concurrency!: number;
  @IsIntAtLeast(0) rate_limit!: number;
  @IsIntAtLeast(1) max_attempts!: number;
  @IsDurationAtLeast(1) retry_backoff!: number;
  @IsDurationAtLeast(1) max_retry_backoff!: number;
  @IsDurationAtLeast(1) check_timeout!: number;
}

export class CacheConfigSchema implements Gateway<'cache'> {
  @IsIntAtLeast(0) max_bytes!: number;
  @IsUrlOrEmpty(['redis', 'rediss']) redis_url!: string;
  @IsDurationAtLeast(0) redis_ttl!: number;
  @IsDurationAtLeast(1) redis_timeout!: number;
  @IsMatching(/^\S*$/, 'a key prefix without spaces') redis_key_prefix!: string;
}

export class FiltersConfigSchema implements Gateway<'filters'> {
  @IsFlag() shared!: boolean;
  @IsUrlOrEmpty(['redis', 'rediss']) redis_url!: string;
  @IsMatching(/^\S*$/, 'a key prefix without spaces') redis_key_prefix!: string;
  @IsIntAtLeast(100) pending_max!: number;
}

export class PluginsConfigSchema implements Omit<Gateway<'plugins'>, 'tables'> {
  @IsTextList() load!: string[];
  @IsTextList() node_api!: string[];
  @IsDurationAtLeast(0) blocking_quarantine!: number;
}

export class LogConfigSchema implements Gateway<'log'> {
  @IsOneOf(LOG_LEVELS) level!: GatewayOwnConfig['log']['level'];
  @IsOneOf(LOG_FORMATS) format!: GatewayOwnConfig['log']['format'];
}

export class AccessConfigSchema implements Omit<Gateway<'access'>, 'rate'> {
  @IsMatching(/^.*$/, 'a path (relative to the home) or ""') keys_file!: string;
  @IsFlag() keys_redis!: boolean;
  @IsDurationAtLeast(0) keys_cache_ttl!: number;
  @IsUrlOrEmpty(['redis', 'rediss']) redis_url!: string;
  @IsMatching(/^\S*$/, 'a key prefix without spaces') redis_key_prefix!: string;
  @IsCidrList() trusted_proxies!: string[];
  @IsCidrList() exempt_cidrs!: string[];
}

export class LimitsConfigSchema implements Gateway<'limits'> {
  @IsIntAtLeast(0) max_query_length!: number;
  @IsIntAtLeast(0) max_query_conditions!: number;
  @IsIntAtLeast(0) max_ws_connections_per_ip!: number;
  @IsIntAtLeast(0) max_subscriptions_per_ip!: number;
  @IsIntAtLeast(0) max_filters_per_ip!: number;
  @IsIntAtLeast(0) max_evm_subscriptions_per_connection!: number;
  @IsIntAtLeast(0) max_unfinished_bytes_per_ip!: number;
  @IsIntAtLeast(0) max_unfinished_bytes!: number;
  @IsDurationAtLeast(0) rpc_header_timeout!: number;
  @IsDurationAtLeast(0) rpc_read_timeout!: number;
  @IsDurationAtLeast(0) rpc_idle_timeout!: number;
  @IsDurationAtLeast(0) rpc_write_timeout!: number;
}

export class CompressionConfigSchema implements Gateway<'compression'> {
  @IsFlag() http!: boolean;
  @IsIntAtLeast(0) min_bytes!: number;
  @IsFlag() ws_permessage_deflate!: boolean;
}
