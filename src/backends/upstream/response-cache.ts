/**
 * In-memory LRU of upstream answers, bounded in bytes (the size of the answer as received). Immutable
 * answers live until evicted; a latest-height answer is tagged with the head it was read at and dies
 * when the head moves or its TTL passes, so it is never older than one block.
 */
import type { Json } from '../../rpc/json';

interface Entry {
  readonly value: Json;
  readonly bytes: number;
  /** 0 = immutable. */
  readonly expiresAt: number;
  /** The pool head when a latest-height answer was read; undefined for immutable ones. */
  readonly head?: bigint;
}

/** Map overhead and key, roughly, per entry. */
const ENTRY_OVERHEAD = 96;

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private used = 0;
  hits = 0;
  misses = 0;
  evictions = 0;

  constructor(
    readonly maxBytes: number,
    private readonly now: () => number = Date.now,
  ) {}

  get bytes(): number {
    return this.used;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cached answer, if it is still valid at pool head `head`. */
  get(key: string, head: bigint): Json | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || (entry.expiresAt !== 0 && (entry.expiresAt <= this.now() || entry.head !== head))) {
      if (entry !== undefined) this.remove(key, entry);
      this.misses++;
      return undefined;
    }
    // Most recently used goes last.
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.hits++;
    return entry.value;
  }

  setImmutable(key: string, value: Json, bytes: number): void {
    this.put(key, { value, bytes: bytes + key.length + ENTRY_OVERHEAD, expiresAt: 0 });
  }

  setLatest(key: string, value: Json, bytes: number, head: bigint, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.put(key, { value, bytes: bytes + key.length + ENTRY_OVERHEAD, expiresAt: this.now() + ttlMs, head });
  }

  clear(): void {
    this.entries.clear();
    this.used = 0;
  }

  private put(key: string, entry: Entry): void {
    if (entry.bytes > this.maxBytes) return;
    const old = this.entries.get(key);
    if (old) this.remove(key, old);
    this.entries.set(key, entry);
    this.used += entry.bytes;
    for (const [k, e] of this.entries) {
      if (this.used <= this.maxBytes) break;
      this.remove(k, e);
      this.evictions++;
    }
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.used -= entry.bytes;
  }
}
