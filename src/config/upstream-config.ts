/**
 * The `[[upstream.node]]` / `[[upstream.evm]]` lists of `$HOME/config/gateway.toml`, read by their
 * declarations (config-tables-entries.ts); the `[upstream]` settings are a table of config-tables.ts.
 */
import { ConfigError } from './config-error';
import { isTomlTable, readConfigFile } from './config-files';
import { CONFIG_TABLES } from './config-tables';
import type { EntryValue } from './config-tables-entries';
import type { UpstreamSettings } from './config.types';
import { readEntries } from './read-declared';

export type { UpstreamSettings } from './config.types';

/** The built-in `[upstream]` settings. */
export const UPSTREAM_DEFAULTS: Readonly<UpstreamSettings> = CONFIG_TABLES.upstream.defaults;

/** What a pool needs of any upstream entry: a node entry's keys, which an EVM entry has too. */
export type UpstreamEndpoint = Readonly<EntryValue<'upstream.node'>>;

/** `[[upstream.node]]`: `url` is http(s)://host:port of the node RPC; its `/websocket` serves subscriptions. */
export type UpstreamNodeConfig = UpstreamEndpoint;

/** `[[upstream.evm]]`: `url` of the EVM JSON-RPC, `ws` of its WebSocket ("" = no newHeads subscription from it). */
export type UpstreamEvmConfig = Readonly<EntryValue<'upstream.evm'>>;

export interface UpstreamLists {
  readonly nodes: readonly UpstreamNodeConfig[];
  readonly evm: readonly UpstreamEvmConfig[];
}

/** `[upstream]` with its `[[upstream.node]]` and `[[upstream.evm]]` lists. */
export interface UpstreamConfig extends UpstreamLists {
  readonly settings: UpstreamSettings;
}

/** Reads the upstream lists of `home` again (a reload); throws ConfigError on a bad value. */
export function reloadUpstreamLists(home: string): UpstreamLists {
  return parseUpstreamLists(readConfigFile(home, 'gateway.toml'));
}

/** Validates the lists of an already parsed gateway.toml document; URLs lose their trailing slashes. */
export function parseUpstreamLists(doc: Record<string, unknown>): UpstreamLists {
  const section = doc.upstream ?? {};
  if (!isTomlTable(section)) throw new ConfigError(`config/gateway.toml: upstream = ${JSON.stringify(section)}: expected a table [upstream]`);
  const trimmed = <E extends { url: string }>(entry: E): E => ({ ...entry, url: entry.url.replace(/\/+$/, '') });
  return { nodes: readEntries('upstream.node', section.node).map(trimmed), evm: readEntries('upstream.evm', section.evm).map(trimmed) };
}
