/**
 * In-memory cache of answers (an upstream's, the embedded devnet's, or the gateway's own computed
 * ones), bounded in bytes (the size of the answer's JSON text). Immutable
 * answers live in an LRU (lru-cache: evictions in constant time, where a Map used as an LRU slows down
 * as deletions pile up at its front) until evicted. Latest-height answers belong to the head they were
 * read at and die when the head moves or their TTL passes (the head: the pool's, or the devnet's), so none is ever older than one block: they
 * are kept apart, all of one head, and dropped together when a newer head is seen or when the budget
 * is full (under load most answers are of this kind, and they would otherwise push out immutable ones).
 * They are kept in two generations of one TTL each, and the older one is dropped whole when the next
 * begins: on a chain whose head moves slowly, reads of ever new keys (balances of fresh addresses) hold
 * at most two TTLs of answers, not the whole budget of expired ones.
 *
 * A latest-height answer is kept from the second time its key is answered within two generations (a
 * doorkeeper, as TinyLFU admits): a key read once, the usual read of a fresh address, is never stored,
 * so a flood of one-off reads neither takes the budget (whose overflow drops every latest answer, the
 * popular ones with them) nor leaves V8 answers to move to its old generation and free there. A key read
 * again is kept from its second answer, and at once after a new block when it was read in the block
 * before (the filters outlive heads): the cost is one upstream read per key that is read only twice.
 */
import { LRUCache } from 'lru-cache';
import type { WireResult } from '../rpc/result-json';
import { keepsForever, type CacheRule } from '../rpc/method';
import { keyHash, SeenKeys } from './seen-keys';
import type { RedisTierStats } from './upstream/redis-cache';

interface Entry {
  readonly value: WireResult;
  readonly bytes: number;
}

interface LatestEntry extends Entry {
  readonly expiresAt: number;
}

/** Map overhead and key, roughly, per entry. */
const ENTRY_OVERHEAD = 96;

export class ResponseCache {
  /** Undefined with a budget of 0 bytes: nothing is kept. */
  private readonly immutable: LRUCache<string, Entry> | undefined;
  /** Latest-height answers stored in this generation, and in the one before it. */
  private latest = new Map<string, LatestEntry>();
  private older = new Map<string, LatestEntry>();
  private latestBytes = 0;
  private olderBytes = 0;
  /** Latest-height keys answered in this generation, and in the one before it (the doorkeeper). */
  private seen = new SeenKeys();
  private seenOlder = new SeenKeys();
  /** When (now() ms) the current generation ends, and how long one lasts (the longest TTL seen). */
  private generationEnds = 0;
  private generationMs = 0;
  /** The head the latest-height answers were read at. */
  private latestHead = -1n;
  hits = 0;
  misses = 0;
  evictions = 0;

  constructor(
    readonly maxBytes: number,
    private readonly now: () => number = Date.now,
  ) {
    this.immutable =
      maxBytes > 0
        ? new LRUCache<string, Entry>({
            maxSize: maxBytes,
            sizeCalculation: (entry) => entry.bytes,
            dispose: (_entry, _key, reason) => {
              if (reason === 'evict') this.evictions++;
            },
          })
        : undefined;
  }

  get bytes(): number {
    return (this.immutable?.calculatedSize ?? 0) + this.latestBytes + this.olderBytes;
  }

  get size(): number {
    return (this.immutable?.size ?? 0) + this.latest.size + this.older.size;
  }

  /** The cached answer, if it is still valid at pool head `head`. */
  get(key: string, head: bigint): WireResult | undefined {
    const entry = this.immutable?.get(key);
    if (entry !== undefined) {
      this.hits++;
      return entry.value;
    }
    this.atHead(head);
    if (this.latest.size + this.older.size > 0) {
      const now = this.now();
      this.nextGeneration(now);
      const latest = this.latest.get(key) ?? this.older.get(key);
      if (latest !== undefined && latest.expiresAt > now) {
        this.hits++;
        return latest.value;
      }
    }
    this.misses++;
    return undefined;
  }

  /**
   * Keeps an answer as its rule says: an immutable one once `settled` (the height it names is final) and
   * its rule takes it (keepsForever); a latest one while `head` (the head it was read at) is still the head,
   * for `ttlMs`. True when the answer is immutable and kept-worthy (a shared tier may keep it too).
   */
  keep(key: string, rule: CacheRule, value: WireResult, bytes: number, settled: boolean, head: bigint | undefined, ttlMs: number): boolean {
    if (rule.kind === 'immutable') {
      if (!settled || !keepsForever(rule, value)) return false;
      this.setImmutable(key, value, bytes);
      return true;
    }
    if (rule.kind === 'latest' && head !== undefined) this.setLatest(key, value, bytes, head, ttlMs);
    return false;
  }

  setImmutable(key: string, value: WireResult, bytes: number): void {
    const size = bytes + key.length + ENTRY_OVERHEAD;
    if (this.immutable === undefined || size > this.maxBytes) return;
    this.immutable.set(key, { value, bytes: size });
    if (this.bytes > this.maxBytes) this.dropLatest();
  }

  setLatest(key: string, value: WireResult, bytes: number, head: bigint, ttlMs: number): void {
    const size = bytes + key.length + ENTRY_OVERHEAD;
    if (ttlMs <= 0 || size > this.maxBytes) return;
    this.atHead(head);
    if (head !== this.latestHead) return;
    const now = this.now();
    if (ttlMs > this.generationMs) this.generationMs = ttlMs;
    this.nextGeneration(now);
    if (!this.seenBefore(key)) return;
    const old = this.latest.get(key);
    if (old !== undefined) this.latestBytes -= old.bytes;
    this.latest.set(key, { value, bytes: size, expiresAt: now + ttlMs });
    this.latestBytes += size;
    if (this.bytes > this.maxBytes) this.dropLatest();
  }

  clear(): void {
    this.immutable?.clear();
    this.dropLatest();
  }

  /** A newer head drops every latest-height answer (one read at an older head, by a late reader, is not kept). */
  private atHead(head: bigint): void {
    if (head <= this.latestHead) return;
    this.latestHead = head;
    this.dropLatest();
  }

  /**
   * Starts a new generation once the current one has lasted its time: every answer of the older one
   * has expired by then (each lives at most one TTL), so it is dropped whole.
   */
  private nextGeneration(now: number): void {
    if (now < this.generationEnds) return;
    const skipped = now >= this.generationEnds + this.generationMs;
    this.older = skipped ? new Map() : this.latest;
    this.olderBytes = skipped ? 0 : this.latestBytes;
    this.latest = new Map();
    this.latestBytes = 0;
    this.generationEnds = now + this.generationMs;
    // The filters turn with the generations, their arrays reused.
    [this.seen, this.seenOlder] = [this.seenOlder, this.seen];
    this.seen.clear();
    if (skipped) this.seenOlder.clear();
  }

  /** Whether `key` was answered before in this generation or the last; it is recorded as answered now. */
  private seenBefore(key: string): boolean {
    const hash = keyHash(key);
    if (this.seen.has(hash)) return true;
    this.seen.add(hash);
    return this.seenOlder.has(hash);
  }

  private dropLatest(): void {
    this.latest = new Map();
    this.older = new Map();
    this.latestBytes = 0;
    this.olderBytes = 0;
  }
}

export interface CacheTierStats {
  hits: number;
  misses: number;
}

/** What a response cache reports (`gateway_cache`, the cache metrics): its memory tier and, in upstream mode, Redis. */
export interface CacheStats {
  /** Cacheable reads answered from a tier / not (computed, sent upstream, or joined to one in flight). */
  hits: number;
  misses: number;
  evictions: number;
  bytes: number;
  entries: number;
  max_bytes: number;
  /** Lookups per tier: memory first; Redis (immutable answers only) after a memory miss. */
  tiers: { memory: CacheTierStats; redis: CacheTierStats };
  /** null without a Redis tier (no `[cache] redis_url`, or the embedded devnet). */
  redis: RedisTierStats | null;
}

/** The stats of a memory tier and, where there is one, the Redis tier that follows its misses. */
export function cacheStats(memory: ResponseCache, shared?: CacheTierStats & { stats(): RedisTierStats }): CacheStats {
  const redis = { hits: shared?.hits ?? 0, misses: shared?.misses ?? 0 };
  return {
    // Every Redis lookup follows a memory miss.
    hits: memory.hits + redis.hits,
    misses: memory.misses - redis.hits,
    evictions: memory.evictions,
    bytes: memory.bytes,
    entries: memory.size,
    max_bytes: memory.maxBytes,
    tiers: { memory: { hits: memory.hits, misses: memory.misses }, redis },
    redis: shared?.stats() ?? null,
  };
}
