/**
 * Every table and key the gateway reads, as data: the file it lives in, how its value is read and
 * checked (its validator), its default and a one-line description. The types, the written default files,
 * the environment and flag names, the `--help` text, validation and the docs' key reference all come
 * from here; the arrays of tables (`[[upstream.node]]`, `[[access.rate]]`) are in config-tables-entries.ts.
 */
import type { CheckedTable, KeySpecs, ValueKind, ValuesOf } from './config-table-spec';
import { GATEWAY_FILE_TABLES } from './config-tables-gateway-file';
import { GATEWAY_TRAFFIC_TABLES } from './config-tables-gateway-traffic';
import { NODE_FILE_TABLES } from './config-tables-node-files';

export const CONFIG_TABLES = { ...NODE_FILE_TABLES, ...GATEWAY_FILE_TABLES, ...GATEWAY_TRAFFIC_TABLES };

export type TableName = keyof typeof CONFIG_TABLES;

/** A table's value type, inferred from its declaration. */
export type TableValue<N extends TableName> = ValuesOf<(typeof CONFIG_TABLES)[N]['keys']>;

export type TableValues = { [N in TableName]: TableValue<N> };

export const TABLE_NAMES = Object.keys(CONFIG_TABLES) as TableName[];

/** Loosely typed view of a table, for code that walks every key. */
export function tableSpec(name: TableName): CheckedTable<KeySpecs> {
  return CONFIG_TABLES[name];
}

const PLACEHOLDERS: Readonly<Record<ValueKind, string>> = {
  string: '<value>',
  boolean: '[true|false]',
  integer: '<n>',
  uint64: '<n>',
  number: '<n>',
  duration: '<duration>',
  list: '<a,b,…>',
  'comma-list': '<a,b,…>',
};

/** The value placeholder of a key's own `--table.key` flag, or undefined when only `--set` sets it. */
export function flagPlaceholder(tableName: TableName, key: string): string | undefined {
  const spec = tableSpec(tableName);
  const keySpec = spec.keys[key];
  return keySpec.flag ?? (spec.flagEveryKey ? PLACEHOLDERS[keySpec.kind] : undefined);
}

/** `RPCGW_<TABLE>_<KEY>`: upper case, `-` and `.` turned to `_`. */
export function envName(tableName: string, key: string): string {
  return `RPCGW_${tableName}_${key}`.toUpperCase().replace(/[-.]/g, '_');
}
