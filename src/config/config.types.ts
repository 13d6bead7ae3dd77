import type { UpstreamConfig } from './upstream-config';

/**
 * The gateway's resolved configuration. Keys keep the names they have in the node's own files
 * (config.toml `[rpc]`, app.toml `[json-rpc]`) so operators can reuse what they have; durations are
 * resolved to milliseconds.
 */

/** `[rpc]` of `$HOME/config/config.toml` (CometBFT). */
export interface RpcConfig {
  /** Comma-separated `tcp://host:port` or `unix:///path` listen addresses. */
  laddr: string;
  cors_allowed_origins: string[];
  cors_allowed_methods: string[];
  cors_allowed_headers: string[];
  unsafe: boolean;
  /** HTTP + WebSocket connections together; 0 = unlimited. */
  max_open_connections: number;
  max_subscription_clients: number;
  max_subscriptions_per_client: number;
  experimental_subscription_buffer_size: number;
  experimental_websocket_write_buffer_size: number;
  experimental_close_on_slow_client: boolean;
  /** Milliseconds. */
  timeout_broadcast_tx_commit: number;
  /** 0 = unlimited. */
  max_request_batch_size: number;
  max_body_bytes: number;
  max_header_bytes: number;
}

/** `[instrumentation]` of config.toml. */
export interface InstrumentationConfig {
  prometheus: boolean;
  prometheus_listen_addr: string;
  max_open_connections: number;
  namespace: string;
}

/** `[json-rpc]` of `$HOME/config/app.toml` (Evmos). */
export interface JsonRpcConfig {
  enable: boolean;
  address: string;
  'ws-address': string;
  api: string[];
  /** Also read from `rpc-gas-cap`. 0 = no cap. */
  'gas-cap': number;
  /** Milliseconds; 0 = none. */
  'evm-timeout': number;
  /** In ether; 0 = no cap. */
  'txfee-cap': number;
  'filter-cap': number;
  'feehistory-cap': number;
  'logs-cap': number;
  'block-range-cap': number;
  /** Milliseconds. */
  'http-timeout': number;
  /** Milliseconds. */
  'http-idle-timeout': number;
  'allow-unprotected-txs': boolean;
  'max-open-connections': number;
  'batch-request-limit': number;
  'batch-response-max-size': number;
  'ws-origins': string[];
  'enable-indexer': boolean;
}

export type BackendKind = 'embedded' | 'upstream';

/** `gateway.toml`: what belongs to the gateway itself. */
export interface GatewayOwnConfig {
  backend: { kind: BackendKind };
  devnet: {
    chain_id: string;
    moniker: string;
    /** Milliseconds between blocks. */
    block_time: number;
    /** Keep everything in memory (nothing under `$HOME/data`). */
    ephemeral: boolean;
    /** Node RPC URL of a devnet to follow as a full node; empty = be the validator. */
    follow: string;
    mempool_size: number;
    max_tx_bytes: number;
    /** EIP-155 chain id; 0 = from an Evmos-style chain_id (`name_9000-1`), else 9000. */
    evm_chain_id: number;
    /** Gas limit of an EVM block (block.max_gas of a new genesis). */
    block_gas_limit: number;
    /** EIP-1559 base fee of the first block, in wei. */
    initial_base_fee: number;
  };
  queue: { redis_url: string };
  cache: {
    max_bytes: number;
    /** Redis shared by replicas for immutable answers; empty = memory only. */
    redis_url: string;
    /** Milliseconds an answer stays in Redis; 0 = until Redis evicts it. */
    redis_ttl: number;
    /** Longest wait, in milliseconds, for one Redis command before it counts as a miss. */
    redis_timeout: number;
    /** Start of every key; the pool (`node`, `evm`) and its chain follow. */
    redis_key_prefix: string;
  };
  plugins: {
    load: string[];
    /** Node RPC plugin categories that are served. */
    node_api: string[];
    /** `[plugins.<name>]`: each plugin's own table, as written (the plugin validates it). */
    tables: Record<string, Record<string, unknown>>;
  };
  log: {
    level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
    /** `plain`: readable lines (and the start-up banner); `json`: one JSON object a line; `auto`: plain on a terminal. */
    format: 'auto' | 'plain' | 'json';
  };
  /** `[upstream]` with its `[[upstream.node]]` and `[[upstream.evm]]` lists. */
  upstream: UpstreamConfig;
}

export interface AppConfig {
  /** Absolute home directory. */
  home: string;
  rpc: RpcConfig;
  instrumentation: InstrumentationConfig;
  jsonRpc: JsonRpcConfig;
  gateway: GatewayOwnConfig;
}
