/** `[instrumentation]` of config.toml: CometBFT's Prometheus keys, and the gateway's OpenTelemetry traces. */
import { table } from './config-table-spec';
import type { InstrumentationConfig } from './config.types';
import { InstrumentationConfigSchema } from './config.schema';

export const INSTRUMENTATION_TABLE = table<InstrumentationConfig>({
  file: 'config.toml',
  title: 'Prometheus metrics (CometBFT [instrumentation]) and OpenTelemetry traces',
  schema: InstrumentationConfigSchema,
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
    prometheus: { kind: 'boolean', flag: '[true|false]', doc: 'Serve Prometheus metrics.' },
    prometheus_listen_addr: { kind: 'string', doc: 'Address of the metrics server, host:port (empty host = all interfaces).' },
    max_open_connections: { kind: 'integer', doc: 'Simultaneous connections to the metrics server; 0 = unlimited.' },
    namespace: { kind: 'string', doc: 'Metric names are <namespace>_<name>, e.g. rpcgw_requests_total.' },
    otlp_traces_endpoint: {
      kind: 'string',
      doc: 'OTLP collector URL spans are exported to (http/*: its /v1/traces URL; grpc: http://host:4317); "" = tracing off unless OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set.',
    },
    otlp_protocol: { kind: 'string', doc: 'How spans reach otlp_traces_endpoint: http/protobuf, http/json or grpc.' },
    trace_sample_ratio: { kind: 'number', doc: 'Share of new traces recorded, 0 to 1; a client\'s sampled flag is followed (OTEL_TRACES_SAMPLER wins when set).' },
    trace_service_name: { kind: 'string', doc: 'service.name of the spans (OTEL_SERVICE_NAME wins when set).' },
  },
});
