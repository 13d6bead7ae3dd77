/**
 * Probes every upstream on an interval (node RPC: `status`; EVM: `eth_blockNumber`/`eth_syncing`/
 * `eth_chainId`, see the pool protocols). An upstream is up when it answers, is not catching up, is on
 * the pool's chain, is at most `max_height_lag` blocks behind the highest upstream, and serves the head
 * it reports when that is far above every other's (see `proven`); otherwise down, with the reason. The
 * pool's chain is the network or chain id most upstreams reported when the pool first saw one healthy;
 * after that only a reload changes it (see UpstreamPool.reload), so an upstream that starts answering
 * for another chain is quarantined (`wrong-chain`) rather than followed. A healthy upstream that stops
 * answering stays up until `unhealthyThreshold` checks in a row went unanswered, so that one slow probe
 * on a loaded host does not empty the pool (failing requests open its breaker meanwhile). An upstream
 * back from down starts afresh: its latencies forgotten, its breaker closed. `probeAll` probes a given
 * list apart from the rounds (a reload checks its new list with it).
 */
import type { Probe } from './pool-protocol';
import type { DownReason, Upstream } from './upstream';

export interface HealthTransition {
  readonly upstream: Upstream;
  readonly healthy: boolean;
  readonly reason: DownReason;
  readonly error: string;
}

/** The chain a pool serves: '' until known; `adopt` is called with the first majority seen. */
export interface ChainIdentity {
  readonly current: string;
  adopt(network: string): void;
}

/** A chain of its own, for a checker used without a pool. */
function ownChain(): ChainIdentity {
  return {
    current: '',
    adopt(network: string) {
      (this as { current: string }).current = network;
    },
  };
}

export class HealthChecker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** Health rounds completed (metrics, tests). */
  rounds = 0;

  constructor(
    private upstreams: () => readonly Upstream[],
    private readonly intervalMs: number,
    private readonly timeoutMs: number,
    private readonly maxLag: bigint,
    private readonly unhealthyThreshold: number,
    private readonly onTransition: (t: HealthTransition) => void,
    private readonly onRound: () => void,
    private readonly probe: (u: Upstream, timeoutMs: number) => Promise<Probe>,
    private readonly chain: ChainIdentity = ownChain(),
    /** Whether `u` serves block `height`; without it every reported head is believed. */
    private readonly hasBlock?: (u: Upstream, height: bigint, timeoutMs: number) => Promise<boolean>,
  ) {}

  start(): void {
    const loop = () => {
      this.timer = setTimeout(() => {
        void this.checkNow().finally(() => {
          if (this.timer) loop();
        });
      }, this.intervalMs);
      this.timer.unref();
    };
    loop();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** One round over every upstream; concurrent callers share the round in progress. */
  checkNow(): Promise<void> {
    this.running ??= this.round().finally(() => {
      this.running = undefined;
      this.rounds++;
    });
    return this.running;
  }

  private async round(): Promise<void> {
    const upstreams = this.upstreams();
    this.apply(upstreams, await this.probeAll(upstreams));
    this.onRound();
  }

  /** Probes every upstream of `upstreams` at once; nothing is applied. */
  async probeAll(upstreams: readonly Upstream[]): Promise<Probe[]> {
    const probes = await Promise.all(upstreams.map((u) => this.probe(u, this.timeoutMs)));
    return Promise.all(probes.map((p, i) => this.proven(upstreams[i], p, probes)));
  }

  /**
   * `p`, marked `unproven` when it reports a head more than max_height_lag above both every other
   * upstream's head on its chain and its own last believed one, and the node does not serve that block
   * (a node that reports a height it lacks): else one liar ahead would have every honest upstream taken
   * for lagging, and the pool's head jump to blocks that do not exist.
   */
  private async proven(u: Upstream, p: Probe, probes: readonly Probe[]): Promise<Probe> {
    if (!p.ok || this.hasBlock === undefined) return p;
    let reference = u.latestHeight;
    for (const q of probes) if (q !== p && q.ok && q.network === p.network && q.latest > reference) reference = q.latest;
    // Nothing known yet (a first check with no other upstream answering): nothing to compare with.
    if (reference === 0n || p.latest <= reference + this.maxLag || (await this.hasBlock(u, p.latest, this.timeoutMs))) return p;
    return { ...p, unproven: true };
  }

  /**
   * `u` answered for chain `network` (an answer that states its chain), not the pool's: quarantined
   * now (`wrong-chain`), until a check finds it back on the pool's chain.
   */
  quarantine(u: Upstream, network: string): void {
    const error = `chain ${network}, the pool serves ${this.chain.current}`;
    u.network = network;
    if (!u.healthy && u.downReason === 'wrong-chain' && u.lastError === error) return;
    u.healthy = false;
    u.downReason = 'wrong-chain';
    u.lastError = error;
    this.onTransition({ upstream: u, healthy: false, reason: 'wrong-chain', error });
  }

  /** The chain most of `probes` report; on a tie the pool's current chain, if among them. */
  majorityChain(probes: readonly Probe[]): string {
    return majority(
      probes.flatMap((p) => (p.ok ? [p.network] : [])),
      this.chain.current,
    );
  }

  /**
   * Applies `probes` (of `upstreams`, in order) against the pool's chain — read now, after the probes
   * answered, so that a round that started before a reload changed the chain judges by the new one.
   */
  apply(upstreams: readonly Upstream[], probes: readonly Probe[]): void {
    if (this.chain.current === '') {
      const seen = this.majorityChain(probes);
      if (seen !== '') this.chain.adopt(seen);
    }
    const network = this.chain.current;
    let top = 0n;
    for (const p of probes) if (p.ok && !p.catchingUp && !p.unproven && p.network === network && p.latest > top) top = p.latest;
    upstreams.forEach((u, i) => {
      const p = probes[i];
      u.lastCheckedAt = Date.now();
      let reason: DownReason = '';
      let error = '';
      if (!p.ok) {
        u.missedChecks++;
        if (u.healthy && u.missedChecks < this.unhealthyThreshold) return;
        reason = 'unreachable';
        error = p.error;
      } else {
        u.missedChecks = 0;
        // An unproven head is not believed: the last one stays, so that the next check asks again.
        if (!p.unproven) u.latestHeight = p.latest;
        u.earliestHeight = p.earliest;
        u.catchingUp = p.catchingUp;
        u.network = p.network;
        if (p.network !== network) {
          reason = 'wrong-chain';
          error = `chain ${p.network}, the pool serves ${network}`;
        } else if (p.unproven) {
          reason = 'bad-height';
          error = `reports height ${p.latest}, a block it does not serve`;
        } else if (p.catchingUp) {
          reason = 'catching-up';
          error = 'catching_up is true';
        } else if (top - p.latest > this.maxLag) {
          reason = 'lagging';
          error = `${top - p.latest} blocks behind the highest upstream (max_height_lag ${this.maxLag})`;
        }
      }
      const healthy = reason === '';
      const changed = healthy !== u.healthy || reason !== u.downReason || (reason === 'wrong-chain' && error !== u.lastError);
      if (healthy && !u.healthy) {
        // Back from down: its latencies and failures from before are not its state now, and would keep
        // it out of routing (a breaker open, a slow median that no request is left to correct).
        u.latency.clear();
        u.breaker.reset();
      }
      u.healthy = healthy;
      u.downReason = reason;
      u.lastError = error;
      if (changed) this.onTransition({ upstream: u, healthy, reason, error });
    });
  }
}

/** The most frequent value; ties go to `prefer` when it is among the most frequent, else to the first seen. */
function majority(values: string[], prefer = ''): string {
  const counts = new Map<string, number>();
  let best = '';
  let bestCount = 0;
  for (const v of values) {
    const n = (counts.get(v) ?? 0) + 1;
    counts.set(v, n);
    if (n > bestCount) [best, bestCount] = [v, n];
  }
  if (prefer !== '' && counts.get(prefer) === bestCount) return prefer;
  return best;
}
