import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { Redis } from 'ioredis';
import { parse as parseToml, TomlError } from 'smol-toml';
import { ConfigError } from '../config/config-error';
import { isTomlTable } from '../config/config-files';
import type { RateRule } from '../config/config.types';
import { readRule } from '../config/rate-rules';
import type { CallerKey } from '../rpc/call-context';

/** An API key as the gateway holds it: what it grants, never the secret (only its SHA-256). */
export interface KeyRecord extends CallerKey {
  /** Never rate limited. */
  readonly exempt: boolean;
  /** The key's own budget: replaces the `per = "key"` rules of `[[access.rate]]` for this key. */
  readonly rate?: readonly RateRule[];
}

/** Why a key lookup found nothing usable. */
export type KeyLookup = KeyRecord | 'unknown' | 'unavailable';

/** Where keys are looked up (a file, Redis). */
export interface KeySource {
  find(hash: string): KeyLookup | Promise<KeyLookup>;
}

/** The SHA-256 of a key, hex: how keys are indexed, in memory and in Redis. */
export function keyHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

const ENTRY_KEYS = ['name', 'key', 'sha256', 'namespaces', 'unsafe', 'exempt', 'rate'];
const NAME = /^[A-Za-z0-9_.:@-]+$/;

/**
 * The keys file: `[[keys]]` tables (TOML) or `{"keys": [...]}` (JSON), each with a `name`, the `key`
 * itself or its `sha256`, and optionally `namespaces`, `unsafe`, `exempt` and `[[keys.rate]]` rules.
 * Read once at start; a bad entry stops start-up with one line.
 */
export class FileKeys implements KeySource {
  private readonly byHash = new Map<string, KeyRecord>();

  constructor(home: string, file: string) {
    const path = isAbsolute(file) ? file : join(home, file);
    const label = `[access] keys_file ${file}`;
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new ConfigError(`${label}: cannot read: ${(err as Error).message}`);
    }
    let doc: unknown;
    try {
      doc = path.endsWith('.json') ? JSON.parse(text) : parseToml(text);
    } catch (err) {
      const reason = err instanceof TomlError ? `line ${err.line}: ${err.message.split('\n')[0]}` : (err as Error).message;
      throw new ConfigError(`${label}: invalid ${path.endsWith('.json') ? 'JSON' : 'TOML'}: ${reason}`);
    }
    const entries = (doc as { keys?: unknown }).keys;
    if (!Array.isArray(entries)) throw new ConfigError(`${label}: expected a list of keys ([[keys]] in TOML, "keys": [...] in JSON)`);
    const names = new Set<string>();
    entries.forEach((entry: unknown, i) => {
      const where = `${label}: key #${i + 1}`;
      const { hash, record } = readKeyEntry(entry, where);
      if (names.has(record.name)) throw new ConfigError(`${where}: name ${JSON.stringify(record.name)}: expected a name no other key has`);
      if (this.byHash.has(hash)) throw new ConfigError(`${where}: the same key as another entry`);
      names.add(record.name);
      this.byHash.set(hash, record);
    });
  }

  get size(): number {
    return this.byHash.size;
  }

  /** The method groups (namespaces, categories) the keys open between them. */
  grants(): { readonly groups: ReadonlySet<string> } {
    return { groups: new Set([...this.byHash.values()].flatMap((r) => [...r.groups])) };
  }

  find(hash: string): KeyLookup {
    return this.byHash.get(hash) ?? 'unknown';
  }
}

function readKeyEntry(entry: unknown, where: string): { hash: string; record: KeyRecord } {
  const fail = (what: string): never => {
    throw new ConfigError(`${where}: ${what}`);
  };
  if (!isTomlTable(entry)) return fail('expected a table');
  const unknown = Object.keys(entry).find((k) => !ENTRY_KEYS.includes(k));
  if (unknown !== undefined) fail(`${unknown}: expected one of the keys ${ENTRY_KEYS.join(', ')}`);
  const { name, key, sha256, namespaces = [], unsafe = false, exempt = false, rate } = entry;
  if (typeof name !== 'string' || !NAME.test(name)) fail('name: expected a name of letters, digits and _ . : @ -');
  let hash: string;
  if (typeof key === 'string' && key.length >= 8 && sha256 === undefined) hash = keyHash(key);
  else if (typeof sha256 === 'string' && /^[0-9a-fA-F]{64}$/.test(sha256) && key === undefined) hash = sha256.toLowerCase();
  else return fail('expected either key (at least 8 characters) or sha256 (the key\'s SHA-256, 64 hex digits)');
  if (!Array.isArray(namespaces) || !namespaces.every((n) => typeof n === 'string')) fail('namespaces: expected an array of namespace or category names');
  if (typeof unsafe !== 'boolean') fail('unsafe: expected true or false');
  if (typeof exempt !== 'boolean') fail('exempt: expected true or false');
  let rules: RateRule[] | undefined;
  if (rate !== undefined) {
    if (!Array.isArray(rate)) fail('rate: expected an array of rules ([[keys.rate]])');
    const names = new Set<string>();
    rules = (rate as unknown[]).map((rule, i) => {
      if (!isTomlTable(rule)) return fail(`rate #${i + 1}: expected a table`);
      return readRule(rule, `rate #${i + 1}`, names, where);
    });
  }
  return { hash, record: { name: name as string, groups: new Set(namespaces as string[]), unsafe: unsafe as boolean, exempt: exempt as boolean, rate: rules } };
}

/**
 * Keys in Redis, shared by replicas and changed without a restart: a hash at
 * `<prefix>key:<sha256 of the key>` with `name` and optionally `namespaces` (comma-separated),
 * `unsafe`, `exempt` ("true"/"false") and `rate` (a JSON array of rules). Each answer (a miss too) is
 * remembered for `ttlMs`; while Redis cannot be reached, a key seen before keeps its last answer.
 */
export class RedisKeys implements KeySource {
  private readonly cache = new Map<string, { lookup: KeyRecord | 'unknown'; until: number }>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlMs: number,
  ) {}

  find(hash: string): KeyLookup | Promise<KeyLookup> {
    const cached = this.cache.get(hash);
    if (cached !== undefined && cached.until > Date.now()) return cached.lookup;
    return this.fetch(hash, cached?.lookup);
  }

  private async fetch(hash: string, stale: KeyRecord | 'unknown' | undefined): Promise<KeyLookup> {
    let fields: Record<string, string>;
    try {
      fields = await this.redis.hgetall(`${this.prefix}key:${hash}`);
    } catch {
      return stale ?? 'unavailable';
    }
    const lookup = fields.name ? recordOf(fields) : 'unknown';
    if (this.cache.size > 100_000) this.cache.clear();
    this.cache.set(hash, { lookup, until: Date.now() + this.ttlMs });
    return lookup;
  }
}

function recordOf(fields: Record<string, string>): KeyRecord | 'unknown' {
  const groups = new Set((fields.namespaces ?? '').split(',').map((n) => n.trim()).filter((n) => n !== ''));
  let rate: RateRule[] | undefined;
  if (fields.rate) {
    try {
      const parsed: unknown = JSON.parse(fields.rate);
      const names = new Set<string>();
      rate = (Array.isArray(parsed) ? parsed : []).map((rule, i) => readRule(rule as Record<string, unknown>, `rate #${i + 1}`, names, `redis key ${fields.name}`));
    } catch {
      // A key whose budget cannot be read is not served: it would otherwise escape its budget.
      return 'unknown';
    }
  }
  return { name: fields.name, groups, unsafe: fields.unsafe === 'true', exempt: fields.exempt === 'true', rate };
}
