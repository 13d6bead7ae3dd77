/**
 * The Redis side of shared polling filters: every step that must hold across replicas is one Lua
 * script, so Redis runs it alone. Keys, under the prefix:
 *
 * - `f:<id>`: a hash {kind, criteria, cursor} that expires `ttl` after its creation or last poll;
 * - `leases`: a sorted set, filter id → the moment its lease ends (filter-cap counts the live ones);
 * - `pending`: a capped stream of pending-transaction hashes (field `h`), the cursor of a
 *   pending-transaction filter being a stream id;
 * - `pending:height`: the last block height whose transaction hashes are in the stream.
 *
 * Times come from Redis (`TIME`), so replicas whose clocks differ agree on every lease.
 */
import { createHash } from 'node:crypto';
import type Redis from 'ioredis';
import type { FilterKind } from './filter-kinds';

export interface StoredFilter {
  readonly kind: FilterKind;
  /** The criteria as the codec writes them (JSON text). */
  readonly criteria: string;
  /** Block and log filters: the last height delivered; pending-transaction filters: a stream id. */
  readonly cursor: string;
}

/** What a compare-and-advance did. */
export type Advance = 'advanced' | 'raced' | 'missing';

const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** KEYS: leases, filter, stream, height. ARGV: id, kind, criteria, cursor, cap, ttl, head. 1, or 0 at the cap. */
const CREATE = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[5]) then return 0 end
local cursor = ARGV[4]
if ARGV[2] == 'pendingTransactions' then
  local published = tonumber(redis.call('GET', KEYS[4]) or '-1')
  if published < tonumber(ARGV[7]) then redis.call('SET', KEYS[4], ARGV[7], 'PX', tonumber(ARGV[6]) * 2) end
  local last = redis.call('XREVRANGE', KEYS[3], '+', '-', 'COUNT', 1)
  if last[1] then cursor = last[1][1] else cursor = '0-0' end
end
redis.call('HSET', KEYS[2], 'kind', ARGV[2], 'criteria', ARGV[3], 'cursor', cursor)
redis.call('PEXPIRE', KEYS[2], ARGV[6])
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[6]), ARGV[1])
return 1`;

/** KEYS: filter, leases. ARGV: id, expected cursor, next cursor, ttl. 1 advanced, 0 raced, -1 missing. */
const ADVANCE = `${NOW}
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HGET', KEYS[1], 'cursor') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'cursor', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[1])
return 1`;

/** KEYS: filter, leases, stream. ARGV: id, ttl, max. The hashes after the cursor (the cursor moved past them), or nil. */
const CLAIM_PENDING = `${NOW}
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local cursor = redis.call('HGET', KEYS[1], 'cursor')
local entries = redis.call('XRANGE', KEYS[3], '(' .. cursor, '+', 'COUNT', ARGV[3])
local out = {}
for i, entry in ipairs(entries) do out[i] = entry[2][2] end
if #entries > 0 then redis.call('HSET', KEYS[1], 'cursor', entries[#entries][1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
return out`;

/** KEYS: stream, height. ARGV: height, maxlen, ttl, hashes… 1 published, 0 not the next height. */
const PUBLISH = `local published = tonumber(redis.call('GET', KEYS[2]) or '-1')
if published < 0 or tonumber(ARGV[1]) ~= published + 1 then return 0 end
for i = 4, #ARGV do redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'h', ARGV[i]) end
redis.call('SET', KEYS[2], ARGV[1], 'PX', tonumber(ARGV[3]) * 2)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) * 2)
return 1`;

/** KEYS: height. ARGV: height, ttl. Moves the published height forward (never back). */
const SKIP_TO = `local published = tonumber(redis.call('GET', KEYS[1]) or '-1')
if published < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1], 'PX', tonumber(ARGV[2]) * 2) end
return 1`;

/** KEYS: filter, leases. ARGV: id. */
const REMOVE = `redis.call('ZREM', KEYS[2], ARGV[1])
return redis.call('DEL', KEYS[1])`;

class Script {
  private readonly sha: string;

  constructor(private readonly lua: string) {
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  async run(redis: Redis, keys: string[], args: Array<string | number>): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!String((err as Error).message).startsWith('NOSCRIPT')) throw err;
      return redis.eval(this.lua, keys.length, ...keys, ...args);
    }
  }
}

const SCRIPTS = {
  create: new Script(CREATE),
  advance: new Script(ADVANCE),
  claimPending: new Script(CLAIM_PENDING),
  publish: new Script(PUBLISH),
  skipTo: new Script(SKIP_TO),
  remove: new Script(REMOVE),
};

const KINDS: readonly FilterKind[] = ['logs', 'blocks', 'pendingTransactions'];

export interface RedisFilterStoreOptions {
  /** How long a filter lives unpolled, in ms. */
  readonly ttlMs: number;
  /** About how many hashes the pending stream keeps (MAXLEN ~). */
  readonly pendingMax: number;
}

/** Filters, their cursors and leases, and the pending-hash stream, in one Redis under one key prefix. */
export class RedisFilterStore {
  private readonly leases: string;
  private readonly stream: string;
  private readonly height: string;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly options: RedisFilterStoreOptions,
  ) {
    this.leases = `${prefix}leases`;
    this.stream = `${prefix}pending`;
    this.height = `${prefix}pending:height`;
  }

  private key(id: string): string {
    return `${this.prefix}f:${id}`;
  }

  /**
   * Installs a filter unless `cap` live filters exist (false then). A block or log filter starts at
   * `cursor` (a height); a pending-transaction filter at the stream's end, the stream then carrying
   * every block after `head`.
   */
  async create(id: string, kind: FilterKind, criteria: string, cursor: bigint, cap: number, head: bigint): Promise<boolean> {
    const keys = [this.leases, this.key(id), this.stream, this.height];
    const args = [id, kind, criteria, cursor.toString(), cap, this.options.ttlMs, head.toString()];
    return (await SCRIPTS.create.run(this.redis, keys, args)) === 1;
  }

  async get(id: string): Promise<StoredFilter | undefined> {
    const [kind, criteria, cursor] = await this.redis.hmget(this.key(id), 'kind', 'criteria', 'cursor');
    if (kind === null || criteria === null || cursor === null) return undefined;
    const known = KINDS.find((k) => k === kind);
    return known ? { kind: known, criteria, cursor } : undefined;
  }

  /** Moves a filter's cursor from `expected` to `next` (the same: a poll with nothing new) and renews its lease. */
  async advance(id: string, expected: string, next: string): Promise<Advance> {
    const done = await SCRIPTS.advance.run(this.redis, [this.key(id), this.leases], [id, expected, next, this.options.ttlMs]);
    return done === 1 ? 'advanced' : done === 0 ? 'raced' : 'missing';
  }

  /** Takes up to `max` hashes after a pending-transaction filter's cursor, and renews its lease; undefined when it is gone. */
  async claimPending(id: string, max: number): Promise<string[] | undefined> {
    const out = await SCRIPTS.claimPending.run(this.redis, [this.key(id), this.leases, this.stream], [id, this.options.ttlMs, max]);
    return Array.isArray(out) ? out.map(String) : undefined;
  }

  /** The last height in the pending stream; undefined when no pending-transaction filter marked one. */
  async publishedHeight(): Promise<bigint | undefined> {
    const value = await this.redis.get(this.height);
    return value === null ? undefined : BigInt(value);
  }

  /** Appends a block's transaction hashes, if `height` is the next one (false: another replica did it). */
  async publish(height: bigint, hashes: readonly string[]): Promise<boolean> {
    const args = [height.toString(), this.options.pendingMax, this.options.ttlMs, ...hashes];
    return (await SCRIPTS.publish.run(this.redis, [this.stream, this.height], args)) === 1;
  }

  /** Leaves blocks up to `height` out of the stream (a catch-up too long to be worth it). */
  async skipTo(height: bigint): Promise<void> {
    await SCRIPTS.skipTo.run(this.redis, [this.height], [height.toString(), this.options.ttlMs]);
  }

  async remove(id: string): Promise<boolean> {
    return (await SCRIPTS.remove.run(this.redis, [this.key(id), this.leases], [id])) === 1;
  }

  /** Which of these filters still exist. */
  async existing(ids: readonly string[]): Promise<boolean[]> {
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.exists(this.key(id));
    const answers = (await pipeline.exec()) ?? [];
    return ids.map((_, i) => answers[i]?.[1] === 1);
  }

  /** Live filters (leases not yet ended). */
  async count(): Promise<number> {
    const [seconds, micros] = await this.redis.time();
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    return this.redis.zcount(this.leases, `(${now}`, '+inf');
  }
}
