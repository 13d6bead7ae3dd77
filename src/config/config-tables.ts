/**
 * Every table and key the gateway reads, as data: the file it lives in, how its value is read, its
 * default and a one-line description. The written default files, the environment and flag names, the
 * `--help` text and validation all come from here.
 */
import { table, type TableSpec } from './config-table-spec';
import type { GatewayOwnConfig, JsonRpcConfig, RpcConfig } from './config.types';
import { INSTRUMENTATION_TABLE } from './instrumentation-table';
import { AccessConfigSchema, BackendConfigSchema, CacheConfigSchema, CompressionConfigSchema, DevnetConfigSchema, FiltersConfigSchema, JsonRpcConfigSchema, LimitsConfigSchema, LogConfigSchema, PluginsConfigSchema, QueueConfigSchema, RpcConfigSchema } from './config.schema';

export const CONFIG_TABLES = {
  rpc: table<RpcConfig>({
    file: 'config.toml',
    title: 'Node RPC server (CometBFT [rpc])',
    schema: RpcConfigSchema,
    defaults: {
      laddr: 'tcp://127.0.0.1:26657',
      cors_allowed_origins: [],
      cors_allowed_methods: ['HEAD', 'GET', 'POST'],
      cors_allowed_headers: ['Origin', 'Accept', 'Content-Type', 'X-Requested-With', 'X-Server-Time'],
      unsafe: false,
      max_open_connections: 900,
      max_subscription_clients: 100,
      max_subscriptions_per_client: 5,
      experimental_subscription_buffer_size: 200,
      experimental_websocket_write_buffer_size: 200,
      experimental_close_on_slow_client: false,
      timeout_broadcast_tx_commit: 10_000,
      max_request_batch_size: 10,
      max_body_bytes: 1_000_000,
      max_header_bytes: 1_048_576,
    },
    keys: {
      laddr: {
        kind: 'string',
        flag: '<addrs>',
        doc: 'Addresses to listen on, comma-separated: tcp://host:port or unix:///path.',
      },
      cors_allowed_origins: { kind: 'list', doc: 'Origins allowed to make cross-origin requests; [] = CORS off, "*" = any.' },
      cors_allowed_methods: { kind: 'list', doc: 'HTTP methods allowed in cross-origin requests.' },
      cors_allowed_headers: { kind: 'list', doc: 'Request headers allowed in cross-origin requests.' },
      unsafe: {
        kind: 'boolean',
        flag: '[true|false]',
        doc: 'Serve the unsafe methods dial_seeds, dial_peers and unsafe_flush_mempool.',
      },
      max_open_connections: {
        kind: 'integer',
        doc: 'Simultaneous HTTP and WebSocket connections; 0 = unlimited; extra connections wait.',
      },
      max_subscription_clients: { kind: 'integer', doc: 'Distinct clients that may hold subscriptions at once.' },
      max_subscriptions_per_client: { kind: 'integer', doc: 'Subscriptions one client may hold at once.' },
      experimental_subscription_buffer_size: {
        kind: 'integer',
        doc: 'Events buffered per subscription before it is cancelled as too slow (>= 100).',
      },
      experimental_websocket_write_buffer_size: {
        kind: 'integer',
        doc: 'Messages queued per WebSocket connection (>= experimental_subscription_buffer_size).',
      },
      experimental_close_on_slow_client: {
        kind: 'boolean',
        doc: 'Cancel a subscription whose event cannot be delivered within 10s, instead of dropping the event.',
      },
      timeout_broadcast_tx_commit: { kind: 'duration', doc: 'How long broadcast_tx_commit waits for the block.' },
      max_request_batch_size: { kind: 'integer', doc: 'Requests allowed in one JSON-RPC batch; 0 = unlimited.' },
      max_body_bytes: { kind: 'integer', doc: 'Largest HTTP request body or WebSocket message, in bytes.' },
      max_header_bytes: { kind: 'integer', doc: 'Largest HTTP request header, in bytes.' },
    },
  }),

  instrumentation: INSTRUMENTATION_TABLE,

  'json-rpc': table<JsonRpcConfig>({
    file: 'app.toml',
    title: 'EVM JSON-RPC server (Evmos app.toml [json-rpc])',
    schema: JsonRpcConfigSchema,
    defaults: {
      enable: true,
      address: '127.0.0.1:8545',
      'ws-address': '127.0.0.1:8546',
      api: ['eth', 'net', 'web3'],
      'gas-cap': 25_000_000,
      'evm-timeout': 10_000,
      'txfee-cap': 1,
      'filter-cap': 200,
      'feehistory-cap': 100,
      'logs-cap': 10_000,
      'block-range-cap': 10_000,
      'http-timeout': 30_000,
      'http-idle-timeout': 120_000,
      'allow-unprotected-txs': false,
      'max-open-connections': 0,
      'batch-request-limit': 1_000,
      'batch-response-max-size': 25_000_000,
      'ws-origins': ['127.0.0.1', 'localhost'],
      'enable-indexer': false,
      'enable-profiling': false,
      'profile-max-size': 128_000_000,
      'profile-dir-max-size': 512_000_000,
      'trace-response-max-size': 25_000_000,
    },
    keys: {
      enable: { kind: 'boolean', flag: '[true|false]', doc: 'Serve the EVM JSON-RPC over HTTP and WebSocket.' },
      address: { kind: 'string', flag: '<host:port>', doc: 'HTTP listen address, host:port.' },
      'ws-address': { kind: 'string', flag: '<host:port>', doc: 'WebSocket listen address, host:port.' },
      api: {
        kind: 'comma-list',
        flag: '<a,b,…>',
        doc: 'Namespaces served, comma-separated: eth, web3, net, txpool, debug, personal, admin, miner, or a plugin\'s.',
      },
      'gas-cap': {
        kind: 'integer',
        aliases: ['rpc-gas-cap'],
        doc: 'Gas cap of eth_call and eth_estimateGas; 0 = no cap (also read as rpc-gas-cap).',
      },
      'evm-timeout': { kind: 'duration', doc: 'Deadline of an eth_call; 0 = none.' },
      'txfee-cap': { kind: 'number', doc: 'Largest fee, in ether, of a transaction sent through the RPC; 0 = no cap.' },
      'filter-cap': { kind: 'integer', doc: 'Polling filters alive at once, across all clients.' },
      'feehistory-cap': { kind: 'integer', doc: 'Largest blockCount of eth_feeHistory (>= 1).' },
      'logs-cap': { kind: 'integer', doc: 'Most logs returned by eth_getLogs or eth_getFilterLogs.' },
      'block-range-cap': { kind: 'integer', doc: 'Largest block range (to - from) of a logs query.' },
      'http-timeout': { kind: 'duration', doc: 'Read and write timeout of an HTTP request; also how long any EVM call (HTTP, batch member, WebSocket message) may run before -32002 request timed out.' },
      'http-idle-timeout': { kind: 'duration', doc: 'How long an idle keep-alive connection stays open.' },
      'allow-unprotected-txs': { kind: 'boolean', doc: 'Accept raw transactions without EIP-155 replay protection.' },
      'max-open-connections': { kind: 'integer', doc: 'Simultaneous HTTP connections; 0 = unlimited; extra connections wait.' },
      'batch-request-limit': { kind: 'integer', doc: 'Requests allowed in one batch; 0 = unlimited.' },
      'batch-response-max-size': { kind: 'integer', doc: 'Bytes of results one batch may return; 0 = unlimited.' },
      'ws-origins': { kind: 'list', doc: 'Origin hostnames allowed to open a WebSocket; a request without Origin is allowed.' },
      'enable-indexer': { kind: 'boolean', doc: 'Keep an EVM transaction index of its own instead of using tx_search.' },
      'enable-profiling': {
        kind: 'boolean',
        doc: 'Serve the debug runtime methods (memStats, stacks, profiles written under $HOME/profiles); never on a public endpoint.',
      },
      'profile-max-size': { kind: 'integer', doc: 'Largest profile file one debug_write*/debug_*Profile call may write, in bytes.' },
      'profile-dir-max-size': { kind: 'integer', doc: 'Bytes all files under $HOME/profiles may take; past it profile writes are refused.' },
      'trace-response-max-size': { kind: 'integer', doc: 'Bytes of output one debug_trace* call may produce; 0 = unlimited.' },
    },
  }),

  backend: table<GatewayOwnConfig['backend']>({
    file: 'gateway.toml',
    title: 'Where requests are served from',
    schema: BackendConfigSchema,
    defaults: { kind: 'embedded' },
    keys: {
      kind: {
        kind: 'string',
        flag: '<kind>',
        doc: 'Backend: embedded (an in-process devnet) or upstream (pools of real nodes).',
      },
    },
  }),

  devnet: table<GatewayOwnConfig['devnet']>({
    file: 'gateway.toml',
    title: 'The embedded devnet (backend kind = "embedded")',
    schema: DevnetConfigSchema,
    defaults: {
      chain_id: 'rpcgw-devnet-1',
      moniker: 'rpc-gateway-devnet',
      block_time: 1_000,
      ephemeral: false,
      follow: '',
      mempool_size: 5_000,
      max_tx_bytes: 1_048_576,
      evm_chain_id: 0,
      block_gas_limit: 30_000_000,
      initial_base_fee: 1_000_000_000,
    },
    keys: {
      chain_id: { kind: 'string', doc: 'Chain ID of the devnet (at most 50 characters).' },
      moniker: { kind: 'string', doc: 'Name of the devnet node.' },
      block_time: { kind: 'duration', flag: '<duration>', doc: 'Time between blocks.' },
      ephemeral: { kind: 'boolean', flag: '[true|false]', doc: 'Keep the chain in memory only (nothing under $HOME/data).' },
      follow: {
        kind: 'string',
        flag: '<url>',
        doc: 'Node RPC URL of a devnet validator to follow as a full node (its blocks replayed, txs forwarded to it); "" = be the validator.',
      },
      mempool_size: { kind: 'integer', doc: 'Transactions the mempool holds.' },
      max_tx_bytes: { kind: 'integer', doc: 'Largest transaction accepted, in bytes.' },
      evm_chain_id: {
        kind: 'integer',
        flag: '<id>',
        doc: 'EIP-155 chain id of the EVM (eth_chainId); 0 = the number in an Evmos-style chain_id (name_9000-1), else 9000.',
      },
      block_gas_limit: { kind: 'integer', doc: 'Gas limit of a block; a new genesis writes it as block.max_gas.' },
      initial_base_fee: { kind: 'integer', doc: 'EIP-1559 base fee of the first block, in wei.' },
    },
  }),

  queue: table<GatewayOwnConfig['queue']>({
    file: 'gateway.toml',
    title: 'Broadcast queue',
    schema: QueueConfigSchema,
    defaults: {
      redis_url: '',
      redis_key_prefix: 'rpcgw:queue',
      workers: true,
      concurrency: 16,
      rate_limit: 0,
      max_attempts: 60,
      retry_backoff: 500,
      max_retry_backoff: 10_000,
      check_timeout: 5_000,
    },
    keys: {
      redis_url: {
        kind: 'string',
        env: ['REDIS_URL'],
        doc: 'Redis URL (redis:// or rediss://) of a durable queue (BullMQ) shared by replicas and workers; "" = in memory, not durable.',
      },
      redis_key_prefix: { kind: 'string', doc: 'Start of every Redis key of the queue; the backend (node, evm) follows it.' },
      workers: {
        kind: 'boolean',
        doc: 'Deliver queued txs from this process; false = only queue them (rpc-gateway worker processes deliver). Always on in memory.',
      },
      concurrency: { kind: 'integer', doc: 'Deliveries at once per backend (node, evm), per process.' },
      rate_limit: { kind: 'integer', doc: 'Deliveries per second per backend (node, evm), over every worker of the queue; 0 = no limit.' },
      max_attempts: { kind: 'integer', doc: 'Delivery attempts while the backend is unavailable before a tx lands in the failed set.' },
      retry_backoff: { kind: 'duration', doc: 'Wait before the first retry; it doubles at each attempt (with jitter) up to max_retry_backoff.' },
      max_retry_backoff: { kind: 'duration', doc: 'Longest wait between two delivery attempts.' },
      check_timeout: {
        kind: 'duration',
        doc: "How long broadcast_tx_sync, broadcast_tx_commit and eth_sendRawTransaction wait for the node's check of a queued tx.",
      },
    },
  }),

  cache: table<GatewayOwnConfig['cache']>({
    file: 'gateway.toml',
    title: 'Response cache',
    schema: CacheConfigSchema,
    defaults: { max_bytes: 67_108_864, redis_url: '', redis_ttl: 86_400_000, redis_timeout: 100, redis_key_prefix: 'rpcgw:cache:' },
    keys: {
      max_bytes: { kind: 'integer', doc: 'Memory the response cache may use, in bytes; 0 = nothing kept in memory.' },
      redis_url: {
        kind: 'string',
        doc: 'Redis URL (redis:// or rediss://) where replicas share immutable answers; "" = memory only.',
      },
      redis_ttl: { kind: 'duration', doc: 'How long an answer stays in Redis after it is written; 0 = until Redis evicts it.' },
      redis_timeout: { kind: 'duration', doc: 'Longest wait for a Redis command; a slower or failed one counts as a miss.' },
      redis_key_prefix: { kind: 'string', doc: 'Start of every Redis key; the pool (node, evm) and its chain follow it.' },
    },
  }),

  filters: table<GatewayOwnConfig['filters']>({
    file: 'gateway.toml',
    title: 'EVM polling filters shared by replicas',
    schema: FiltersConfigSchema,
    defaults: { shared: true, redis_url: '', redis_key_prefix: 'rpcgw:filters:', pending_max: 10_000 },
    keys: {
      shared: { kind: 'boolean', doc: 'Keep polling filters in Redis (redis_url, else [cache] redis_url) so every replica serves them; false or no Redis = per replica.' },
      redis_url: { kind: 'string', doc: 'Redis URL (redis:// or rediss://) of shared filters; "" = [cache] redis_url.' },
      redis_key_prefix: { kind: 'string', doc: 'Start of every Redis key of shared filters.' },
      pending_max: { kind: 'integer', doc: 'About how many transaction hashes the shared stream of pending-transaction filters keeps.' },
    },
  }),

  plugins: table<Omit<GatewayOwnConfig['plugins'], 'tables'>>({
    file: 'gateway.toml',
    title: 'Plugins',
    schema: PluginsConfigSchema,
    defaults: { load: ['plugins/gateway', 'plugins/ots', 'plugins/cosmos'], node_api: ['cosmos'], blocking_quarantine: 0 },
    keys: {
      load: { kind: 'list', aliases: ['paths'], doc: 'Plugins to load: paths (relative to the home dir or the project, or absolute) or npm package names.' },
      node_api: { kind: 'list', doc: 'Node RPC categories of plugins that are served (EVM plugin namespaces: [json-rpc] api).' },
      blocking_quarantine: { kind: 'duration', doc: 'A plugin method whose call holds the event loop this long in one synchronous stretch is taken out of service until restart; 0 = never.' },
    },
  }),

  log: table<GatewayOwnConfig['log']>({
    file: 'gateway.toml',
    title: 'Logging',
    schema: LogConfigSchema,
    defaults: { level: 'info', format: 'auto' },
    keys: {
      level: {
        kind: 'string',
        flag: '<level>',
        doc: 'Log level: fatal, error, warn, info, debug, trace or silent.',
      },
      format: {
        kind: 'string',
        flag: '<format>',
        doc: 'Log format: plain (readable lines, after a start-up banner), json (one JSON object a line) or auto (plain when stdout is a terminal, else json).',
      },
    },
  }),

  access: table<Omit<GatewayOwnConfig['access'], 'rate'>>({
    file: 'gateway.toml',
    title: 'Access: API keys, client addresses, rate limits (rules: [[access.rate]], see docs/configuration.md)',
    schema: AccessConfigSchema,
    defaults: {
      keys_file: '',
      keys_redis: false,
      keys_cache_ttl: 10_000,
      redis_url: '',
      redis_key_prefix: 'rpcgw:access:',
      trusted_proxies: [],
      exempt_cidrs: [],
    },
    keys: {
      keys_file: {
        kind: 'string',
        doc: 'API keys file, TOML or JSON (relative to the home dir, or absolute); "" = none. With keys, every call needs one.',
      },
      keys_redis: { kind: 'boolean', doc: 'Look API keys up in Redis (redis_url) too; with keys, every call needs one.' },
      keys_cache_ttl: { kind: 'duration', doc: 'How long a key read from Redis (or found missing) is remembered; 0 = ask Redis every time.' },
      redis_url: {
        kind: 'string',
        doc: 'Redis URL (redis:// or rediss://) where replicas share rate-limit budgets (and keys); "" = budgets in memory.',
      },
      redis_key_prefix: { kind: 'string', doc: 'Start of every Redis key of rate budgets and API keys.' },
      trusted_proxies: { kind: 'list', doc: 'Proxies (addresses or CIDRs) whose X-Forwarded-For names the client; [] = the peer is the client.' },
      exempt_cidrs: { kind: 'list', doc: 'Client addresses or CIDRs never rate limited.' },
    },
  }),

  limits: table<GatewayOwnConfig['limits']>({
    file: 'gateway.toml',
    title: 'Limits: queries, per-IP caps, slow clients of the node RPC (0 = no cap)',
    schema: LimitsConfigSchema,
    defaults: {
      max_query_length: 512,
      max_query_conditions: 20,
      max_ws_connections_per_ip: 50,
      max_subscriptions_per_ip: 500,
      max_filters_per_ip: 50,
      max_evm_subscriptions_per_connection: 100,
      max_unfinished_bytes_per_ip: 8_388_608,
      max_unfinished_bytes: 134_217_728,
      rpc_header_timeout: 10_000,
      rpc_read_timeout: 10_000,
      rpc_idle_timeout: 10_000,
      rpc_write_timeout: 10_000,
    },
    keys: {
      max_query_length: { kind: 'integer', doc: 'Bytes of a subscribe, tx_search or block_search query (CometBFT: 512).' },
      max_query_conditions: { kind: 'integer', doc: 'Conditions (joined by AND) of a subscribe, tx_search or block_search query.' },
      max_ws_connections_per_ip: { kind: 'integer', doc: 'WebSocket connections one client address may hold, per interface.' },
      max_subscriptions_per_ip: { kind: 'integer', doc: 'Subscriptions (subscribe, eth_subscribe) one client address may hold across its connections, per interface.' },
      max_filters_per_ip: { kind: 'integer', doc: 'EVM polling filters one client address may hold.' },
      max_evm_subscriptions_per_connection: { kind: 'integer', doc: 'eth_subscribe subscriptions one EVM WebSocket connection may hold.' },
      max_unfinished_bytes_per_ip: { kind: 'integer', doc: 'Bytes of partial HTTP headers and unfinished WebSocket messages one client address may hold.' },
      max_unfinished_bytes: { kind: 'integer', doc: 'Bytes of partial HTTP headers and unfinished WebSocket messages all clients may hold.' },
      rpc_header_timeout: { kind: 'duration', doc: 'Node RPC: time a client has to send its request headers; 0 = none.' },
      rpc_read_timeout: { kind: 'duration', doc: 'Node RPC: time a client has to send a whole request, body included; 0 = none.' },
      rpc_idle_timeout: { kind: 'duration', doc: 'Node RPC: how long an idle keep-alive connection stays open.' },
      rpc_write_timeout: { kind: 'duration', doc: 'Node RPC: time a call may run before it is answered "request timed out" (raised to let broadcast_tx_commit wait); 0 = none.' },
    },
  }),
  compression: table<GatewayOwnConfig['compression']>({
    file: 'gateway.toml',
    title: 'Compression of answers and WebSocket messages, on both interfaces',
    schema: CompressionConfigSchema,
    defaults: { http: true, min_bytes: 1024, ws_permessage_deflate: false },
    keys: {
      http: { kind: 'boolean', doc: 'gzip HTTP answers of min_bytes or more for clients that accept it (Accept-Encoding).' },
      min_bytes: { kind: 'integer', doc: 'Smallest HTTP answer (or WebSocket message) that is compressed, in bytes.' },
      ws_permessage_deflate: { kind: 'boolean', doc: 'Offer WebSocket permessage-deflate (at most 71 KiB of zlib memory per connection that takes it).' },
    },
  }),
};

export type TableName = keyof typeof CONFIG_TABLES;

export type TableValue<N extends TableName> = (typeof CONFIG_TABLES)[N] extends TableSpec<infer T> ? T : never;

export type TableValues = { [N in TableName]: TableValue<N> };

export const TABLE_NAMES = Object.keys(CONFIG_TABLES) as TableName[];

/** Loosely typed view of a table, for code that walks every key. */
export function tableSpec(name: TableName): TableSpec<Record<string, unknown>> {
  return CONFIG_TABLES[name] as unknown as TableSpec<Record<string, unknown>>;
}

/** `RPCGW_<TABLE>_<KEY>`: upper case, `-` and `.` turned to `_`. */
export function envName(tableName: string, key: string): string {
  return `RPCGW_${tableName}_${key}`.toUpperCase().replace(/[-.]/g, '_');
}
