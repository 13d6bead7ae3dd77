import { resolve } from 'node:path';
import type { AppConfig } from './config.types';
import { envSettings, fileSettings, flagSettings, type Setting } from './config-sources';
import { isTomlTable, readConfigFile } from './config-files';
import { TABLE_NAMES, type TableName } from './config-tables';
import type { ConfigFileName } from './config-table-spec';
import { CONFIG_FILE_NAMES } from './config-template';
import { parseRateRules } from './rate-rules';
import { parseUpstreamConfig } from './upstream-config';
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

/**
 * Resolves the configuration: defaults < files < environment < flags. Each file is read once; missing
 * files are written with the defaults first. Throws ConfigError (one line) on a bad value.
 */
export function loadConfig(options: LoadConfigOptions): AppConfig {
  const home = resolve(options.home);
  const documents = Object.fromEntries(CONFIG_FILE_NAMES.map((file) => [file, readConfigFile(home, file)])) as Record<ConfigFileName, Record<string, unknown>>;
  const byTable = new Map<TableName, Map<string, Setting>>(TABLE_NAMES.map((name) => [name, new Map()]));
  const settings = [
    ...fileSettings(documents),
    ...envSettings(options.env ?? {}),
    ...flagSettings(options.flags ?? {}),
  ];
  for (const setting of settings) byTable.get(setting.table)?.set(setting.key, setting);

  let extraNamespaces: readonly string[] = [];
  const table = <N extends TableName>(name: N) => resolveTable(name, byTable.get(name) ?? new Map(), extraNamespaces);
  const plugins = { ...table('plugins'), tables: pluginTables(documents['gateway.toml']) };
  extraNamespaces = options.pluginNamespaces?.(plugins, home) ?? [];
  return {
    home,
    rpc: table('rpc'),
    instrumentation: table('instrumentation'),
    jsonRpc: table('json-rpc'),
    gateway: {
      backend: table('backend'),
      devnet: table('devnet'),
      queue: table('queue'),
      cache: table('cache'),
      filters: table('filters'),
      plugins,
      log: table('log'),
      upstream: parseUpstreamConfig(documents['gateway.toml']),
      access: { ...table('access'), rate: parseRateRules(documents['gateway.toml']) },
      limits: table('limits'),
      compression: table('compression'),
    },
  };
}
