import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ConfigError } from './config-error';
import { fileLabel } from './config-files';
import { EXTRA_NAMESPACES } from './config-choices';
import type { Setting } from './config-sources';
import type { KeySpecs } from './config-table-spec';
import { tableSpec, type TableName, type TableValue } from './config-tables';
import { renderToml, renderValue } from './config-template';
import { readValue } from './read-value';

/** A key's setting: its raw value, the name it was given under, how it was read and where. */
export type KeySetting = Pick<Setting, 'name' | 'raw' | 'source' | 'origin'>;

/** What values are resolved against: a table's or an entry's keys, defaults and validation class. */
export interface Declared {
  readonly keys: KeySpecs;
  readonly defaults: Readonly<Record<string, unknown>>;
  readonly schema: new () => object;
}

/** Where resolved values live, for errors: the file a default is named in (`config/app.toml`), and `[json-rpc]` or `[[access.rate]] #2`. */
export interface Place {
  readonly file: string;
  readonly label: string;
}

/**
 * The values of a table or an entry: each key from its setting (read as its kind), else its default,
 * validated against the schema (with `extra` on the instance, for checks that need more than the
 * values). The first bad key, in declaration order, throws a one-line ConfigError naming where its value
 * came from, the key, the value and what was expected; a key with neither setting nor default is `(missing)`.
 */
export function resolveValues(spec: Declared, settings: ReadonlyMap<string, KeySetting>, place: Place, extra?: object): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [key, keySpec] of Object.entries(spec.keys)) {
    const setting = settings.get(key);
    values[key] = setting ? readValue(keySpec.kind, setting.raw, setting.source) : structuredClone(spec.defaults[key]);
  }

  const instance = Object.assign(plainToInstance(spec.schema, values), extra);
  const errors = validateSync(instance, { stopAtFirstError: true, forbidUnknownValues: true });
  for (const [key, keySpec] of Object.entries(spec.keys)) {
    const error = errors.find((e) => e.property === key);
    if (!error) continue;
    const expected = Object.values(error.constraints ?? {})[0] ?? 'expected a valid value';
    const setting = settings.get(key);
    const where = setting
      ? `${setting.origin}: ${place.label} ${setting.name} = ${setting.source === 'text' ? JSON.stringify(setting.raw) : renderToml(setting.raw)}`
      : Object.hasOwn(spec.defaults, key)
        ? `${place.file}: ${place.label} ${key} = ${renderValue(keySpec.kind, values[key])} (default)`
        : `${place.file}: ${place.label} ${key} = (missing)`;
    throw new ConfigError(`${where}: ${expected}`);
  }
  return values;
}

/** One table's values from its settings: see resolveValues. */
export function resolveTable<N extends TableName>(
  name: N,
  settings: ReadonlyMap<string, Setting>,
  extraNamespaces: readonly string[],
): TableValue<N> {
  const spec = tableSpec(name);
  const extra = name === 'json-rpc' ? { [EXTRA_NAMESPACES]: extraNamespaces } : undefined;
  return resolveValues(spec, settings, { file: fileLabel(spec.file), label: `[${name}]` }, extra) as TableValue<N>;
}
