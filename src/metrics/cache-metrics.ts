import type { BackendServices } from '../backends/backend-services';
import type { CacheStats } from '../backends/response-cache';
import { rebuild, type MetricFamilies, type Rebuilt } from './metric-families';

type Interface = 'node' | 'evm';

/**
 * The response-cache families, read at scrape time from the backend's caches, one per interface:
 * each upstream pool's (memory, and Redis with `[cache] redis_url`), or the embedded devnet's (memory).
 * Returns what stops sampling them.
 */
export function sampleCaches(families: MetricFamilies['cache'], backend: Pick<BackendServices, 'caches'>): () => void {
  const caches = (): Array<[Interface, CacheStats]> => {
    const { node, evm } = backend.caches();
    return [...(node ? [['node', node] as [Interface, CacheStats]] : []), ...(evm ? [['evm', evm] as [Interface, CacheStats]] : [])];
  };
  const perTier = (family: Rebuilt<'interface' | 'tier'>, value: (tier: { hits: number; misses: number }) => number) =>
    family.sample((f) =>
      rebuild(
        f,
        caches().flatMap(([surface, c]) => [
          [{ interface: surface, tier: 'memory' }, value(c.tiers.memory)] as const,
          ...(c.redis ? [[{ interface: surface, tier: 'redis' }, value(c.tiers.redis)] as const] : []),
        ]),
      ),
    );
  const perCache = (family: Rebuilt<'interface'>, value: (c: CacheStats) => number) =>
    family.sample((f) => rebuild(f, caches().map(([surface, c]) => [{ interface: surface }, value(c)] as const)));
  const stops = [
    perTier(families.hits, (t) => t.hits),
    perTier(families.misses, (t) => t.misses),
    perCache(families.evictions, (c) => c.evictions),
    perCache(families.bytes, (c) => c.bytes),
    perCache(families.entries, (c) => c.entries),
    families.redisErrors.sample((f) => rebuild<'interface'>(f, caches().flatMap(([surface, c]) => (c.redis ? [[{ interface: surface }, c.redis.errors] as const] : [])))),
    // One Redis connection serves every pool: any cache's Redis tier tells its state.
    families.redisUp.sample((f) => {
      const redis = caches().find(([, c]) => c.redis)?.[1].redis;
      rebuild(f, redis ? [[{}, redis.up ? 1 : 0] as const] : []);
    }),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}
