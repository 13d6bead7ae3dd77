import type { MetricsService } from '../metrics/metrics.service';
import type { Delivery, LaneCounts } from './broadcast-queue';

/** How a job ended, as `rpcgw_queue_jobs_total{outcome}` counts it. */
export type JobOutcome = 'delivered' | 'rejected' | 'failed' | 'deduplicated';

const OUTCOMES: readonly JobOutcome[] = ['delivered', 'rejected', 'failed', 'deduplicated'];
const STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/**
 * What the drivers tell the queue families: jobs finished by outcome (counted by the process that
 * delivered them; `deduplicated` by the one a duplicate reached), retries, enqueue-to-delivery time, and
 * the depth by state read from the store at scrape time. No-ops with Prometheus off.
 */
export class QueueMeters {
  private constructor(private readonly metrics: MetricsService | undefined) {}

  static of(metrics: MetricsService | undefined): QueueMeters {
    return new QueueMeters(metrics?.enabled ? metrics : undefined);
  }

  static readonly none = new QueueMeters(undefined);

  /** The depth gauge reads `counts` at each scrape (a store that does not answer leaves it unset). */
  sampleDepth(counts: () => Promise<readonly LaneCounts[] | undefined>): void {
    const families = this.metrics?.families.queue;
    if (!families) return;
    for (const outcome of OUTCOMES) families.jobs.labels({ outcome }).inc(0);
    families.retries.inc(0);
    families.depth.sample(async (gauge) => {
      const lanes = await counts().catch(() => undefined);
      if (lanes === undefined) return;
      for (const state of STATES) gauge.set({ state }, lanes.reduce((sum, lane) => sum + lane[state], 0));
    });
  }

  /** A job's delivery ended (delivered, refused) after being queued at `queuedAt` (epoch ms). */
  finished(delivery: Delivery, queuedAt: number): void {
    const families = this.metrics?.families.queue;
    if (!families) return;
    const outcome: JobOutcome = delivery.status === 'accepted' || delivery.status === 'known' ? 'delivered' : delivery.status;
    families.jobs.labels({ outcome }).inc();
    if (outcome === 'delivered') families.duration.observe(Math.max(0, Date.now() - queuedAt) / 1000);
  }

  deduplicated(): void {
    this.metrics?.families.queue.jobs.labels({ outcome: 'deduplicated' }).inc();
  }

  retried(): void {
    this.metrics?.families.queue.retries.inc();
  }
}
