/**
 * `[[access.rate]]` in `$HOME/config/gateway.toml`: the rate limits, one table per rule. A bad value
 * throws one ConfigError line naming the file, the rule, the key, the value and what was expected.
 */
import { ConfigError } from './config-error';
import { isTomlTable } from './config-files';
import type { RateRule } from './config.types';
import { parseDuration } from './duration';
import { nearestName } from './nearest-name';

const FILE = 'config/gateway.toml';
const KEYS = ['name', 'methods', 'per', 'limit', 'window'];
/** Method globs: the characters of method names, and `*`. */
const GLOB = /^[A-Za-z0-9_.*-]+$/;
const NAME = /^[A-Za-z0-9_.:-]+$/;

/** The rules of an already parsed gateway.toml document (none when it has no `[[access.rate]]`). */
export function parseRateRules(doc: Record<string, unknown>): RateRule[] {
  const access = doc.access;
  if (!isTomlTable(access) || access.rate === undefined) return [];
  if (!Array.isArray(access.rate)) throw new ConfigError(`${FILE}: access.rate = ${show(access.rate)}: expected an array of tables [[access.rate]]`);
  const names = new Set<string>();
  return access.rate.map((entry: unknown, i) => {
    const where = `[[access.rate]] #${i + 1}`;
    if (!isTomlTable(entry)) throw new ConfigError(`${FILE}: ${where} = ${show(entry)}: expected a table`);
    return readRule(entry, where, names);
  });
}

/** One rule from a table (a keys file's per-key rules are read the same way); `names` must stay distinct. */
export function readRule(entry: Record<string, unknown>, where: string, names: Set<string>, file = FILE): RateRule {
  const fail = (key: string, expected: string): never => {
    throw new ConfigError(`${file}: ${where} ${key} = ${show(entry[key])}: expected ${expected}`);
  };
  const unknown = Object.keys(entry).find((key) => !KEYS.includes(key));
  if (unknown !== undefined) {
    const near = nearestName(unknown, KEYS);
    fail(unknown, `one of the keys ${KEYS.join(', ')}${near === undefined ? '' : `; did you mean ${near}?`}`);
  }
  const { name, methods, per = 'ip', limit, window } = entry;
  if (typeof name !== 'string' || !NAME.test(name)) fail('name', 'a name of letters, digits and _ . : -');
  if (names.has(name as string)) fail('name', 'a name no other rule has');
  names.add(name as string);
  const globs = typeof methods === 'string' ? [methods] : methods;
  if (!Array.isArray(globs) || globs.length === 0 || !globs.every((g) => typeof g === 'string' && GLOB.test(g))) {
    fail('methods', 'a method name or glob, or an array of them, such as ["eth_getLogs", "debug_*"]');
  }
  if (per !== 'ip' && per !== 'key') fail('per', '"ip" or "key"');
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) fail('limit', 'an integer >= 1');
  const ms = typeof window === 'string' ? parseDuration(window) : undefined;
  if (ms === undefined || ms < 1000 || ms % 1000 !== 0) fail('window', 'a duration of whole seconds, such as "1s" or "1m"');
  return { name: name as string, methods: globs as string[], per: per as RateRule['per'], limit: limit as number, window: ms as number };
}

function show(value: unknown): string {
  if (value === undefined) return '(missing)';
  return typeof value === 'bigint' ? value.toString() : (JSON.stringify(value) ?? String(value));
}
