/**
 * Which keys were seen, approximately and in fixed memory: a Bloom filter of two bits per key in one
 * typed array, so that remembering a key allocates nothing and holds no string (a Set of keys would
 * keep every key alive, the very garbage the response cache's admission avoids). Never says a seen key
 * is new; says a new key was seen with a probability that grows with the keys added: about 0.2 % at
 * 25,000 keys, 3 % at 100,000 (2^20 bits). A key is hashed once (keyHash) and the hash asked of several
 * filters.
 */
export class SeenKeys {
  /** Made at the first add: a cache that never keeps a latest answer (caching off) holds no filter. */
  private words: Int32Array | undefined;
  /** Something was added since the last clear (a clear of an empty filter writes nothing). */
  private used = false;
  private readonly mask: number;

  constructor(private readonly bits = DEFAULT_BITS) {
    this.mask = bits - 1;
  }

  has(hash: number): boolean {
    return this.used && this.bit(hash) && this.bit(mix(hash));
  }

  add(hash: number): void {
    this.words ??= new Int32Array(this.bits >>> 5);
    this.used = true;
    this.set(hash);
    this.set(mix(hash));
  }

  clear(): void {
    if (!this.used) return;
    this.words!.fill(0);
    this.used = false;
  }

  private bit(h: number): boolean {
    const i = h & this.mask;
    return (this.words![i >>> 5] & (1 << (i & 31))) !== 0;
  }

  private set(h: number): void {
    const i = h & this.mask;
    this.words![i >>> 5] |= 1 << (i & 31);
  }
}

/** 2^20 bits: 128 KiB per filter. */
const DEFAULT_BITS = 1 << 20;

/** FNV-1a over the key's UTF-16 code units: a 32-bit hash, the filter's first index. */
export function keyHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** murmur3's finaliser: the second index, from the first hash's bits spread apart. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
