/** The height and page rules of CometBFT's RPC (rpc/core/env.go), with its error texts. */
import { ApplicationError } from '../../../rpc/errors';

const DEFAULT_PER_PAGE = 30;
const MAX_PER_PAGE = 100;

/**
 * getHeight: the requested height, or `latest` when none is given. `latest` is the last block for
 * block reads and the next height for validators and consensus params.
 */
export function resolveHeight(requested: bigint | undefined, latest: bigint, base: bigint): bigint {
  if (requested === undefined) return latest;
  if (requested <= 0n) throw new ApplicationError(`height must be greater than 0, but got ${requested}`);
  if (requested > latest) {
    throw new ApplicationError(`height ${requested} must be less than or equal to the current blockchain height ${latest}`);
  }
  if (requested < base) throw new ApplicationError(`height ${requested} is not available, lowest height is ${base}`);
  return requested;
}

/** validatePerPage: absent or below 1 is 30, above 100 is 100. */
export function perPageOf(requested: number | undefined): number {
  if (requested === undefined || requested < 1) return DEFAULT_PER_PAGE;
  return Math.min(requested, MAX_PER_PAGE);
}

/** validatePage + validateSkipCount: the slice of `items` the page holds (no page given: the first). */
export function pageOf<T>(items: T[], page: number | undefined, perPage: number): T[] {
  // One page even when there is nothing to show.
  const pages = Math.max(1, Math.trunc((items.length - 1) / perPage) + 1);
  const current = page ?? 1;
  if (page !== undefined && (current <= 0 || current > pages)) throw new ApplicationError(`page should be within [1, ${pages}] range, given ${current}`);
  const skip = (current - 1) * perPage;
  return items.slice(skip, skip + perPage);
}
