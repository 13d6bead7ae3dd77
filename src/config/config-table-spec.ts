/** The shape of the config tables' data (config-tables.ts, config-tables-entries.ts): files, value kinds, keys and tables. */

export type ConfigFileName = 'config.toml' | 'app.toml' | 'gateway.toml';

/**
 * How a value is read. `duration`: a Go-style string resolved to milliseconds. `list`: a TOML array
 * (or, from the environment or a flag, a comma-separated string). `comma-list`: a list that a file
 * may also give as one comma-separated string, as Evmos writes `api`. `uint64`: a node's unsigned 64-bit
 * integer; a value past 2^53−1 is read as 2^53−1.
 */
export type ValueKind = 'string' | 'boolean' | 'integer' | 'uint64' | 'number' | 'duration' | 'list' | 'comma-list';

/**
 * What a validator of config-validators.ts gives a key: how its value is read, the check of its value
 * (a class-validator decorator with its range, its form and its `expected …` text), and its value's type.
 */
export interface Reading<T> {
  readonly kind: ValueKind;
  /** What it expects, as errors end (`expected <what>`) and the docs show its range. */
  readonly what: string;
  readonly check: PropertyDecorator;
  /** Never set: carries the value's TypeScript type to the table's value type. */
  readonly valueType?: T;
}

export interface KeySpec<T> extends Reading<T> {
  /** The comment above the key in a written file, its `--help` line and its entry in the docs. */
  readonly doc: string;
  /** Its fuller description in docs/configuration.md (markdown), where the one-line doc is not enough. */
  readonly details?: string;
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

/** A table's keys, by name. */
export type KeySpecs = { readonly [key: string]: KeySpec<unknown> };

/** The value type of a table, from its keys' readings: `IsOneOf(['ip', 'key'] as const)` gives `'ip' | 'key'`. */
export type ValuesOf<K extends KeySpecs> = { -readonly [P in keyof K]: K[P] extends Reading<infer T> ? T : never };

export interface TableSpec<K extends KeySpecs> {
  readonly file: ConfigFileName;
  /** Comment heading above the table in a written file. */
  readonly title: string;
  /** Every key has its own `--table.key` flag, as the node's command line has (`[rpc]`, `[json-rpc]`). */
  readonly flagEveryKey?: boolean;
  /** Checked against the keys' types, never used to infer them. */
  readonly defaults: Readonly<NoInfer<ValuesOf<K>>>;
  readonly keys: K;
}

/** A table as validation takes it: its spec, and a class-validator class made of its keys' checks. */
export interface CheckedTable<K extends KeySpecs> extends TableSpec<K> {
  readonly schema: new () => ValuesOf<K>;
}

/** Builds a table's validation class from its keys' checks; its value type is inferred from them. */
export function table<K extends KeySpecs>(spec: TableSpec<K>): CheckedTable<K> {
  return { ...spec, schema: schemaOf(spec.keys) };
}

/** A table repeated as a TOML array of tables (`[[access.rate]]`): one entry's keys, no environment or flag form. */
export interface EntryTableSpec<K extends KeySpecs> {
  readonly file: ConfigFileName;
  /** What one entry is, for the docs. */
  readonly title: string;
  /** A key without a default must be set in every entry. */
  readonly defaults: Readonly<NoInfer<Partial<ValuesOf<K>>>>;
  readonly keys: K;
  /** A key whose value no two entries of one list may share. */
  readonly unique?: keyof K & string;
}

export interface CheckedEntryTable<K extends KeySpecs> extends EntryTableSpec<K> {
  readonly schema: new () => ValuesOf<K>;
}

export function entryTable<K extends KeySpecs>(spec: EntryTableSpec<K>): CheckedEntryTable<K> {
  return { ...spec, schema: schemaOf(spec.keys) };
}

function schemaOf<K extends KeySpecs>(keys: K): new () => ValuesOf<K> {
  class Schema {}
  for (const [key, keySpec] of Object.entries<KeySpec<unknown>>(keys)) keySpec.check(Schema.prototype, key);
  return Schema as new () => ValuesOf<K>;
}
