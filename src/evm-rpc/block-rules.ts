import type { BlockRef } from './evm-types';
import type { Json, JsonObject } from '../rpc/json';
import { IMMUTABLE, LATEST, NEVER, type CacheRule } from '../rpc/method';

/** Found: a null (unknown block or transaction) may still appear later. */
export const FOUND: CacheRule = { kind: 'immutable', found: true };
/** A transaction is final once mined (a pending one has a null blockHash). */
export const MINED: CacheRule = { kind: 'immutable', found: true, keep: (r) => (r as JsonObject).blockHash != null };

/**
 * How an answer at a block may be kept: at a number, a hash or `earliest` it never changes (CometBFT
 * blocks are final); at `latest` (and the head tags) it lives at most one block; `pending` is not kept.
 */
export function cacheAt(block: BlockRef | undefined): CacheRule {
  if (block === undefined) return LATEST;
  if (block.kind !== 'tag' || block.tag === 'earliest') return IMMUTABLE;
  return block.tag === 'pending' ? NEVER : LATEST;
}

/** The same, for answers that may be null (a block or transaction not found yet). */
export function foundAt(block: BlockRef | undefined): CacheRule {
  const rule = cacheAt(block);
  return rule.kind === 'immutable' ? FOUND : rule;
}

/** The height a read at `block` needs an upstream to have. */
export function heightAt(block: BlockRef | undefined): bigint | undefined {
  return block?.kind === 'number' ? block.number : undefined;
}

/** The block number of a receipt (or log, or mined transaction) in an answer. */
export function blockNumberOf(result: Json): bigint | undefined {
  const n = result !== null && typeof result === 'object' && !Array.isArray(result) ? result.blockNumber : undefined;
  return typeof n === 'string' && /^0x[0-9a-fA-F]+$/.test(n) ? BigInt(n) : undefined;
}
