/**
 * Probes every upstream on an interval (node RPC: `status`; EVM: `eth_blockNumber`/`eth_syncing`/
 * `eth_chainId`, see the pool protocols). An upstream is up when it answers, is not catching up, is on
 * the pool's chain (the network or chain id most upstreams report) and is at most `max_height_lag`
 * blocks behind the highest upstream; otherwise down, with the reason. A healthy upstream that stops
 * answering stays up until `unhealthyThreshold` checks in a row went unanswered, so that one slow
 * probe on a loaded host does not empty the pool (failing requests open its breaker meanwhile).
 */
import type { Probe } from './pool-protocol';
import type { DownReason, Upstream } from './upstream';

export interface HealthTransition {
  readonly upstream: Upstream;
  readonly healthy: boolean;
  readonly reason: DownReason;
  readonly error: string;
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
    const probes = await Promise.all(upstreams.map((u) => this.probe(u, this.timeoutMs)));
    const network = majority(probes.filter((p) => p.ok).map((p) => p.network));
    let top = 0n;
    for (const p of probes) if (p.ok && !p.catchingUp && p.network === network && p.latest > top) top = p.latest;
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
        u.latestHeight = p.latest;
        u.earliestHeight = p.earliest;
        u.catchingUp = p.catchingUp;
        u.network = p.network;
        if (p.network !== network) {
          reason = 'wrong-chain';
          error = `network ${p.network}, the pool serves ${network}`;
        } else if (p.catchingUp) {
          reason = 'catching-up';
          error = 'catching_up is true';
        } else if (top - p.latest > this.maxLag) {
          reason = 'lagging';
          error = `${top - p.latest} blocks behind the highest upstream (max_height_lag ${this.maxLag})`;
        }
      }
      const healthy = reason === '';
      const changed = healthy !== u.healthy || reason !== u.downReason;
      u.healthy = healthy;
      u.downReason = reason;
      u.lastError = error;
      if (changed) this.onTransition({ upstream: u, healthy, reason, error });
    });
    this.onRound();
  }
}

function majority(values: string[]): string {
  const counts = new Map<string, number>();
  let best = '';
  let bestCount = 0;
  for (const v of values) {
    const n = (counts.get(v) ?? 0) + 1;
    counts.set(v, n);
    if (n > bestCount) [best, bestCount] = [v, n];
  }
  return best;
}
