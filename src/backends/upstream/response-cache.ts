/**
 * In-memory cache of upstream answers, bounded in bytes (the size of the answer as received). Immutable
 * answers live in an LRU until evicted. Latest-height answers belong to the head they were read at and
 * die when the head moves or their TTL passes, so none is ever older than one block: they are kept
 * apart, all of one head, and dropped together when a lookup or a write sees a newer head (under load
 * most answers are of this kind, and an LRU full of dead ones would make every lookup slower).
 */
import type { Json } from '../../rpc/json';

interface Entry {
  readonly value: Json;
  readonly bytes: number;
  /** Latest-height answers only: when its TTL ends. */
  readonly expiresAt?: number;
}

/** Map overhead and key, roughly, per entry. */
const ENTRY_OVERHEAD = 96;

export class ResponseCache {
  /** Least recently used first. */
  private readonly immutable = new Map<string, Entry>();
  private latest = new Map<string, Entry>();
  /** The head the latest-height answers were read at. */
  private latestHead = -1n;
  private latestBytes = 0;
  private immutableBytes = 0;
  hits = 0;
  misses = 0;
  evictions = 0;

  constructor(
    readonly maxBytes: number,
    private readonly now: () => number = Date.now,
  ) {}

  get bytes(): number {
    return this.immutableBytes + this.latestBytes;
  }

  get size(): number {
    return this.immutable.size + this.latest.size;
  }

  /** The cached answer, if it is still valid at pool head `head`. */
  get(key: string, head: bigint): Json | undefined {
    const entry = this.immutable.get(key);
    if (entry !== undefined) {
      // Most recently used goes last.
      this.immutable.delete(key);
      this.immutable.set(key, entry);
      this.hits++;
      return entry.value;
    }
    this.atHead(head);
    const latest = this.latest.get(key);
    if (latest !== undefined && latest.expiresAt! > this.now()) {
      this.hits++;
      return latest.value;
    }
    if (latest !== undefined) {
      this.latest.delete(key);
      this.latestBytes -= latest.bytes;
    }
    this.misses++;
    return undefined;
  }

  setImmutable(key: string, value: Json, bytes: number): void {
    const entry = { value, bytes: bytes + key.length + ENTRY_OVERHEAD };
    if (entry.bytes > this.maxBytes) return;
    const old = this.immutable.get(key);
    if (old !== undefined) {
      this.immutable.delete(key);
      this.immutableBytes -= old.bytes;
    }
    this.immutable.set(key, entry);
    this.immutableBytes += entry.bytes;
    this.evict();
  }

  setLatest(key: string, value: Json, bytes: number, head: bigint, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.atHead(head);
    if (head !== this.latestHead) return;
    const entry = { value, bytes: bytes + key.length + ENTRY_OVERHEAD, expiresAt: this.now() + ttlMs };
    if (entry.bytes > this.maxBytes) return;
    const old = this.latest.get(key);
    if (old !== undefined) this.latestBytes -= old.bytes;
    this.latest.set(key, entry);
    this.latestBytes += entry.bytes;
    this.evict();
  }

  clear(): void {
    this.immutable.clear();
    this.latest = new Map();
    this.immutableBytes = 0;
    this.latestBytes = 0;
  }

  /** A newer head drops every latest-height answer (an older one, from a late reader, changes nothing). */
  private atHead(head: bigint): void {
    if (head <= this.latestHead) return;
    this.latestHead = head;
    this.latest = new Map();
    this.latestBytes = 0;
  }

  /** Over budget: latest-height answers go first (they die at the next block anyway), then the least recently used. */
  private evict(): void {
    if (this.bytes <= this.maxBytes) return;
    for (const map of [this.latest, this.immutable]) {
      for (const [key, entry] of map) {
        if (this.bytes <= this.maxBytes) return;
        map.delete(key);
        if (map === this.latest) this.latestBytes -= entry.bytes;
        else this.immutableBytes -= entry.bytes;
        this.evictions++;
      }
    }
  }
}
