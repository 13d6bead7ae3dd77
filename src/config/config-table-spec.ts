/** The shape of the config tables' data (config-tables.ts): files, value kinds, keys and tables. */

export type ConfigFileName = 'config.toml' | 'app.toml' | 'gateway.toml';

/**
 * How a value is read. `duration`: a Go-style string resolved to milliseconds. `list`: a TOML array
 * (or, from the environment or a flag, a comma-separated string). `comma-list`: a list that a file
 * may also give as one comma-separated string, as Evmos writes `api`.
 */
export type ValueKind = 'string' | 'boolean' | 'integer' | 'number' | 'duration' | 'list' | 'comma-list';

export interface KeySpec {
  readonly kind: ValueKind;
  /** The comment above the key in a written file, its `--help` line and its entry in the docs. */
  readonly doc: string;
  /** Other names the key is read under; the key's own name wins when a file holds both. */
  readonly aliases?: readonly string[];
  /** Environment variables read when `RPCGW_<TABLE>_<KEY>` is not set (e.g. `REDIS_URL`), first found wins. */
  readonly env?: readonly string[];
  /**
   * Has its own `--table.key` option, whose value placeholder in `--help` this is (`[true|false]` for
   * a boolean: the value may be left out). Every key can also be set with `--set table.key=value`.
   */
  readonly flag?: string;
}

export interface TableSpec<T extends object> {
  readonly file: ConfigFileName;
  /** Comment heading above the table in a written file. */
  readonly title: string;
  readonly schema: new () => T;
  readonly defaults: Readonly<T>;
  readonly keys: { readonly [K in keyof T & string]: KeySpec };
}

/** Types a table's spec (its keys are those of its value type). */
export const table = <T extends object>(spec: TableSpec<T>): TableSpec<T> => spec;
