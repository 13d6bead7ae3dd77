/**
 * Checks the tables and keys of the three files against what the gateway and a node know. In gateway.toml
 * (the gateway's own file) an unknown table or key stops start-up; in config.toml and app.toml (a node's
 * files, used as they are) it is a warning, and the node's keys that the gateway does not serve are
 * named in one line per file.
 */
import { ConfigError } from './config-error';
import { fileLabel, isTomlTable } from './config-files';
import type { ConfigFileName } from './config-table-spec';
import { CONFIG_TABLES, TABLE_NAMES, tableSpec } from './config-tables';
import { ENTRY_NAMES } from './config-tables-entries';
import { renderToml } from './config-template';
import { nearestName, suggestion } from './nearest-name';
import { NODE_TABLES } from './node-tables';

type Documents = Readonly<Record<ConfigFileName, Record<string, unknown>>>;

/** gateway.toml's arrays of tables (config-tables-entries.ts), as keys of their tables: `upstream: [node, evm]`; their entries' keys are checked as they are read. */
const GATEWAY_EXTRA: Readonly<Record<string, readonly string[]>> = ENTRY_NAMES.reduce<Record<string, string[]>>((extra, dotted) => {
  const [name, key] = dotted.split('.');
  return { ...extra, [name]: [...(extra[name] ?? []), key] };
}, {});

/** The keys each table of a file may hold (the gateway's, their other names, and for a node's file the node's). */
function knownTables(file: ConfigFileName): Map<string, readonly string[]> {
  const tables = new Map<string, string[]>();
  for (const name of TABLE_NAMES.filter((n) => CONFIG_TABLES[n].file === file)) {
    tables.set(name, Object.entries(tableSpec(name).keys).flatMap(([key, spec]) => [key, ...(spec.aliases ?? [])]));
  }
  const extra = file === 'gateway.toml' ? GATEWAY_EXTRA : NODE_TABLES[file].nodeKeys;
  for (const [name, keys] of Object.entries(extra)) tables.set(name, [...(tables.get(name) ?? []), ...keys]);
  return tables;
}

/** The nearest key of `table`, else the nearest `[table] key` of the file's other tables. */
function nearestKey(word: string, table: string | undefined, tables: ReadonlyMap<string, readonly string[]>): string | undefined {
  const own = table === undefined ? undefined : nearestName(word, tables.get(table) ?? []);
  if (own !== undefined) return own;
  const everywhere = [...tables].flatMap(([name, keys]) => keys.map((key) => ({ name, key })));
  const near = nearestName(word, everywhere.map((k) => k.key));
  const found = everywhere.find((k) => k.key === near);
  return found && `[${found.name}] ${found.key}`;
}

/**
 * Throws ConfigError at the first unknown table or key of gateway.toml; returns the warnings about
 * config.toml and app.toml: one per unknown table or key, then one line per file naming the node's keys
 * that the gateway does not serve.
 */
export function checkFileKeys(documents: Documents): string[] {
  checkGatewayFile(documents['gateway.toml']);
  return (['config.toml', 'app.toml'] as const).flatMap((file) => nodeFileWarnings(file, documents[file]));
}

function checkGatewayFile(document: Record<string, unknown>): void {
  const tables = knownTables('gateway.toml');
  for (const [name, value] of Object.entries(document)) {
    const keys = tables.get(name);
    if (keys === undefined) {
      const near = nearestName(name, [...tables.keys()]);
      if (isTomlTable(value)) fail(`[${name}]`, 'unknown table', near && `[${near}]`);
      fail(`${name} = ${renderToml(value)}`, 'unknown key at the top of the file', nearestKey(name, undefined, tables));
    }
    if (!isTomlTable(value)) continue;
    for (const [key, keyValue] of Object.entries(value)) {
      // [plugins.<name>]: a plugin's own table, checked by the plugin.
      if (name === 'plugins' && isTomlTable(keyValue)) continue;
      if (!keys.includes(key)) fail(`[${name}] ${key} = ${renderToml(keyValue)}`, 'unknown key', nearestKey(key, name, tables));
    }
  }
}

function fail(where: string, what: string, near: string | undefined): never {
  throw new ConfigError(`${fileLabel('gateway.toml')}: ${where}: ${what}${suggestion(near)}`);
}

function nodeFileWarnings(file: 'config.toml' | 'app.toml', document: Record<string, unknown>): string[] {
  const label = fileLabel(file);
  const tables = knownTables(file);
  const { nodeKeys, nodeOnly } = NODE_TABLES[file];
  const warnings: string[] = [];
  const notServed: string[] = [];
  for (const [name, value] of Object.entries(document)) {
    // Keys at the top of the file are the node's own (moniker, pruning, minimum-gas-prices, …).
    if (!isTomlTable(value) || nodeOnly.includes(name)) continue;
    const keys = tables.get(name);
    if (keys === undefined) {
      const near = nearestName(name, [...tables.keys(), ...nodeOnly]);
      warnings.push(`${label}: [${name}]: unknown table, ignored${suggestion(near && `[${near}]`)}`);
      continue;
    }
    const present: string[] = [];
    for (const [key, keyValue] of Object.entries(value)) {
      if (isTomlTable(keyValue) && nodeOnly.includes(`${name}.${key}`)) continue;
      if (!keys.includes(key)) warnings.push(`${label}: [${name}] ${key}: unknown key, ignored${suggestion(nearestKey(key, name, tables))}`);
      else if ((nodeKeys[name] ?? []).includes(key)) present.push(key);
    }
    if (present.length > 0) notServed.push(`[${name}]: ${present.join(', ')}`);
  }
  if (notServed.length > 0) {
    const count = notServed.reduce((n, part) => n + part.split(',').length, 0);
    warnings.push(`${file} ${notServed.join('; ')} ${count === 1 ? 'is a node setting' : 'are node settings'} rpc-gateway does not serve`);
  }
  return warnings;
}
