import { resolve } from 'node:path';
import type { AppConfig } from './config.types';
import { envSettings, fileSettings, flagSettings, pluginEnv, splitPluginFlags, type Setting } from './config-sources';
import { isTomlTable, readConfigFile } from './config-files';
import { TABLE_NAMES, type TableName } from './config-tables';
import type { ConfigFileName } from './config-table-spec';
import { CONFIG_FILE_NAMES } from './config-template';
import { checkFileKeys } from './file-keys';
import { readTlsFiles } from './tls-files';
import { parseRateRules } from './rate-rules';
import { parseUpstreamLists } from './upstream-config';
import { resolveTable } from './validate-config';

export interface LoadConfigOptions {
  /** The home directory; `config/` under it holds config.toml, app.toml and gateway.toml. */
  home: string;
  /** Usually `process.env`; only `RPCGW_<TABLE>_<KEY>` variables are read. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Dotted flag names to values: `{ 'rpc.laddr': 'tcp://0.0.0.0:26657', 'json-rpc.enable': 'false' }`. */
  flags?: Readonly<Record<string, string>>;
  /**
   * The EVM namespaces of the plugins `[plugins]` loads (the plugin loader), allowed in `[json-rpc] api`
   * besides the built-in ones; called once the `[plugins]` table is resolved.
   */
  pluginNamespaces?: (plugins: AppConfig['gateway']['plugins'], home: string) => readonly string[];
}

/** `[plugins.<name>]` tables of gateway.toml, as written. */
function pluginTables(gatewayToml: Record<string, unknown>): Record<string, Record<string, unknown>> {
  const section = gatewayToml.plugins;
  if (!isTomlTable(section)) return {};
  return Object.fromEntries(Object.entries(section).filter((entry): entry is [string, Record<string, unknown>] => isTomlTable(entry[1])));
}

export interface ResolvedConfig {
  readonly config: AppConfig;
  /** What start-up says about the node's files: unknown tables and keys, node keys not served. */
  readonly warnings: readonly string[];
  /** Where each set `<table>.<key>` came from (`config/app.toml`, `environment RPCGW_…`, `flag --…`); absent = its default. */
  readonly origins: ReadonlyMap<string, string>;
}

/** The resolved configuration: see resolveConfig. */
export function loadConfig(options: LoadConfigOptions): AppConfig {
  return resolveConfig(options).config;
}

/**
 * Resolves the configuration: defaults < files < environment < flags. Each file is read once; missing
 * files are written with the defaults first. Throws ConfigError (one line) on a bad value or on an
 * unknown table or key of gateway.toml.
 */
export function resolveConfig(options: LoadConfigOptions): ResolvedConfig {
  const home = resolve(options.home);
  const documents = Object.fromEntries(CONFIG_FILE_NAMES.map((file) => [file, readConfigFile(home, file)])) as Record<ConfigFileName, Record<string, unknown>>;
  const warnings = checkFileKeys(documents);
  const byTable = new Map<TableName, Map<string, Setting>>(TABLE_NAMES.map((name) => [name, new Map()]));
  const [ownFlags, pluginFlags] = splitPluginFlags(options.flags ?? {});
  const settings = [
    ...fileSettings(documents),
    ...envSettings(options.env ?? {}),
    ...flagSettings(ownFlags),
  ];
  for (const setting of settings) byTable.get(setting.table)?.set(setting.key, setting);
  const origins = new Map(settings.map((s) => [`${s.table}.${s.key}`, s.origin]));

  let extraNamespaces: readonly string[] = [];
  const table = <N extends TableName>(name: N) => resolveTable(name, byTable.get(name) ?? new Map(), extraNamespaces);
  const plugins = { ...table('plugins'), tables: pluginTables(documents['gateway.toml']), overrides: { env: pluginEnv(options.env ?? {}), flags: pluginFlags } };
  extraNamespaces = options.pluginNamespaces?.(plugins, home) ?? [];
  const config: AppConfig = {
    home,
    rpc: table('rpc'),
    instrumentation: table('instrumentation'),
    jsonRpc: table('json-rpc'),
    tls: table('tls'),
    gateway: {
      backend: table('backend'),
      devnet: table('devnet'),
      queue: table('queue'),
      cache: table('cache'),
      filters: table('filters'),
      plugins,
      log: table('log'),
      upstream: { settings: table('upstream'), ...parseUpstreamLists(documents['gateway.toml']) },
      access: { ...table('access'), rate: parseRateRules(documents['gateway.toml']) },
      limits: table('limits'),
      compression: table('compression'),
    },
  };
  // Missing or mismatched certificate files stop start-up (and `config check`) here, in one line.
  readTlsFiles(config, 'node');
  readTlsFiles(config, 'evm');
  return { config, warnings, origins };
}
