/**
 * The gateway's resolved configuration. Each table's type is inferred from its declaration
 * (config-tables-*.ts), whose docs describe its keys; keys keep the names they have in the node's own
 * files (config.toml `[rpc]`, app.toml `[json-rpc]`) so operators can reuse what they have, and
 * durations are resolved to milliseconds.
 */
import type { TableValue } from './config-tables';
import type { EntryValue } from './config-tables-entries';
import type { UpstreamConfig } from './upstream-config';

/** `[rpc]` of `$HOME/config/config.toml` (CometBFT). */
export type RpcConfig = TableValue<'rpc'>;

/** `[instrumentation]` of config.toml. */
export type InstrumentationConfig = TableValue<'instrumentation'>;

/** `[json-rpc]` of `$HOME/config/app.toml` (Evmos, cosmos/evm). */
export type JsonRpcConfig = TableValue<'json-rpc'>;

/** `[tls]` of app.toml: HTTPS and WSS of the EVM JSON-RPC. */
export type TlsConfig = TableValue<'tls'>;

export type BackendKind = TableValue<'backend'>['kind'];

/** `[upstream]` of gateway.toml: how the pools treat their upstreams. */
export type UpstreamSettings = TableValue<'upstream'>;

/** One `[[access.rate]]` rule: at most `limit` calls of the matching methods per `window`, per client. */
export type RateRule = EntryValue<'access.rate'>;

/** `[access]` of gateway.toml with its `[[access.rate]]` rules, in file order. */
export type AccessConfig = TableValue<'access'> & { rate: RateRule[] };

/** `[limits]` of gateway.toml. */
export type LimitsConfig = TableValue<'limits'>;

/**
 * Plugin keys set outside gateway.toml: `RPCGW_PLUGINS_<NAME>_<KEY>` variables and `--set
 * plugins.<name>.<key>=…` flags, read by each plugin's declaration when the plugin is loaded.
 */
export interface PluginOverrides {
  readonly env: Readonly<Record<string, string>>;
  readonly flags: Readonly<Record<string, string>>;
}

/** `gateway.toml`: what belongs to the gateway itself. */
export interface GatewayOwnConfig {
  backend: TableValue<'backend'>;
  devnet: TableValue<'devnet'>;
  queue: TableValue<'queue'>;
  cache: TableValue<'cache'>;
  filters: TableValue<'filters'>;
  /** `[plugins]`, and each plugin's own `[plugins.<name>]` table as written (the plugin validates it). */
  plugins: TableValue<'plugins'> & { tables: Record<string, Record<string, unknown>>; overrides: PluginOverrides };
  log: TableValue<'log'>;
  /** `[upstream]` with its `[[upstream.node]]` and `[[upstream.evm]]` lists. */
  upstream: UpstreamConfig;
  access: AccessConfig;
  limits: LimitsConfig;
  compression: TableValue<'compression'>;
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
