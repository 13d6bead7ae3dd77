/**
 * Each delivery of a queued broadcast is the root of a trace of its own: a delivery runs later than the
 * call that queued it, in whichever process takes the job, and may serve many calls of the same tx.
 * Its `rpcgw.tx` attribute names the tx hash.
 */
import type { Deliver } from '../queue/broadcast-queue';
import { traceWork } from './spans';

/** `deliver`, each run in a span `queue.deliver` with the job's lane, tx hash and what became of it. */
export function tracedDelivery(deliver: Deliver): Deliver {
  return (job, first) =>
    traceWork('queue.deliver', { 'rpcgw.queue.lane': job.lane, 'rpcgw.tx': job.id, 'rpcgw.queue.first_attempt': first }, async (note) => {
      const delivery = await deliver(job, first);
      note({ 'rpcgw.queue.status': delivery.status });
      return delivery;
    });
}
