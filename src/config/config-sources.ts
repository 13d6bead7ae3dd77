/**
 * The three places a key can be set (files, environment, flags), each read into Settings that say
 * where the value came from, for the error message.
 */
import { ConfigError } from './config-error';
import { fileLabel, isTomlTable } from './config-files';
import type { ConfigFileName } from './config-table-spec';
import { CONFIG_TABLES, TABLE_NAMES, envName, flagPlaceholder, tableSpec, type TableName } from './config-tables';
import { CONFIG_FILE_NAMES, renderToml } from './config-template';
import type { RawSource } from './read-value';

export interface Setting {
  table: TableName;
  /** The key's own name. */
  key: string;
  /** The name it was given under (an alias such as `rpc-gas-cap`, or the key). */
  name: string;
  raw: unknown;
  source: RawSource;
  /** `config/app.toml`, `environment RPCGW_…` or `flag --…`. */
  origin: string;
}

interface KeyRef {
  table: TableName;
  key: string;
  name: string;
}

function keyRefs(): KeyRef[] {
  return TABLE_NAMES.flatMap((table) =>
    Object.entries(tableSpec(table).keys).flatMap(([key, spec]) =>
      [key, ...(spec.aliases ?? [])].map((name) => ({ table, key, name })),
    ),
  );
}

/** Settings of the known tables of the three files' documents; other tables and unknown keys are ignored. */
export function fileSettings(documents: Readonly<Record<ConfigFileName, Record<string, unknown>>>): Setting[] {
  const settings: Setting[] = [];
  for (const file of CONFIG_FILE_NAMES) {
    const document = documents[file];
    for (const table of TABLE_NAMES.filter((name) => CONFIG_TABLES[name].file === file)) {
      const values = document[table];
      if (values === undefined) continue;
      if (!isTomlTable(values)) {
        throw new ConfigError(`${fileLabel(file)}: ${table} = ${renderToml(values)}: expected a table [${table}]`);
      }
      for (const [key, spec] of Object.entries(tableSpec(table).keys)) {
        // Aliases first, so that the key's own name wins when both are present.
        for (const name of [...(spec.aliases ?? []), key]) {
          if (Object.hasOwn(values, name)) {
            settings.push({ table, key, name, raw: values[name], source: 'toml', origin: fileLabel(file) });
          }
        }
      }
    }
  }
  return settings;
}

/**
 * `RPCGW_<TABLE>_<KEY>` variables, then a key's other variables (its spec's `env`, e.g. `REDIS_URL`)
 * when none of its own is set; other variables, even with the prefix, are not this loader's.
 */
export function envSettings(env: Readonly<Record<string, string | undefined>>): Setting[] {
  const settings: Setting[] = [];
  for (const ref of keyRefs()) {
    const variable = envName(ref.table, ref.name);
    const raw = env[variable];
    if (raw !== undefined) settings.push({ ...ref, raw, source: 'text', origin: `environment ${variable}` });
  }
  for (const table of TABLE_NAMES) {
    for (const [key, spec] of Object.entries(tableSpec(table).keys)) {
      if (settings.some((s) => s.table === table && s.key === key)) continue;
      const variable = spec.env?.find((name) => env[name] !== undefined);
      if (variable !== undefined) settings.push({ table, key, name: key, raw: env[variable]!, source: 'text', origin: `environment ${variable}` });
    }
  }
  return settings;
}

// Flags match keys whatever the case and whether words are joined by "-" or "_".
export const flagKey = (dotted: string): string => dotted.toLowerCase().replace(/_/g, '-');

/** `plugins.<name>.<key>`: a key of a plugin's own table, which the plugin's declaration reads. */
const isPluginFlag = (dotted: string): boolean => /^plugins\.[^.]+\.[^.]+$/.test(flagKey(dotted));

/** The flags of the gateway's own tables, and those of plugins' tables (`plugins.<name>.<key>`). */
export function splitPluginFlags(flags: Readonly<Record<string, string>>): [Record<string, string>, Record<string, string>] {
  const entries = Object.entries(flags);
  return [Object.fromEntries(entries.filter(([flag]) => !isPluginFlag(flag))), Object.fromEntries(entries.filter(([flag]) => isPluginFlag(flag)))];
}

/** The environment variables that may set plugins' keys (`RPCGW_PLUGINS_…`). */
export function pluginEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[0].startsWith('RPCGW_PLUGINS_') && entry[1] !== undefined));
}

/** Dotted flag names (`rpc.laddr`, `json-rpc.api`) to string values; an unknown key is an error. */
export function flagSettings(flags: Readonly<Record<string, string>>): Setting[] {
  const refs = new Map(keyRefs().map((ref) => [flagKey(`${ref.table}.${ref.name}`), ref]));
  return Object.entries(flags).map(([flag, raw]) => {
    const ref = refs.get(flagKey(flag));
    if (!ref) {
      throw new ConfigError(
        `flag --set ${flag} = ${JSON.stringify(raw)}: expected a known <table>.<key>, e.g. rpc.laddr (see docs/configuration.md)`,
      );
    }
    const named = flagPlaceholder(ref.table, ref.key) !== undefined && ref.name === ref.key;
    const origin = named ? `flag --${ref.table}.${ref.key}` : `flag --set ${flag}`;
    return { ...ref, raw, source: 'text', origin };
  });
}
