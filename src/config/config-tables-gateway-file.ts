/** The tables of gateway.toml, the gateway's own file. */
import { table } from './config-table-spec';
import { BACKEND_KINDS, LOG_FORMATS, LOG_LEVELS } from './config-choices';
import { IsCidrList, IsDurationAtLeast, IsFlag, IsIntAtLeast, IsIntBetween, IsMatching, IsNonEmptyText, IsNumberBetween, IsOneOf, IsTextList, IsUrlOrEmpty } from './config-validators';

export const GATEWAY_FILE_TABLES = {
  backend: table({
    file: 'gateway.toml',
    title: 'Where requests are served from',
    defaults: { kind: 'embedded' },
    keys: {
      kind: {
        ...IsOneOf(BACKEND_KINDS),
        flag: '<kind>',
        doc: 'Backend: embedded (an in-process devnet) or upstream (pools of real nodes).',
      },
    },
  }),

  devnet: table({
    file: 'gateway.toml',
    title: 'The embedded devnet (backend kind = "embedded")',
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
      chain_id: { ...IsNonEmptyText(50), doc: 'Chain ID of the devnet (at most 50 characters).' },
      moniker: { ...IsNonEmptyText(), doc: 'Name of the devnet node.' },
      block_time: { ...IsDurationAtLeast(1), flag: '<duration>', doc: 'Time between blocks.' },
      ephemeral: { ...IsFlag(), flag: '[true|false]', doc: 'Keep the chain in memory only (nothing under $HOME/data).' },
      follow: {
        ...IsUrlOrEmpty(['http', 'https']),
        flag: '<url>',
        doc: 'Node RPC URL of a devnet validator to follow as a full node (its blocks replayed, txs forwarded to it); "" = be the validator.',
      },
      mempool_size: { ...IsIntAtLeast(1), doc: 'Transactions the mempool holds.' },
      max_tx_bytes: { ...IsIntAtLeast(1), doc: 'Largest transaction accepted, in bytes.' },
      evm_chain_id: {
        ...IsIntAtLeast(0),
        flag: '<id>',
        doc: 'EIP-155 chain id of the EVM (eth_chainId); 0 = the number in an Evmos-style chain_id (name_9000-1), else 9000.',
      },
      block_gas_limit: { ...IsIntAtLeast(21_000), doc: 'Gas limit of a block; a new genesis writes it as block.max_gas.' },
      initial_base_fee: { ...IsIntAtLeast(0), doc: 'EIP-1559 base fee of the first block, in wei.' },
    },
  }),

  queue: table({
    file: 'gateway.toml',
    title: 'Broadcast queue',
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
        ...IsUrlOrEmpty(['redis', 'rediss']),
        env: ['REDIS_URL'],
        doc: 'Redis URL (redis:// or rediss://) of a durable queue (BullMQ) shared by replicas and workers; "" = in memory, not durable.',
      },
      redis_key_prefix: { ...IsMatching(/^[^\s{}]+$/, 'a key prefix without spaces or braces'), doc: 'Start of every Redis key of the queue; the backend (node, evm) follows it.' },
      workers: {
        ...IsFlag(),
        doc: 'Deliver queued txs from this process; false = only queue them (rpc-gateway worker processes deliver). Always on in memory.',
      },
      concurrency: { ...IsIntAtLeast(1), doc: 'Deliveries at once per backend (node, evm), per process.' },
      rate_limit: { ...IsIntAtLeast(0), doc: 'Deliveries per second per backend (node, evm), over every worker of the queue; 0 = no limit.' },
      max_attempts: { ...IsIntAtLeast(1), doc: 'Delivery attempts while the backend is unavailable before a tx lands in the failed set.' },
      retry_backoff: { ...IsDurationAtLeast(1), doc: 'Wait before the first retry; it doubles at each attempt (with jitter) up to max_retry_backoff.' },
      max_retry_backoff: { ...IsDurationAtLeast(1), doc: 'Longest wait between two delivery attempts.' },
      check_timeout: {
        ...IsDurationAtLeast(1),
        doc: "How long broadcast_tx_sync, broadcast_tx_commit and eth_sendRawTransaction wait for the node's check of a queued tx.",
      },
    },
  }),

  cache: table({
    file: 'gateway.toml',
    title: 'Response cache',
    defaults: { max_bytes: 67_108_864, redis_url: '', redis_ttl: 86_400_000, redis_timeout: 100, redis_key_prefix: 'rpcgw:cache:' },
    keys: {
      max_bytes: { ...IsIntAtLeast(0), doc: 'Memory the response cache may use, in bytes; 0 = nothing kept in memory.' },
      redis_url: {
        ...IsUrlOrEmpty(['redis', 'rediss']),
        doc: 'Redis URL (redis:// or rediss://) where replicas share immutable answers; "" = memory only.',
      },
      redis_ttl: { ...IsDurationAtLeast(0), doc: 'How long an answer stays in Redis after it is written; 0 = until Redis evicts it.' },
      redis_timeout: { ...IsDurationAtLeast(1), doc: 'Longest wait for a Redis command; a slower or failed one counts as a miss.' },
      redis_key_prefix: { ...IsMatching(/^\S*$/, 'a key prefix without spaces'), doc: 'Start of every Redis key; the pool (node, evm) and its chain follow it.' },
    },
  }),

  filters: table({
    file: 'gateway.toml',
    title: 'EVM polling filters shared by replicas',
    defaults: { shared: true, redis_url: '', redis_key_prefix: 'rpcgw:filters:', pending_max: 10_000 },
    keys: {
      shared: { ...IsFlag(), doc: 'Keep polling filters in Redis (redis_url, else [cache] redis_url) so every replica serves them; false or no Redis = per replica.' },
      redis_url: { ...IsUrlOrEmpty(['redis', 'rediss']), doc: 'Redis URL (redis:// or rediss://) of shared filters; "" = [cache] redis_url.' },
      redis_key_prefix: { ...IsMatching(/^\S*$/, 'a key prefix without spaces'), doc: 'Start of every Redis key of shared filters.' },
      pending_max: { ...IsIntAtLeast(100), doc: 'About how many transaction hashes the shared stream of pending-transaction filters keeps.' },
    },
  }),

  plugins: table({
    file: 'gateway.toml',
    title: 'Plugins',
    defaults: { load: ['plugins/gateway', 'plugins/ots', 'plugins/cosmos'], node_api: ['cosmos'], blocking_quarantine: 0 },
    keys: {
      load: {
        ...IsTextList(),
        aliases: ['paths'],
        doc: 'Plugins to load: paths (relative to the home dir or the project, or absolute) or npm package names.',
      },
      node_api: { ...IsTextList(), doc: 'Node RPC categories of plugins that are served (EVM plugin namespaces: [json-rpc] api).' },
      blocking_quarantine: {
        ...IsDurationAtLeast(0),
        doc: 'A plugin method whose call holds the event loop this long in one synchronous stretch is taken out of service until restart; 0 = never.',
      },
    },
  }),

  log: table({
    file: 'gateway.toml',
    title: 'Logging',
    defaults: { level: 'info', format: 'auto' },
    keys: {
      level: {
        ...IsOneOf(LOG_LEVELS),
        flag: '<level>',
        doc: 'Log level: fatal, error, warn, info, debug, trace or silent.',
      },
      format: {
        ...IsOneOf(LOG_FORMATS),
        flag: '<format>',
        doc: 'Log format: plain (readable lines, after a start-up banner), json (one JSON object a line) or auto (plain when stdout is a terminal, else json).',
      },
    },
  }),

  upstream: table({
    file: 'gateway.toml',
    title: 'Upstream pools (backend kind = "upstream"); the nodes: [[upstream.node]] and [[upstream.evm]], see docs/upstream.md',
    defaults: {
      health_check_interval: 1_000,
      max_height_lag: 5,
      unhealthy_threshold: 2,
      request_timeout: 10_000,
      retries: 2,
      retry_backoff: 50,
      hedge_quantile: 0.95,
      hedge_min_delay: 50,
      hedge_max_delay: 2_000,
      breaker_failures: 5,
      breaker_window: 20,
      breaker_open_time: 10_000,
      latest_ttl: 1_000,
      finality_depth: 0,
      logs_chunk_blocks: 2_000,
      batch_max_size: 1,
      batch_max_wait: 0,
      max_subscription_clients: 10,
      max_subscriptions_per_client: 5,
    },
    keys: {
      health_check_interval: { ...IsDurationAtLeast(1), doc: 'How often each upstream is checked (status / eth_blockNumber).' },
      max_height_lag: { ...IsIntAtLeast(0), doc: "An upstream more than this many blocks behind the pool's highest is down (lagging)." },
      unhealthy_threshold: { ...IsIntAtLeast(1), doc: 'Health checks in a row left unanswered before a healthy upstream is marked down.' },
      request_timeout: { ...IsDurationAtLeast(1), doc: 'Longest wait for one upstream attempt.' },
      retries: { ...IsIntBetween(0, 10), doc: 'Extra attempts of an idempotent read after the first fails, on other upstreams (0 to 10).' },
      retry_backoff: { ...IsDurationAtLeast(0), doc: 'First wait before a retry; it doubles at each one, with jitter.' },
      hedge_quantile: { ...IsNumberBetween(0, 1), doc: "Latency quantile (0 to 1) of an upstream after which a read is hedged to another; 0 = no hedging." },
      hedge_min_delay: { ...IsDurationAtLeast(0), doc: 'Shortest wait before a hedged attempt.' },
      hedge_max_delay: { ...IsDurationAtLeast(0), doc: 'Longest wait before a hedged attempt.' },
      breaker_failures: { ...IsIntAtLeast(1), doc: "Failures among the last breaker_window outcomes that open an upstream's breaker." },
      breaker_window: { ...IsIntAtLeast(1), doc: 'Outcomes the breaker counts failures among.' },
      breaker_open_time: { ...IsDurationAtLeast(1), doc: 'How long an open breaker keeps an upstream out before one trial call.' },
      latest_ttl: { ...IsDurationAtLeast(0), doc: 'Longest life of a cached latest-height answer (a new block ends it sooner); 0 = not cached.' },
      finality_depth: { ...IsIntAtLeast(0), doc: 'Blocks below the latest before an answer is cached as immutable (CometBFT: 0, instant finality).' },
      logs_chunk_blocks: { ...IsIntAtLeast(1), doc: 'eth_getLogs ranges longer than this many blocks are split into chunks spread over the EVM pool.' },
      batch_max_size: { ...IsIntBetween(1, 1000), doc: 'Most calls sent to one upstream as one JSON-RPC batch (1 to 1000); 1 = each call alone.' },
      batch_max_wait: { ...IsDurationAtLeast(0), doc: 'How long a call waits for others to share its batch; 0 = those of the same event-loop turn.' },
      max_subscription_clients: { ...IsIntAtLeast(1), doc: 'Subscription WebSockets open to one node upstream.' },
      max_subscriptions_per_client: { ...IsIntAtLeast(1), doc: "Subscriptions on one of them: the upstream's own [rpc] max_subscriptions_per_client." },
    },
  }),

  access: table({
    file: 'gateway.toml',
    title: 'Access: API keys, client addresses, rate limits (rules: [[access.rate]], see docs/configuration.md)',
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
        ...IsMatching(/^.*$/, 'a path (relative to the home) or ""'),
        doc: 'API keys file, TOML or JSON (relative to the home dir, or absolute); "" = none. With keys, every call needs one.',
      },
      keys_redis: { ...IsFlag(), doc: 'Look API keys up in Redis (redis_url) too; with keys, every call needs one.' },
      keys_cache_ttl: { ...IsDurationAtLeast(0), doc: 'How long a key read from Redis (or found missing) is remembered; 0 = ask Redis every time.' },
      redis_url: {
        ...IsUrlOrEmpty(['redis', 'rediss']),
        doc: 'Redis URL (redis:// or rediss://) where replicas share rate-limit budgets (and keys); "" = budgets in memory.',
      },
      redis_key_prefix: { ...IsMatching(/^\S*$/, 'a key prefix without spaces'), doc: 'Start of every Redis key of rate budgets and API keys.' },
      trusted_proxies: { ...IsCidrList(), doc: 'Proxies (addresses or CIDRs) whose X-Forwarded-For names the client; [] = the peer is the client.' },
      exempt_cidrs: { ...IsCidrList(), doc: 'Client addresses or CIDRs never rate limited.' },
    },
  }),

  limits: table({
    file: 'gateway.toml',
    title: 'Limits: queries, per-IP caps, slow clients of the node RPC (0 = no cap)',
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
      max_query_length: { ...IsIntAtLeast(0), doc: 'Bytes of a subscribe, tx_search or block_search query (CometBFT: 512).' },
      max_query_conditions: { ...IsIntAtLeast(0), doc: 'Conditions (joined by AND) of a subscribe, tx_search or block_search query.' },
      max_ws_connections_per_ip: { ...IsIntAtLeast(0), doc: 'WebSocket connections one client address may hold, per interface.' },
      max_subscriptions_per_ip: { ...IsIntAtLeast(0), doc: 'Subscriptions (subscribe, eth_subscribe) one client address may hold across its connections, per interface.' },
      max_filters_per_ip: { ...IsIntAtLeast(0), doc: 'EVM polling filters one client address may hold.' },
      max_evm_subscriptions_per_connection: { ...IsIntAtLeast(0), doc: 'eth_subscribe subscriptions one EVM WebSocket connection may hold.' },
      max_unfinished_bytes_per_ip: { ...IsIntAtLeast(0), doc: 'Bytes of partial HTTP headers and unfinished WebSocket messages one client address may hold.' },
      max_unfinished_bytes: { ...IsIntAtLeast(0), doc: 'Bytes of partial HTTP headers and unfinished WebSocket messages all clients may hold.' },
      rpc_header_timeout: { ...IsDurationAtLeast(0), doc: 'Node RPC: time a client has to send its request headers; 0 = none.' },
      rpc_read_timeout: { ...IsDurationAtLeast(0), doc: 'Node RPC: time a client has to send a whole request, body included; 0 = none.' },
      rpc_idle_timeout: { ...IsDurationAtLeast(0), doc: 'Node RPC: how long an idle keep-alive connection stays open.' },
      rpc_write_timeout: {
        ...IsDurationAtLeast(0),
        doc: 'Node RPC: time a call may run before it is answered "request timed out" (raised to let broadcast_tx_commit wait); 0 = none.',
      },
    },
  }),
  compression: table({
    file: 'gateway.toml',
    title: 'Compression of answers and WebSocket messages, on both interfaces',
    defaults: { http: true, min_bytes: 1024, ws_permessage_deflate: false },
    keys: {
      http: { ...IsFlag(), doc: 'gzip HTTP answers of min_bytes or more for clients that accept it (Accept-Encoding).' },
      min_bytes: { ...IsIntAtLeast(0), doc: 'Smallest HTTP answer (or WebSocket message) that is compressed, in bytes.' },
      ws_permessage_deflate: {
        ...IsFlag(),
        doc: 'Offer WebSocket permessage-deflate (at most 71 KiB of zlib memory per connection that takes it).',
      },
    },
  }),
};
