/** Flags of the plugin suites' gateways: the EVM RPC on ephemeral ports, and /metrics. */
export const EVM_ON = { 'json-rpc.enable': 'true', 'json-rpc.address': '127.0.0.1:0', 'json-rpc.ws-address': '127.0.0.1:0' };
export const METRICS_ON = { 'instrumentation.prometheus': 'true', 'instrumentation.prometheus_listen_addr': '127.0.0.1:0' };
