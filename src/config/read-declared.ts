/**
 * Reads TOML tables by their declarations, with the loader of every other table: arrays of tables
 * (`[[upstream.node]]`, `[[access.rate]]`, an API key's `[[keys.rate]]`, config-tables-entries.ts) and
 * plugins' own `[plugins.<name>]` tables. An unknown key, a bad value or a name two entries share throws
 * one ConfigError line naming the file, the table or entry, and the key.
 */
import { ConfigError } from './config-error';
import { fileLabel, isTomlTable } from './config-files';
import { entrySpec, type EntryName, type EntryValue } from './config-tables-entries';
import { renderToml } from './config-template';
import { flagKey } from './config-sources';
import { envName } from './config-tables';
import { nearestName, suggestion } from './nearest-name';
import { resolveValues, type Declared, type KeySetting, type Place } from './validate-config';

/** A table's values: its keys, each checked and read by its declaration, over the defaults. */
export function readTable(spec: Declared, table: Readonly<Record<string, unknown>>, place: Place, overrides?: TableOverrides): Record<string, unknown> {
  const known = Object.keys(spec.keys);
  const settings = new Map<string, KeySetting>();
  for (const [key, raw] of Object.entries(table)) {
    if (!known.includes(key)) throw new ConfigError(`${place.file}: ${place.label} ${key} = ${renderToml(raw)}: unknown key${suggestion(nearestName(key, known))}`);
    settings.set(key, { name: key, raw, source: 'toml', origin: place.file });
  }
  if (overrides !== undefined) {
    for (const key of known) {
      const variable = envName(overrides.table, key);
      const raw = overrides.env[variable];
      if (raw !== undefined) settings.set(key, { name: key, raw, source: 'text', origin: `environment ${variable}` });
    }
    for (const [flag, raw] of Object.entries(overrides.flags)) {
      const key = known.find((k) => flagKey(`${overrides.table}.${k}`) === flagKey(flag));
      if (key === undefined) {
        const named = flag.slice(flag.lastIndexOf('.') + 1);
        throw new ConfigError(`flag --set ${flag} = ${JSON.stringify(raw)}: unknown key of ${place.label}${suggestion(nearestName(named, known))}`);
      }
      settings.set(key, { name: key, raw, source: 'text', origin: `flag --set ${flag}` });
    }
  }
  return resolveValues(spec, settings, place);
}

/**
 * What sets a table's keys besides its file, over it: environment variables named as `envName(table, key)`
 * gives them, and flags `<table>.<key>` (those of this table only).
 */
export interface TableOverrides {
  readonly table: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly flags: Readonly<Record<string, string>>;
}

/** The entries of a list as a parsed document holds it (undefined: none). */
export function readEntries<N extends EntryName>(name: N, list: unknown, file = fileLabel(entrySpec(name).file)): EntryValue<N>[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new ConfigError(`${file}: ${name} = ${renderToml(list)}: expected an array of tables [[${name}]]`);
  const taken = new Set<unknown>();
  return list.map((entry: unknown, i) => readEntry(name, entry, { file, label: `[[${name}]] #${i + 1}` }, taken));
}

/** One entry; `taken` holds the values of the declaration's `unique` key of the entries read before it. */
export function readEntry<N extends EntryName>(name: N, entry: unknown, place: Place, taken: Set<unknown>): EntryValue<N> {
  const spec = entrySpec(name);
  if (!isTomlTable(entry)) throw new ConfigError(`${place.file}: ${place.label} = ${renderToml(entry)}: expected a table`);
  const values = readTable(spec, entry, place);
  if (spec.unique !== undefined) {
    const value = values[spec.unique];
    if (taken.has(value)) {
      throw new ConfigError(`${place.file}: ${place.label} ${spec.unique} = ${renderToml(value)}: expected a ${spec.unique} not used by another ${place.label.replace(/ #\d+$/, '')}`);
    }
    taken.add(value);
  }
  return values as EntryValue<N>;
}
