/**
 * eth_getLogs, with what it does beside the node's answer: `[json-rpc] logs-cap` and `block-range-cap`
 * (Evmos's texts), and in upstream mode a long range split into `[upstream] logs_chunk_blocks` chunks,
 * each a read of fixed blocks, spread over the pool and joined in block order.
 */
import { ApplicationError, InvalidParamsError } from '../../rpc/errors';
import { defineMethod, IMMUTABLE, LATEST, param, returns, type CacheRule, type MethodEnv, type SplitRule } from '../../rpc/method';
import * as c from '../codec/codecs';
import type { BlockRef, LogFilter, RpcLog } from '../evm-types';

/** A log query at a block hash or over a range of block numbers never changes; one reaching a tag lives a block. */
function logsCache(criteria: LogFilter): CacheRule {
  return criteria.blockHash !== undefined || (criteria.fromBlock?.kind === 'number' && criteria.toBlock?.kind === 'number') ? IMMUTABLE : LATEST;
}

/** A range of block numbers needs its last block. */
function logsHeight(criteria: LogFilter): bigint | undefined {
  const to = criteria.toBlock;
  return criteria.blockHash === undefined && criteria.fromBlock?.kind === 'number' && to?.kind === 'number' ? to.number : undefined;
}

/** A range bound: missing, head tags and hashes are the head; `earliest` is the first block. */
function bound(ref: BlockRef | undefined, head: bigint): bigint {
  if (ref === undefined || ref.kind === 'hash') return head;
  if (ref.kind === 'tag') return ref.tag === 'earliest' ? 0n : head;
  return ref.number;
}

/** `logs-cap`, in Evmos's words. */
function capped(logs: RpcLog[], { config }: MethodEnv): RpcLog[] {
  const cap = config.jsonRpc['logs-cap'];
  if (logs.length > cap) throw new ApplicationError(`query returned more than ${cap} results`);
  return logs;
}

type Criteria = { readonly criteria: LogFilter };

/**
 * A range is resolved against the pool's head: go-ethereum's range errors (-32602) first, a bound past
 * the pool's head checked against a fresh head (the pool's may lag), then `block-range-cap`. One within
 * a chunk goes whole, as asked (tags resolved by the node itself).
 */
const chunks: SplitRule<Criteria, RpcLog[]> = {
  async parts({ criteria }, pool, { config }) {
    const { fromBlock, toBlock, blockHash, ...rest } = criteria;
    if (blockHash !== undefined) return undefined;
    const head = pool.head > 0n ? pool.head : await pool.freshHead();
    const from = bound(fromBlock, head);
    const to = bound(toBlock, head);
    if (from > to) throw new InvalidParamsError('invalid block range params');
    if (to > head && to > (await pool.freshHead())) throw new InvalidParamsError('block range extends beyond current head block');
    const rangeCap = config.jsonRpc['block-range-cap'];
    if (to - from > BigInt(rangeCap)) throw new ApplicationError(`maximum [from, to] blocks distance: ${rangeCap}`);
    const chunk = BigInt(config.gateway.upstream.settings.logs_chunk_blocks);
    if (to - from < chunk) return undefined;
    const parts: Criteria[] = [];
    for (let start = from; start <= to; start += chunk) {
      const end = start + chunk - 1n < to ? start + chunk - 1n : to;
      parts.push({ criteria: { ...rest, fromBlock: { kind: 'number', number: start }, toBlock: { kind: 'number', number: end } } });
    }
    return parts;
  },
  join: (results, _args, env) => capped(results.flat(), env),
};

export const eth_getLogs = defineMethod({
  group: 'eth',
  name: 'eth_getLogs',
  params: [param('criteria', c.filterCriteria)],
  idempotent: true,
  cache: (a) => logsCache(a.criteria),
  height: (a) => logsHeight(a.criteria),
  split: chunks,
  finish: (logs, _args, env) => capped(logs, env),
  result: returns<RpcLog[]>(),
});
