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
  /** PEM certificate of HTTPS and WSS, relative to `$HOME/config` (as CometBFT reads it); "" with the key = plain HTTP. */
  tls_cert_file: string;
  tls_key_file: string;
}

/** `[tls]` of app.toml (Evmos, cosmos/evm): HTTPS and WSS of the EVM JSON-RPC; paths relative to `$HOME/config`. */
export interface TlsConfig {
  'certificate-path': string;
  'key-path': string;
}

/** `[instrumentation]` of config.toml. */
export interface InstrumentationConfig {
  prometheus: boolean;
  prometheus_listen_addr: string;
  max_open_connections: number;
  namespace: string;
  /** '' = tracing off unless the standard OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set. */
  otlp_traces_endpoint: string;
  otlp_protocol: 'http/protobuf' | 'http/json' | 'grpc';
  /** 0..1. */
  trace_sample_ratio: number;
  trace_service_name: string;
}

/** `[json-rpc]` of `$HOME/config/app.toml` (Evmos). */
export interface JsonRpcConfig {
  enable: boolean;
  address: string;
  'ws-address': string;
  api: string[];
  /** Also read from `rpc-gas-cap`. 0 = no cap. */
  'gas-cap': number;
  /** false: node-held keys never sign or list over the RPC (Evmos's check). */
  'allow-insecure-unlock': boolean;
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
  /** Bytes of an HTTP request body (cosmos/evm). */
  'http-body-limit': number;
  'allow-unprotected-txs': boolean;
  'max-open-connections': number;
  'batch-request-limit': number;
  'batch-response-max-size': number;
  'ws-origins': string[];
  /** Milliseconds an unpolled filter lives (cosmos/evm; Evmos: 5 minutes). */
  'filter-timeout': number;
  /** Milliseconds between two sweeps of expired filters (cosmos/evm). */
  'filter-cleanup-interval': number;
  /** cosmos/evm's switch of the debug runtime methods (also on with `[rpc] unsafe`). */
  'enable-profiling': boolean;
  /** Bytes one profile file may take. */
  'profile-max-size': number;
  /** Bytes `$HOME/profiles` may take. */
  'profile-dir-max-size': number;
  /** Bytes of one debug_trace* output; 0 = unlimited. */
  'trace-response-max-size': number;
}

export type BackendKind = 'embedded' | 'upstream';

/** `[upstream]` of gateway.toml: how the pools treat their upstreams. Durations in milliseconds. */
export interface UpstreamSettings {
  health_check_interval: number;
  /** An upstream further than this many blocks behind the pool's highest is down. */
  max_height_lag: number;
  /** Health checks in a row that must go unanswered before a healthy upstream is marked down. */
  unhealthy_threshold: number;
  request_timeout: number;
  /** Extra attempts of an idempotent read after the first one fails. */
  retries: number;
  /** First backoff; doubles per retry, with jitter. */
  retry_backoff: number;
  /** Latency quantile (0..1) after which a hedged second attempt starts; 0 = no hedging. */
  hedge_quantile: number;
  hedge_min_delay: number;
  hedge_max_delay: number;
  /** Failures among the last `breaker_window` outcomes that open an upstream's breaker. */
  breaker_failures: number;
  breaker_window: number;
  breaker_open_time: number;
  /** Longest life of a latest-height answer (it also ends when a new block is seen); 0 = not cached. */
  latest_ttl: number;
  /** Blocks below the latest before an answer is cached as immutable (CometBFT: 0, instant finality). */
  finality_depth: number;
  /** eth_getLogs ranges longer than this many blocks are split into chunks spread over the EVM pool. */
  logs_chunk_blocks: number;
  /** Most calls sent to one upstream as one JSON-RPC batch; 1 = each call alone. */
  batch_max_size: number;
  /** How long a call waits for others to share its batch; 0 = those of the same event-loop turn only. */
  batch_max_wait: number;
  /** Most subscription sockets (CometBFT subscription clients) open to one node upstream. */
  max_subscription_clients: number;
  /** Most subscriptions on one of them: the upstream's own `[rpc] max_subscriptions_per_client`. */
  max_subscriptions_per_client: number;
}

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
  /** `[queue]`: the broadcast queue. Durations in milliseconds. */
  queue: {
    /** Redis of a durable queue (BullMQ); empty = in memory. `REDIS_URL` when unset. */
    redis_url: string;
    redis_key_prefix: string;
    /** Deliver from this process (always, in memory). */
    workers: boolean;
    /** Deliveries at once per backend lane, per process. */
    concurrency: number;
    /** Deliveries per second per backend lane over every worker; 0 = none. */
    rate_limit: number;
    /** Attempts while the backend is unavailable before a job fails. */
    max_attempts: number;
    retry_backoff: number;
    max_retry_backoff: number;
    /** How long a caller waits for the node's check of its queued tx. */
    check_timeout: number;
  };
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
  /** `[filters]`: EVM polling filters shared by replicas through Redis. */
  filters: {
    /** Share them when a Redis URL is known (`redis_url`, else `[cache] redis_url`). */
    shared: boolean;
    /** Empty = `[cache] redis_url`. */
    redis_url: string;
    redis_key_prefix: string;
    /** About how many hashes the pending-transaction stream keeps. */
    pending_max: number;
  };
  plugins: {
    load: string[];
    /** Node RPC plugin categories that are served. */
    node_api: string[];
    /** Ms a plugin call may hold the event loop before its method is taken out of service; 0 = never. */
    blocking_quarantine: number;
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
  /** `[access]` and its `[[access.rate]]` rules: API keys, client IPs, rate limits. */
  access: AccessConfig;
  /** `[limits]`: query caps, per-IP caps, slow-client timeouts of the node RPC listener. */
  limits: LimitsConfig;
  /** `[compression]`: gzip HTTP answers, WebSocket permessage-deflate. */
  compression: {
    http: boolean;
    /** Bytes: smaller answers go uncompressed. */
    min_bytes: number;
    ws_permessage_deflate: boolean;
  };
}

/** One `[[access.rate]]` rule: at most `limit` calls of the matching methods per `window`, per client. */
export interface RateRule {
  /** Names the rule in errors and in the `limit` label of refusals. */
  name: string;
  /** Method name globs (`*` = any characters): `eth_getLogs`, `debug_*`, `*`. */
  methods: string[];
  /** `ip`: one budget per client IP; `key`: one per API key (per IP for a caller without one). */
  per: 'ip' | 'key';
  limit: number;
  /** Milliseconds, whole seconds. */
  window: number;
}

/** `[access]` of gateway.toml. */
export interface AccessConfig {
  /** A TOML or JSON file of API keys (relative to the home, or absolute); "" = none. */
  keys_file: string;
  /** Look API keys up in Redis (`redis_url`) as well. */
  keys_redis: boolean;
  /** Milliseconds a key read from Redis (or found missing there) is remembered. */
  keys_cache_ttl: number;
  /** Redis of shared rate-limit budgets and of keys; "" = budgets in memory, per replica. */
  redis_url: string;
  redis_key_prefix: string;
  /** Addresses or CIDRs of proxies whose `X-Forwarded-For` is believed. */
  trusted_proxies: string[];
  /** Addresses or CIDRs never rate limited. */
  exempt_cidrs: string[];
  /** `[[access.rate]]` rules, in file order. */
  rate: RateRule[];
}

/** `[limits]` of gateway.toml; 0 = no cap. */
export interface LimitsConfig {
  /** Bytes of a `subscribe`, `tx_search` or `block_search` query. */
  max_query_length: number;
  /** Conditions (joined by AND) of such a query. */
  max_query_conditions: number;
  /** WebSocket connections one client IP may hold on one interface. */
  max_ws_connections_per_ip: number;
  /** Subscriptions (`subscribe`, `eth_subscribe`) one client IP may hold on one interface, across its connections. */
  max_subscriptions_per_ip: number;
  /** EVM polling filters one client IP may hold. */
  max_filters_per_ip: number;
  /** eth_subscribe subscriptions one EVM WebSocket connection may hold. */
  max_evm_subscriptions_per_connection: number;
  /** Bytes of partial HTTP headers and unfinished WebSocket messages held for one client IP, and for all. */
  max_unfinished_bytes_per_ip: number;
  max_unfinished_bytes: number;
  /** Milliseconds: the node RPC listener's limits on a slow client. */
  rpc_header_timeout: number;
  rpc_read_timeout: number;
  rpc_idle_timeout: number;
  rpc_write_timeout: number;
}

export interface AppConfig {
  /** Absolute home directory. */
  home: string;
  rpc: RpcConfig;
  instrumentation: InstrumentationConfig;
  jsonRpc: JsonRpcConfig;
  tls: TlsConfig;
  gateway: GatewayOwnConfig;
}
