/** The tables of gateway.toml about traffic: upstream pools, access, limits, compression. */
import { table } from './config-table-spec';
import { IsCidrList, IsDurationAtLeast, IsFlag, IsIntAtLeast, IsIntBetween, IsMatching, IsNumberBetween, IsUrlOrEmpty } from './config-validators';

export const GATEWAY_TRAFFIC_TABLES = {
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
      latest_ttl: { ...IsDurationAtLeast(0), doc: 'Longest life of a cached latest-height answer (a new block ends it sooner; kept from the second time its call is answered); 0 = not cached.' },
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
      keys_redis: {
        ...IsFlag(),
        doc: 'Look API keys up in Redis (redis_url) too; with keys, every call needs one.',
      },
      keys_cache_ttl: {
        ...IsDurationAtLeast(0),
        doc: 'How long a key read from Redis (or found missing) is remembered; 0 = ask Redis every time.',
        details: 'How long a key read from Redis, or found missing there, is remembered (how long a revocation takes); 0 = ask Redis every time.',
      },
      redis_url: {
        ...IsUrlOrEmpty(['redis', 'rediss']),
        doc: 'Redis URL (redis:// or rediss://) where replicas share rate-limit budgets (and keys); "" = budgets in memory.',
        details: 'Redis URL (`redis://` or `rediss://`) where replicas share rate-limit budgets (and keys); `""` = budgets in memory, per replica. While Redis cannot be reached, each replica counts in memory.',
      },
      redis_key_prefix: {
        ...IsMatching(/^\S*$/, 'a key prefix without spaces'),
        doc: 'Start of every Redis key of rate budgets and API keys.',
        details: 'Start of every Redis key of rate budgets (`…rate:<rule>…`) and API keys (`…key:<sha256>`).',
      },
      trusted_proxies: {
        ...IsCidrList(),
        doc: 'Proxies (addresses or CIDRs) whose X-Forwarded-For names the client; [] = the peer is the client.',
        details: 'Addresses or CIDRs of proxies whose `X-Forwarded-For` is believed: behind them the client is the right-most address not itself a trusted proxy. `[]` = the peer is the client, the header is ignored.',
      },
      exempt_cidrs: {
        ...IsCidrList(),
        doc: 'Client addresses or CIDRs never rate limited.',
        details: 'Client addresses or CIDRs never rate limited (your own services, monitoring).',
      },
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
      max_query_length: {
        ...IsIntAtLeast(0),
        doc: 'Bytes of a subscribe, tx_search or block_search query (CometBFT: 512).',
        details: "Bytes of a `subscribe`, `tx_search` or `block_search` query (CometBFT's own cap is 512): `maximum query length exceeded`. 0 = no cap.",
      },
      max_query_conditions: {
        ...IsIntAtLeast(0),
        doc: 'Conditions (joined by AND) of a subscribe, tx_search or block_search query.',
        details: 'Conditions (joined by `AND`) of such a query: `maximum query conditions exceeded (<n> > <max>)`. 0 = no cap.',
      },
      max_ws_connections_per_ip: {
        ...IsIntAtLeast(0),
        doc: 'WebSocket connections one client address may hold, per interface.',
        details: 'WebSocket connections one client address may hold, per interface; over it the upgrade gets HTTP 429. 0 = no cap.',
      },
      max_subscriptions_per_ip: {
        ...IsIntAtLeast(0),
        doc: 'Subscriptions (subscribe, eth_subscribe) one client address may hold across its connections, per interface.',
      },
      max_filters_per_ip: {
        ...IsIntAtLeast(0),
        doc: 'EVM polling filters one client address may hold.',
        details: "EVM polling filters one client address may hold (`filter-cap` is the total); past it a new filter gets the node's own `error creating … filter: max limit reached`. 0 = no cap.",
      },
      max_evm_subscriptions_per_connection: {
        ...IsIntAtLeast(0),
        doc: 'eth_subscribe subscriptions one EVM WebSocket connection may hold.',
        details: "`eth_subscribe` subscriptions one EVM WebSocket connection may hold (go-ethereum has no cap; the node RPC's is `[rpc] max_subscriptions_per_client`): `max_evm_subscriptions_per_connection 100 reached`. 0 = no cap.",
      },
      max_unfinished_bytes_per_ip: {
        ...IsIntAtLeast(0),
        doc: 'Bytes of partial HTTP headers and unfinished WebSocket messages one client address may hold.',
        details: "Bytes of partial HTTP request headers and unfinished WebSocket messages the connections of one client address may hold (the peer's address for headers, which come before any `X-Forwarded-For`); the connection that passes it gets HTTP 431, or WebSocket close 1009, and is closed. 0 = no budget.",
      },
      max_unfinished_bytes: {
        ...IsIntAtLeast(0),
        doc: 'Bytes of partial HTTP headers and unfinished WebSocket messages all clients may hold.',
      },
      rpc_header_timeout: {
        ...IsDurationAtLeast(0),
        doc: 'Node RPC: time a client has to send its request headers; 0 = none.',
        details: 'Node RPC listener: time a client has to send its request headers (at most `rpc_read_timeout`); 0 = none.',
      },
      rpc_read_timeout: {
        ...IsDurationAtLeast(0),
        doc: 'Node RPC: time a client has to send a whole request, body included; 0 = none.',
        details: "Node RPC listener: time a client has to send a whole request, body included (CometBFT's `ReadTimeout`); 0 = none.",
      },
      rpc_idle_timeout: {
        ...IsDurationAtLeast(0),
        doc: 'Node RPC: how long an idle keep-alive connection stays open.',
        details: 'Node RPC listener: how long an idle keep-alive connection stays open; 0 = no limit.',
      },
      rpc_write_timeout: {
        ...IsDurationAtLeast(0),
        doc: 'Node RPC: time a call may run before it is answered "request timed out" (raised to let broadcast_tx_commit wait); 0 = none.',
        details: "Node RPC: how long a call (URI, POST, batch member, WebSocket message) may run before it is answered `-32603 Internal error` `request timed out` and its work is aborted (CometBFT's `WriteTimeout`, which drops the connection instead). Raised, as CometBFT raises it, to `[queue] check_timeout` + `[rpc] timeout_broadcast_tx_commit` + 1 s, so broadcast_tx_commit answers its own timeout; 0 = none.",
      },
    },
  }),
  compression: table({
    file: 'gateway.toml',
    title: 'Compression of answers and WebSocket messages, on both interfaces',
    defaults: { http: true, min_bytes: 1024, ws_permessage_deflate: false },
    keys: {
      http: {
        ...IsFlag(),
        doc: 'gzip HTTP answers of min_bytes or more for clients that accept it (Accept-Encoding).',
        details: "gzip HTTP answers of `min_bytes` or more on both interfaces (JSON-RPC, node RPC URI calls) when the client's `Accept-Encoding` allows gzip. Such answers carry `Vary: Accept-Encoding`.",
      },
      min_bytes: {
        ...IsIntAtLeast(0),
        doc: 'Smallest HTTP answer (or WebSocket message) that is compressed, in bytes.',
        details: 'Smallest answer (and WebSocket message, when permessage-deflate is on) that is compressed; smaller ones go as they are.',
      },
      ws_permessage_deflate: {
        ...IsFlag(),
        doc: 'Offer WebSocket permessage-deflate (at most 71 KiB of zlib memory per connection that takes it).',
        details: "Offer WebSocket `permessage-deflate` on both interfaces. zlib memory per connection that takes it: 32 KiB to compress (4 KiB window, memLevel 5), at most 39 KiB to inflate (the client's window).",
      },
    },
  }),
};
