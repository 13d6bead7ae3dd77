/** The tables of a node's own files the gateway reads: config.toml `[rpc]`, `[instrumentation]`; app.toml `[json-rpc]`, `[tls]`. */
import { table } from './config-table-spec';
import { apiNamespaces, OTLP_PROTOCOLS } from './config-choices';
import { IsDurationAtLeast, IsFlag, IsHostPort, IsIntAtLeast, IsIntAtLeastKey, IsListenAddressList, IsMatching, IsNamespaceList, IsNonEmptyText, IsNumberAtLeast, IsNumberBetween, IsOneOf, IsPemPath, IsTextList, IsUint64, IsUrlOrEmpty } from './config-validators';

export const NODE_FILE_TABLES = {
  rpc: table({
    file: 'config.toml',
    title: 'Node RPC server (CometBFT [rpc])',
    flagEveryKey: true,
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
      tls_cert_file: '',
      tls_key_file: '',
    },
    keys: {
      laddr: {
        ...IsListenAddressList(),
        flag: '<addrs>',
        doc: 'Addresses to listen on, comma-separated: tcp://host:port or unix:///path.',
        details: 'Addresses to listen on, comma-separated: `tcp://host:port` or `unix:///path`; the gateway listens on each. Port 0 picks a free port.',
      },
      cors_allowed_origins: {
        ...IsTextList(),
        doc: 'Origins allowed to make cross-origin requests; [] = CORS off, "*" = any.',
      },
      cors_allowed_methods: { ...IsTextList(), doc: 'HTTP methods allowed in cross-origin requests.' },
      cors_allowed_headers: { ...IsTextList(), doc: 'Request headers allowed in cross-origin requests.' },
      unsafe: {
        ...IsFlag(),
        flag: '[true|false]',
        doc: 'Serve the unsafe methods dial_seeds, dial_peers and unsafe_flush_mempool.',
        details: 'Serve the unsafe methods `dial_seeds`, `dial_peers` and `unsafe_flush_mempool`; when off they do not exist (method not found).',
      },
      max_open_connections: {
        ...IsIntAtLeast(0),
        doc: 'Simultaneous HTTP and WebSocket connections; 0 = unlimited; one more gets HTTP 503 at once.',
        details: 'Simultaneous HTTP and WebSocket connections together; 0 = unlimited. A connection over the limit gets HTTP 503 with a JSON-RPC error at once and is closed.',
      },
      max_subscription_clients: { ...IsIntAtLeast(0), doc: 'Distinct clients that may hold subscriptions at once.' },
      max_subscriptions_per_client: { ...IsIntAtLeast(0), doc: 'Subscriptions one client may hold at once.' },
      experimental_subscription_buffer_size: {
        ...IsIntAtLeast(100),
        doc: 'Events buffered per subscription before it is cancelled as too slow (>= 100).',
      },
      experimental_websocket_write_buffer_size: {
        ...IsIntAtLeastKey('experimental_subscription_buffer_size'),
        doc: 'Messages queued per WebSocket connection (>= experimental_subscription_buffer_size).',
      },
      experimental_close_on_slow_client: {
        ...IsFlag(),
        doc: 'Cancel a subscription whose event cannot be delivered within 10s, instead of dropping the event.',
      },
      timeout_broadcast_tx_commit: {
        ...IsDurationAtLeast(0),
        doc: 'How long broadcast_tx_commit waits for the block.',
      },
      max_request_batch_size: { ...IsIntAtLeast(0), doc: 'Requests allowed in one JSON-RPC batch; 0 = unlimited.' },
      max_body_bytes: { ...IsIntAtLeast(0), doc: 'Largest HTTP request body or WebSocket message, in bytes.' },
      max_header_bytes: { ...IsIntAtLeast(0), doc: 'Largest HTTP request header, in bytes.' },
      tls_cert_file: {
        ...IsMatching(/^.*$/, 'a path (relative to config/) or ""'),
        doc: 'PEM certificate (chain) of HTTPS and WSS on laddr, absolute or relative to the config/ dir; with tls_key_file, else plain HTTP.',
        details: 'PEM certificate (chain), absolute or relative to the `config/` dir as CometBFT reads it. With `tls_key_file`, every `laddr` serves HTTPS, and WSS on `/websocket` of the same port; one without the other, an unreadable file or a key that does not match stops start-up with one line.',
      },
      tls_key_file: { ...IsMatching(/^.*$/, 'a path (relative to config/) or ""'), doc: 'PEM private key of tls_cert_file, absolute or relative to the config/ dir.' },
    },
  }),

  instrumentation: table({
    file: 'config.toml',
    title: 'Prometheus metrics (CometBFT [instrumentation]) and OpenTelemetry traces',
    defaults: {
      prometheus: false,
      prometheus_listen_addr: ':26660',
      max_open_connections: 3,
      namespace: 'rpcgw',
      otlp_traces_endpoint: '',
      otlp_protocol: 'http/protobuf',
      trace_sample_ratio: 1,
      trace_service_name: 'rpc-gateway',
    },
    keys: {
      prometheus: { ...IsFlag(), flag: '[true|false]', doc: 'Serve Prometheus metrics.' },
      prometheus_listen_addr: {
        ...IsHostPort(),
        doc: 'Address of the metrics server, host:port (empty host = all interfaces).',
      },
      max_open_connections: { ...IsIntAtLeast(0), doc: 'Simultaneous connections to the metrics server; 0 = unlimited.' },
      namespace: {
        ...IsMatching(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a metric name prefix [A-Za-z_][A-Za-z0-9_]*'),
        doc: 'Metric names are <namespace>_<name>, e.g. rpcgw_requests_total.',
        details: 'Prefix of every metric name of the gateway\'s own: `<namespace>_requests_total`, … (`[A-Za-z_][A-Za-z0-9_]*`); the standard process and Node.js families keep their names (`process_cpu_seconds_total`, `nodejs_heap_size_used_bytes`, …). CometBFT\'s own config.toml sets `"cometbft"`; the Grafana dashboard in `helm/dashboards/` expects the default.',
      },
      otlp_traces_endpoint: {
        ...IsUrlOrEmpty(['http', 'https']),
        doc: 'OTLP collector URL spans are exported to (http/*: its /v1/traces URL; grpc: http://host:4317); "" = tracing off unless OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set.',
        details: "OTLP collector the spans are exported to: its traces URL for `http/*` (`http://otel-collector:4318/v1/traces`), `http://host:4317` for `grpc`. Empty: tracing is off unless the standard `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set. Either variable, when set, wins over this key and `otlp_protocol`: the SDK then reads the exporter's settings from the `OTEL_*` environment. See the README's Tracing section.",
      },
      otlp_protocol: { ...IsOneOf(OTLP_PROTOCOLS), doc: 'How spans reach otlp_traces_endpoint: http/protobuf, http/json or grpc.' },
      trace_sample_ratio: {
        ...IsNumberBetween(0, 1),
        doc: "Share of new traces recorded, 0 to 1; a client's sampled flag is followed (OTEL_TRACES_SAMPLER wins when set).",
      },
      trace_service_name: {
        ...IsNonEmptyText(),
        doc: 'service.name of the spans (OTEL_SERVICE_NAME wins when set).',
        details: '`service.name` of the spans; `OTEL_SERVICE_NAME` (or `service.name` in `OTEL_RESOURCE_ATTRIBUTES`) wins when set.',
      },
    },
  }),

  'json-rpc': table({
    file: 'app.toml',
    title: 'EVM JSON-RPC server (Evmos app.toml [json-rpc])',
    flagEveryKey: true,
    defaults: {
      enable: true,
      address: '127.0.0.1:8545',
      'ws-address': '127.0.0.1:8546',
      api: ['eth', 'net', 'web3'],
      'gas-cap': 25_000_000,
      'allow-insecure-unlock': true,
      'evm-timeout': 10_000,
      'txfee-cap': 1,
      'filter-cap': 200,
      'feehistory-cap': 100,
      'logs-cap': 10_000,
      'block-range-cap': 10_000,
      'http-timeout': 30_000,
      'http-idle-timeout': 120_000,
      'http-body-limit': 5_242_880,
      'allow-unprotected-txs': false,
      'max-open-connections': 0,
      'batch-request-limit': 1_000,
      'batch-response-max-size': 25_000_000,
      'ws-origins': ['127.0.0.1', 'localhost'],
      'filter-timeout': 300_000,
      'filter-cleanup-interval': 30_000,
      'enable-profiling': false,
      'profile-max-size': 128_000_000,
      'profile-dir-max-size': 512_000_000,
      'trace-response-max-size': 25_000_000,
    },
    keys: {
      enable: {
        ...IsFlag(),
        flag: '[true|false]',
        doc: 'Serve the EVM JSON-RPC over HTTP and WebSocket.',
        details: "Serve the EVM JSON-RPC over HTTP and WebSocket. On by default so a devnet gets it (Evmos's own default is off).",
      },
      address: { ...IsHostPort(), flag: '<host:port>', doc: 'HTTP listen address, host:port.' },
      'ws-address': { ...IsHostPort(), flag: '<host:port>', doc: 'WebSocket listen address, host:port.' },
      api: {
        ...IsNamespaceList(apiNamespaces),
        flag: '<a,b,…>',
        doc: 'Namespaces served, comma-separated: eth, web3, net, txpool, debug, personal, admin, miner, or a plugin\'s.',
        details: 'Namespaces served: a comma-separated string or a TOML array of `eth`, `web3`, `net`, `txpool`, `debug`, `personal`, `admin`, `miner`, or a namespace a plugin registers. Repeated or unknown names are errors, and so is an empty list while `enable = true`. Expose `debug` only outside production.',
      },
      'gas-cap': {
        ...IsUint64(),
        aliases: ['rpc-gas-cap'],
        doc: 'Gas cap of eth_call and eth_estimateGas, up to 2^64-1 as the node takes it; 0 = no cap (also read as rpc-gas-cap).',
        details: "Gas cap of `eth_call` and `eth_estimateGas`; 0 = no cap. Any value up to 2^64−1 is taken, as the node's uint64 is (`9223372036854775807` included); past 2^53−1 it is read as 2^53−1, no practical cap. Also read as `rpc-gas-cap` (`RPCGW_JSON_RPC_RPC_GAS_CAP`, `--set json-rpc.rpc-gas-cap=…`); in one file `gas-cap` wins over `rpc-gas-cap`.",
      },
      'allow-insecure-unlock': {
        ...IsFlag(),
        doc: 'Let node-held keys sign and be listed over the RPC (eth_sendTransaction, eth_accounts, personal_listAccounts, personal_sendTransaction, miner_setEtherbase); false = refused as Evmos does.',
        details: "Evmos's key (and its default): let node-held keys (the devnet's dev accounts) sign and be listed over the RPC. `false`: `eth_sendTransaction`, `eth_accounts`, `personal_listAccounts` and `personal_sendTransaction` answer `-32000 account unlock with HTTP access is forbidden` on HTTP and WebSocket alike, and `miner_setEtherbase` answers `false`, as Evmos does. Turn it off on a public endpoint.",
      },
      'evm-timeout': { ...IsDurationAtLeast(0), doc: 'Deadline of an eth_call; 0 = none.' },
      'txfee-cap': { ...IsNumberAtLeast(0), doc: 'Largest fee, in ether, of a transaction sent through the RPC; 0 = no cap.' },
      'filter-cap': {
        ...IsIntAtLeast(0),
        doc: 'Polling filters alive at once, across all clients.',
      },
      'feehistory-cap': {
        ...IsIntAtLeast(1),
        doc: 'Largest blockCount of eth_feeHistory (>= 1).',
      },
      'logs-cap': { ...IsIntAtLeast(0), doc: 'Most logs returned by eth_getLogs or eth_getFilterLogs.' },
      'block-range-cap': {
        ...IsIntAtLeast(0),
        doc: 'Largest block range (to - from) of a logs query.',
      },
      'http-timeout': {
        ...IsDurationAtLeast(0),
        doc: 'Read and write timeout of an HTTP request; also how long any EVM call (HTTP, batch member, WebSocket message) may run before -32002 request timed out.',
      },
      'http-idle-timeout': { ...IsDurationAtLeast(0), doc: 'How long an idle keep-alive connection stays open.' },
      'http-body-limit': {
        ...IsIntAtLeast(1),
        doc: 'Largest HTTP request body, in bytes; a larger one gets HTTP 413 (cosmos/evm).',
        details: "cosmos/evm's key: largest HTTP request body, in bytes; a larger one gets HTTP 413 `content length too large`. At least 1.",
      },
      'allow-unprotected-txs': { ...IsFlag(), doc: 'Accept raw transactions without EIP-155 replay protection.' },
      'max-open-connections': {
        ...IsIntAtLeast(0),
        doc: 'Simultaneous HTTP connections; 0 = unlimited; one more gets HTTP 503 at once.',
        details: 'Simultaneous HTTP connections; 0 = unlimited. A connection over the limit gets HTTP 503 with a JSON-RPC error at once and is closed.',
      },
      'batch-request-limit': { ...IsIntAtLeast(0), doc: 'Requests allowed in one batch; 0 = unlimited.' },
      'batch-response-max-size': {
        ...IsIntAtLeast(0),
        doc: 'Bytes of results one batch may return; 0 = unlimited.',
        details: 'Bytes of results one batch may return before it is cut short; 0 = unlimited.',
      },
      'filter-timeout': {
        ...IsDurationAtLeast(1),
        doc: 'How long a polling filter lives without being polled (cosmos/evm; Evmos: 5m).',
        details: "cosmos/evm's key: how long a polling filter lives without `eth_getFilterChanges` (Evmos: a fixed 5 minutes). More than 0.",
      },
      'filter-cleanup-interval': {
        ...IsDurationAtLeast(1),
        doc: 'How often expired polling filters are removed (cosmos/evm); a filter goes at most this long after filter-timeout.',
      },
      'ws-origins': {
        ...IsTextList(),
        doc: 'Origin hostnames allowed to open a WebSocket; a request without Origin is allowed.',
      },
      'enable-profiling': {
        ...IsFlag(),
        doc: 'Serve the debug runtime methods (memStats, stacks, profiles written under $HOME/profiles), as [rpc] unsafe = true does too; never on a public endpoint.',
        details: "Serve the `debug` runtime methods (`debug_memStats`, `debug_stacks`, the profile writers, …), cosmos/evm's key; also on with `[rpc] unsafe = true`. Off, each answers `-32000 profiling disabled in the debug namespace`. Never on a public endpoint ([evm-rpc.md](evm-rpc.md#debug-runtime-methods)).",
      },
      'profile-max-size': {
        ...IsIntAtLeast(1),
        doc: 'Largest profile file one debug_write*/debug_*Profile call may write, in bytes.',
        details: 'Largest file, in bytes, one profile writer may write under `$HOME/profiles`; a profile past it is refused (a heap snapshot is cut off and removed). At least 1.',
      },
      'profile-dir-max-size': {
        ...IsIntAtLeast(1),
        doc: 'Bytes all files under $HOME/profiles may take; past it profile writes are refused.',
        details: 'Bytes all files under `$HOME/profiles` may take; once reached, every profile write is refused until files are removed. At least 1.',
      },
      'trace-response-max-size': {
        ...IsIntAtLeast(0),
        doc: 'Bytes of output one debug_trace* call may produce; 0 = unlimited.',
        details: 'Bytes of output one `debug_trace*` call may produce; past it the call stops and answers `-32003 response too large`. 0 = unlimited.',
      },
    },
  }),

  tls: table({
    file: 'app.toml',
    title: 'TLS of the EVM JSON-RPC (Evmos app.toml [tls])',
    flagEveryKey: true,
    defaults: { 'certificate-path': '', 'key-path': '' },
    keys: {
      'certificate-path': {
        ...IsPemPath(),
        doc: 'PEM certificate (chain) of HTTPS on address and WSS on ws-address, absolute or relative to the config/ dir; with key-path, else plain HTTP.',
        details: 'PEM certificate (chain) ending in `.pem` (as Evmos checks), absolute or relative to the `config/` dir. With `key-path`, `address` serves HTTPS and `ws-address` WSS; one without the other, an unreadable file or a key that does not match stops start-up with one line.',
      },
      'key-path': {
        ...IsPemPath(),
        doc: 'PEM private key of certificate-path, absolute or relative to the config/ dir.',
      },
    },
  }),
};
