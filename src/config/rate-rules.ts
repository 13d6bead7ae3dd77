/** `[[access.rate]]` in `$HOME/config/gateway.toml`: the rate limits, one table per rule (config-tables-entries.ts). */
import { isTomlTable } from './config-files';
import type { RateRule } from './config.types';
import { readEntries, readEntry } from './read-declared';

/** The rules of an already parsed gateway.toml document (none when it has no `[[access.rate]]`). */
export function parseRateRules(doc: Record<string, unknown>): RateRule[] {
  const access = doc.access;
  return isTomlTable(access) ? readEntries('access.rate', access.rate) : [];
}

/** One rule from a table (a keys file's per-key rules are read the same way); `names` must stay distinct. */
export function readRule(entry: Record<string, unknown>, where: string, names: Set<string>, file = 'config/gateway.toml'): RateRule {
  return readEntry('access.rate', entry, { file, label: where }, names);
}
