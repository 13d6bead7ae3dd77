/** The response cache's doorkeeper: a key added is always seen; a key never added rarely is. */
import fc from 'fast-check';
import { keyHash, SeenKeys } from '../../../src/backends/seen-keys';
import { settings } from '../fuzz/arbitraries';

describe('SeenKeys', () => {
  it('never calls a key it was given new, until cleared', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string(), { maxLength: 200 }), (keys) => {
        const seen = new SeenKeys(1 << 12);
        for (const key of keys) seen.add(keyHash(key));
        expect(keys.filter((key) => !seen.has(keyHash(key)))).toEqual([]);
        seen.clear();
        expect(keys.filter((key) => seen.has(keyHash(key)))).toEqual([]);
        // A cleared filter is used again.
        for (const key of keys) seen.add(keyHash(key));
        expect(keys.filter((key) => !seen.has(keyHash(key)))).toEqual([]);
      }),
      settings(),
    );
  });

  it('calls few new keys seen at 25,000 keys, as a Bloom filter of its size does (about 0.2 %)', () => {
    const seen = new SeenKeys();
    const key = (i: number, what: string) => `eth_getBalance["0x${i.toString(16).padStart(40, '0')}","${what}"]`;
    for (let i = 0; i < 25_000; i++) seen.add(keyHash(key(i, 'latest')));
    let wrong = 0;
    for (let i = 0; i < 100_000; i++) if (seen.has(keyHash(key(i, 'pending')))) wrong++;
    expect(wrong / 100_000).toBeLessThan(0.005);
  });

  it('hashes keys that differ in one character apart', () => {
    expect(new Set(['a', 'b', 'ab', 'ba', 'é', '😀', ''].map(keyHash)).size).toBe(7);
  });
});
