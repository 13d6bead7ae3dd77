/**
 * Orders the upstreams a request may go to: healthy ones whose breaker admits a request and, for a
 * request at height H, only those keeping H (earliest ≤ H ≤ latest). Lowest expected wait first:
 * (in-flight requests + 1) per unit of weight, times the median latency (so a busy fast upstream still
 * beats an idle one ten times slower); on equal waits the one asked least so far. An upstream with no
 * latency yet is taken to be as fast as the fastest measured candidate: never preferred over it, yet
 * asked once on the tie (it has fewer requests), which measures it.
 */
import type { Upstream } from './upstream';

export interface RouteNeeds {
  /** The block height the request reads, when it names one. */
  readonly height?: bigint;
}

export function candidates(upstreams: readonly Upstream[], needs: RouteNeeds, exclude?: ReadonlySet<Upstream>): Upstream[] {
  const usable = upstreams.filter((u) => u.healthy && !u.retired && u.breaker.admits && !exclude?.has(u));
  let chosen = usable;
  const h = needs.height;
  if (h !== undefined) {
    chosen = usable.filter((u) => u.has(h));
    if (chosen.length === 0) {
      // Beyond every upstream's head, or below every earliest (a pruned height, or 0 and below): the one
      // nearest to having it answers with the node's own error text ("height H must be less than or
      // equal to …", "height must be greater than 0, but got H", "… is not available, lowest height is …").
      const best = nearest(usable.filter((u) => h > u.latestHeight && h >= u.earliestHeight), (u) => u.latestHeight, 1n)
        ?? nearest(usable.filter((u) => h < u.earliestHeight), (u) => u.earliestHeight, -1n);
      chosen = best ? [best] : [];
    }
  }
  if (chosen.length < 2) return chosen;
  const medians = new Map<Upstream, number | undefined>(chosen.map((u) => [u, u.latency.quantile(0.5)]));
  let fastest: number | undefined;
  for (const m of medians.values()) if (m !== undefined && (fastest === undefined || m < fastest)) fastest = m;
  const wait = new Map<Upstream, number>();
  for (const u of chosen) wait.set(u, ((u.inFlight + 1) / u.weight) * Math.max(MIN_LATENCY_MS, medians.get(u) ?? fastest ?? 0));
  return chosen.sort((a, b) => wait.get(a)! - wait.get(b)! || a.counters.requests - b.counters.requests);
}

/** The upstream whose `height` is highest (`sign` 1n) or lowest (-1n). */
function nearest(upstreams: readonly Upstream[], height: (u: Upstream) => bigint, sign: bigint): Upstream | undefined {
  return upstreams.reduce<Upstream | undefined>((a, u) => (a === undefined || sign * height(u) > sign * height(a) ? u : a), undefined);
}

/** Below this, latencies count as equal (loopback noise): the order is by load alone. */
const MIN_LATENCY_MS = 1;
