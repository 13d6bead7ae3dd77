/**
 * eth_getLogs over the devnet's EVM records. Range rules (§4), as go-ethereum's filter API: a missing or
 * head tag bound is the head, `earliest` the first block; from > to is `invalid block range params` and
 * a range ending past the head is `block range extends beyond current head block`, both -32602 (Evmos v20
 * answers `[]` or stops at the head); a range wider than block-range-cap, or more logs than logs-cap, is
 * refused with Evmos's texts. A block hash names one block; an unknown one is `unknown block`.
 */
import { Bloom } from '@ethereumjs/vm';
import { ApplicationError, InvalidParamsError } from '../../../rpc/errors';
import type { BlockRef, LogFilter } from '../../../evm-rpc/evm-types';
import type { JsonObject } from '../../../rpc/json';
import type { EvmBlockRecord, EvmLog } from '../../../devnet/evm-state/evm-chain-store';
import type { EvmChainView } from './chain-view';
import { fromHex, hexData } from '../../../devnet/app/evm/hex';
import { firstLogIndexes, logJson } from './receipt-json';

export const INVALID_RANGE = 'invalid block range params';
export const RANGE_INTO_FUTURE = 'block range extends beyond current head block';

export interface LogCaps {
  blockRange: number;
  logs: number;
}

export class LogQuery {
  constructor(private readonly chain: EvmChainView) {}

  async logs(filter: LogFilter, caps: LogCaps): Promise<JsonObject[]> {
    const matcher = new LogMatcher(filter);
    if (filter.blockHash !== undefined) {
      const height = await this.chain.heightOf({ kind: 'hash', hash: filter.blockHash, requireCanonical: false });
      if (height === undefined || height > this.chain.head) throw new ApplicationError('unknown block');
      return this.collect(height, height, matcher, caps.logs);
    }
    const head = this.chain.head;
    if (head === 0n) return [];
    const from = this.bound(filter.fromBlock, head);
    const to = this.bound(filter.toBlock, head);
    if (from > to) throw new InvalidParamsError(INVALID_RANGE);
    if (to > head) throw new InvalidParamsError(RANGE_INTO_FUTURE);
    if (to - from > BigInt(caps.blockRange)) throw new ApplicationError(`maximum [from, to] blocks distance: ${caps.blockRange}`);
    return this.collect(from, to, matcher, caps.logs);
  }

  private bound(ref: BlockRef | undefined, head: bigint): bigint {
    if (ref === undefined || ref.kind === 'hash') return head;
    if (ref.kind === 'tag') return ref.tag === 'earliest' ? this.chain.firstHeight : head;
    return ref.number;
  }

  private async collect(from: bigint, to: bigint, matcher: LogMatcher, cap: number): Promise<JsonObject[]> {
    const found: JsonObject[] = [];
    for (let height = from; height <= to; height++) {
      const record = await this.chain.evm.chain.loadBlock(height);
      if (record === undefined || !matcher.mayMatch(record.bloom)) continue;
      const hash = await this.chain.hashAt(height);
      if (hash === undefined) continue;
      found.push(...logsOf(record, hash, matcher));
      if (found.length > cap) throw new ApplicationError(`query returned more than ${cap} results`);
    }
    return found;
  }
}

function logsOf(record: EvmBlockRecord, blockHash: Uint8Array, matcher: LogMatcher): JsonObject[] {
  const firsts = firstLogIndexes(record.txs);
  return record.txs.flatMap((tx, index) => {
    const placement = { blockHash, blockNumber: record.height, index, firstLogIndex: firsts[index] };
    return tx.logs.flatMap((log, i) => (matcher.matches(log) ? [logJson(log, tx, placement, placement.firstLogIndex + i)] : []));
  });
}

/** go-ethereum's filter rules: any listed address; per topic position, any listed topic (null or [] = any). */
export class LogMatcher {
  private readonly addresses: Set<string>;
  private readonly topics: (Set<string> | undefined)[];

  constructor(filter: Pick<LogFilter, 'address' | 'topics'>) {
    this.addresses = new Set(filter.address ?? []);
    this.topics = (filter.topics ?? []).map((set) => (set === null || set.length === 0 ? undefined : new Set(set)));
  }

  matches(log: EvmLog): boolean {
    if (this.addresses.size > 0 && !this.addresses.has(hexData(log.address))) return false;
    if (this.topics.length > log.topics.length) return false;
    return this.topics.every((set, i) => set === undefined || set.has(hexData(log.topics[i])));
  }

  /** False when the block's bloom rules out every match. */
  mayMatch(bloomBits: Uint8Array): boolean {
    const bloom = new Bloom(Uint8Array.from(bloomBits));
    if (this.addresses.size > 0 && ![...this.addresses].some((a) => bloom.check(fromHex(a)))) return false;
    return this.topics.every((set) => set === undefined || [...set].some((t) => bloom.check(fromHex(t))));
  }
}
