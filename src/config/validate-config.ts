import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ConfigError } from './config-error';
import { fileLabel } from './config-files';
import { EXTRA_NAMESPACES } from './config-choices';
import type { Setting } from './config-sources';
import { tableSpec, type TableName, type TableValue } from './config-tables';
import { renderToml, renderValue } from './config-template';
import { readValue } from './read-value';

/**
 * One table's values: each key from its last setting (read as its kind) or its default, validated
 * against the table's schema. The first bad key, in file order, throws a one-line ConfigError.
 */
export function resolveTable<N extends TableName>(
  name: N,
  settings: ReadonlyMap<string, Setting>,
  extraNamespaces: readonly string[],
): TableValue<N> {
  const spec = tableSpec(name);
  const values: Record<string, unknown> = {};
  for (const [key, keySpec] of Object.entries(spec.keys)) {
    const setting = settings.get(key);
    values[key] = setting ? readValue(keySpec.kind, setting.raw, setting.source) : structuredClone(spec.defaults[key]);
  }

  const instance = plainToInstance(spec.schema, values);
  if (name === 'json-rpc') Object.assign(instance, { [EXTRA_NAMESPACES]: extraNamespaces });
  const errors = validateSync(instance, { stopAtFirstError: true, forbidUnknownValues: true });
  for (const [key, keySpec] of Object.entries(spec.keys)) {
    const error = errors.find((e) => e.property === key);
    if (!error) continue;
    const expected = Object.values(error.constraints ?? {})[0] ?? 'expected a valid value';
    const setting = settings.get(key);
    const where = setting
      ? `${setting.origin}: [${name}] ${setting.name} = ${
          setting.source === 'text' ? JSON.stringify(setting.raw) : renderToml(setting.raw)
        }`
      : `${fileLabel(spec.file)}: [${name}] ${key} = ${renderValue(keySpec.kind, values[key])} (default)`;
    throw new ConfigError(`${where}: ${expected}`);
  }
  return values as TableValue<N>;
}
