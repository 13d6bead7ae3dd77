/**
 * Orders the upstreams a request may go to: healthy ones whose breaker admits a request and, for a
 * request at height H, only those keeping H (earliest ≤ H ≤ latest). Least busy first (in-flight
 * requests per unit of weight), then fastest median latency.
 */
import type { Upstream } from './upstream';

export interface RouteNeeds {
  /** The block height the request reads, when it names one. */
  readonly height?: bigint;
}

export function candidates(upstreams: readonly Upstream[], needs: RouteNeeds, exclude?: ReadonlySet<Upstream>): Upstream[] {
  const usable = upstreams.filter((u) => u.healthy && u.breaker.admits && !exclude?.has(u));
  let chosen = usable;
  const h = needs.height;
  if (h !== undefined) {
    chosen = usable.filter((u) => u.has(h));
    if (chosen.length === 0) {
      // Beyond every upstream's head (or below every earliest): the one nearest to having it answers
      // with the node's own error text, e.g. "height H must be less than or equal to …".
      const above = usable.filter((u) => h > u.latestHeight && h >= u.earliestHeight);
      const best = above.reduce<Upstream | undefined>((a, u) => (a === undefined || u.latestHeight > a.latestHeight ? u : a), undefined);
      chosen = best ? [best] : [];
    }
  }
  return chosen.sort(byLoad);
}

function byLoad(a: Upstream, b: Upstream): number {
  const load = (a.inFlight + 1) / a.weight - (b.inFlight + 1) / b.weight;
  if (load !== 0) return load;
  return (a.latency.quantile(0.5) ?? 0) - (b.latency.quantile(0.5) ?? 0);
}
