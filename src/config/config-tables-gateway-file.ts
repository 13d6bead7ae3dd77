/** The tables of gateway.toml, the gateway's own file: backend, devnet, queue, cache, filters, plugins, log (traffic: config-tables-gateway-traffic.ts). */
import { table } from './config-table-spec';
import { BACKEND_KINDS, LOG_FORMATS, LOG_LEVELS } from './config-choices';
import { IsDurationAtLeast, IsFlag, IsIntAtLeast, IsMatching, IsNonEmptyText, IsOneOf, IsTextList, IsUrlOrEmpty } from './config-validators';

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
      chain_id: {
        ...IsNonEmptyText(50),
        doc: 'Chain ID of the devnet (at most 50 characters).',
      },
      moniker: { ...IsNonEmptyText(), doc: 'Name of the devnet node.' },
      block_time: {
        ...IsDurationAtLeast(1),
        flag: '<duration>',
        doc: 'Time between blocks.',
        details: 'Time between blocks; more than 0.',
      },
      ephemeral: { ...IsFlag(), flag: '[true|false]', doc: 'Keep the chain in memory only (nothing under $HOME/data).' },
      follow: {
        ...IsUrlOrEmpty(['http', 'https']),
        flag: '<url>',
        doc: 'Node RPC URL of a devnet validator to follow as a full node (its blocks replayed, txs forwarded to it); "" = be the validator.',
        details: 'Node RPC URL (`http://` or `https://`) of a devnet validator to follow as a full node (its blocks replayed, txs forwarded to it; see the README\'s "Follower mode"); `""` = be the validator.',
      },
      mempool_size: { ...IsIntAtLeast(1), doc: 'Transactions the mempool holds.' },
      max_tx_bytes: { ...IsIntAtLeast(1), doc: 'Largest transaction accepted, in bytes.' },
      evm_chain_id: {
        ...IsIntAtLeast(0),
        flag: '<id>',
        doc: 'EIP-155 chain id of the EVM (eth_chainId); 0 = the number in an Evmos-style chain_id (name_9000-1), else 9000.',
        details: 'EIP-155 chain id of the EVM (`eth_chainId`, `net_version`); `0` = the number in an Evmos-style `chain_id` (`name_9000-1`), else 9000. Read at every start: change it only with a new chain, since signed transactions commit to it.',
      },
      block_gas_limit: {
        ...IsIntAtLeast(21_000),
        doc: 'Gas limit of a block; a new genesis writes it as block.max_gas.',
        details: 'Gas limit of a block, at least 21000; a new genesis writes it as `block.max_gas` (an existing chain keeps its genesis).',
      },
      initial_base_fee: {
        ...IsIntAtLeast(0),
        doc: 'EIP-1559 base fee of the first block, in wei.',
        details: 'EIP-1559 base fee of the first block, in wei; later blocks follow EIP-1559.',
      },
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
        details: 'Redis URL (`redis://` or `rediss://`) of a durable queue (BullMQ), shared by replicas and `rpc-gateway worker` processes; `""` = in memory: not durable (the start-up log says so).',
      },
      redis_key_prefix: {
        ...IsMatching(/^[^\s{}]+$/, 'a key prefix without spaces or braces'),
        doc: 'Start of every Redis key of the queue; the backend (node, evm) follows it.',
        details: "Start of every Redis key of the queue; the backend's lane follows it (`rpcgw:queue:node:…`, `rpcgw:queue:evm:…`). Replicas and workers of one queue use the same prefix.",
      },
      workers: {
        ...IsFlag(),
        doc: 'Deliver queued txs from this process; false = only queue them (rpc-gateway worker processes deliver). Always on in memory.',
      },
      concurrency: {
        ...IsIntAtLeast(1),
        doc: 'Deliveries at once per backend (node, evm), per process.',
      },
      rate_limit: {
        ...IsIntAtLeast(0),
        doc: 'Deliveries per second per backend (node, evm), over every worker of the queue; 0 = no limit.',
        details: 'Deliveries started per second per backend lane, over every worker of the queue (at most that many in any one-second window); 0 = no limit.',
      },
      max_attempts: {
        ...IsIntAtLeast(1),
        doc: 'Delivery attempts while the backend is unavailable before a tx lands in the failed set.',
        details: 'Delivery attempts while the backend is unavailable; after the last the tx lands in the failed set (`gateway_queue`), with its reason.',
      },
      retry_backoff: {
        ...IsDurationAtLeast(1),
        doc: 'Wait before the first retry; it doubles at each attempt (with jitter) up to max_retry_backoff.',
      },
      max_retry_backoff: { ...IsDurationAtLeast(1), doc: 'Longest wait between two delivery attempts.' },
      check_timeout: {
        ...IsDurationAtLeast(1),
        doc: "How long broadcast_tx_sync, broadcast_tx_commit and eth_sendRawTransaction wait for the node's check of a queued tx.",
        details: "How long `broadcast_tx_sync`, `broadcast_tx_commit` and `eth_sendRawTransaction` wait for the node's check of a queued tx; past it `eth_sendRawTransaction` answers the hash (the tx stays queued) and the node RPC answers an error saying the tx is queued. See [queue.md](queue.md).",
      },
    },
  }),

  cache: table({
    file: 'gateway.toml',
    title: 'Response cache',
    defaults: { max_bytes: 67_108_864, redis_url: '', redis_ttl: 86_400_000, redis_timeout: 100, redis_key_prefix: 'rpcgw:cache:' },
    keys: {
      max_bytes: { ...IsIntAtLeast(0), doc: "Memory each interface's response cache may use (each upstream pool's, or the embedded devnet's), in bytes; 0 = nothing kept in memory." },
      redis_url: {
        ...IsUrlOrEmpty(['redis', 'rediss']),
        doc: 'Redis URL (redis:// or rediss://) where replicas share immutable answers; "" = memory only.',
      },
      redis_ttl: {
        ...IsDurationAtLeast(0),
        doc: 'How long an answer stays in Redis after it is written; 0 = until Redis evicts it.',
      },
      redis_timeout: { ...IsDurationAtLeast(1), doc: 'Longest wait for a Redis command; a slower or failed one counts as a miss.' },
      redis_key_prefix: {
        ...IsMatching(/^\S*$/, 'a key prefix without spaces'),
        doc: 'Start of every Redis key; the pool (node, evm) and its chain follow it.',
        details: 'Start of every Redis key; the pool (`node`, `evm`) and its chain follow it: `rpcgw:cache:node:cosmoshub-4:block{"height":"5"}`.',
      },
    },
  }),

  filters: table({
    file: 'gateway.toml',
    title: 'EVM polling filters shared by replicas',
    defaults: { shared: true, redis_url: '', redis_key_prefix: 'rpcgw:filters:', pending_max: 10_000 },
    keys: {
      shared: {
        ...IsFlag(),
        doc: 'Keep polling filters in Redis (redis_url, else [cache] redis_url) so every replica serves them; false or no Redis = per replica.',
      },
      redis_url: { ...IsUrlOrEmpty(['redis', 'rediss']), doc: 'Redis URL (redis:// or rediss://) of shared filters; "" = [cache] redis_url.' },
      redis_key_prefix: {
        ...IsMatching(/^\S*$/, 'a key prefix without spaces'),
        doc: 'Start of every Redis key of shared filters.',
        details: 'Start of every Redis key of shared filters (`…f:<id>`, `…leases`, `…pending`). Replicas of one deployment use the same prefix.',
      },
      pending_max: {
        ...IsIntAtLeast(100),
        doc: 'About how many transaction hashes the shared stream of pending-transaction filters keeps.',
        details: 'About how many transaction hashes the shared stream of pending-transaction filters keeps (`XADD MAXLEN ~`); a filter polled less often than that many hashes arrive misses the oldest.',
      },
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
      node_api: {
        ...IsTextList(),
        doc: 'Node RPC categories of plugins that are served (EVM plugin namespaces: [json-rpc] api).',
      },
      blocking_quarantine: {
        ...IsDurationAtLeast(0),
        doc: 'A plugin method whose call holds the event loop this long in one synchronous stretch is taken out of service until restart; 0 = never.',
        details: 'A plugin method one of whose calls holds the event loop this long in one synchronous stretch is taken out of service until the gateway restarts: its later calls answer `plugin method <name> is out of service: …` (see [plugins.md](plugins.md#trust-model-and-isolation)); 0 = never (such calls are only logged and counted).',
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
        details: '`plain`: a start-up banner (version, chain ids, endpoints, dev accounts), one line per devnet block, and readable log lines; `json`: one JSON object a line (pino); `auto`: `plain` when stdout is a terminal, else `json`.',
      },
    },
  }),
};
