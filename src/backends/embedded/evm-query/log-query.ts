/**
 * eth_getLogs over the devnet's EVM records. Range rules (§4): a missing or head tag bound is the head,
 * `earliest` and 0 the first block; a range wider than block-range-cap, or more logs than logs-cap, is
 * refused with Evmos's texts; a range starting past the head has no logs; a range ending past the head
 * stops at the head; from > to is `invalid block range params` (as cosmos-evm and go-ethereum, where
 * Evmos v20 answers `[]`). A block hash names one block; an unknown one is `unknown block`.
 */
import { Bloom } from '@ethereumjs/vm';
import { ApplicationError } from '../../../rpc/errors';
import type { BlockRef, LogFilter } from '../../evm-backend';
import type { JsonObject } from '../../../rpc/json';
import type { EvmBlockRecord, EvmLog } from '../../../devnet/evm-state/evm-chain-store';
import type { EvmChainView } from './chain-view';
import { fromHex, hexData } from '../../../devnet/app/evm/hex';
import { firstLogIndexes, logJson } from './receipt-json';

export interface LogCaps {
  blockRange: number;
  logs: number;
}

export class LogQuery {
  constructor(private readonly chain: EvmChainView) {}

  async logs(filter: LogFilter, caps: LogCaps): Promise<JsonObject[]> {
    const matcher = new LogMatcher(filter);
    if (filter.blockHash !== undefined) {
      const height = await this.chain.devnet.store.heightOfHash(fromHex(filter.blockHash));
      if (height === undefined || height > this.chain.head) throw new ApplicationError('unknown block');
      return this.collect(height, height, matcher, caps.logs);
    }
    const head = this.chain.head;
    const from = this.bound(filter.fromBlock, head);
    const to = this.bound(filter.toBlock, head);
    if (to - from > BigInt(caps.blockRange)) throw new ApplicationError(`maximum [from, to] blocks distance: ${caps.blockRange}`);
    if (from > head || head === 0n) return [];
    if (from > to) throw new ApplicationError('invalid block range params');
    return this.collect(from, to < head ? to : head, matcher, caps.logs);
  }

  private bound(ref: BlockRef | undefined, head: bigint): bigint {
    if (ref === undefined || ref.kind === 'hash') return head;
    if (ref.kind === 'tag') return ref.tag === 'earliest' ? this.chain.firstHeight : head;
    return ref.number === 0n ? this.chain.firstHeight : ref.number;
  }

  private async collect(from: bigint, to: bigint, matcher: LogMatcher, cap: number): Promise<JsonObject[]> {
    const found: JsonObject[] = [];
    for (let height = from; height <= to; height++) {
      const record = await this.chain.evm.chain.loadBlock(height);
      if (record === undefined || !matcher.mayMatch(record.bloom)) continue;
      const meta = await this.chain.devnet.store.loadMeta(height);
      if (meta === undefined) continue;
      found.push(...logsOf(record, meta.blockId.hash, matcher));
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
