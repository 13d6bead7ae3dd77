/**
 * eth_getLogs over the devnet's EVM records. Range rules (§4), as go-ethereum's filter API: a missing or
 * head tag bound is the head, `earliest` the first block; from > to is `invalid block range params` and
 * a range ending past the head is `block range extends beyond current head block`, both -32602 (Evmos v20
 * answers `[]` or stops at the head); a range wider than block-range-cap, or more logs than logs-cap, is
 * refused with Evmos's texts. A block hash names one block; an unknown one is `unknown block`.
 *
 * A scan over many blocks gives the event loop a turn every few milliseconds, and the bloom bits of the
 * filter's addresses and topics are found once per query, not once per block; the scan stops at the
 * call's deadline (its context's signal), at the next slice.
 */
import { Bloom } from '@ethereumjs/vm';
import { ApplicationError, InvalidParamsError } from '../../../rpc/errors';
import type { BlockRef, LogFilter } from '../../../evm-rpc/evm-types';
import type { JsonObject } from '../../../rpc/json';
import type { EvmBlockRecord, EvmLog } from '../../../devnet/evm-state/evm-chain-store';
import type { EvmChainView } from './chain-view';
import { fromHex, hexData } from '../../../devnet/app/evm/hex';
import { TimeSlice } from '../../../devnet/indexer/time-slice';
import { firstLogIndexes, logJson } from './receipt-json';

export const INVALID_RANGE = 'invalid block range params';
export const RANGE_INTO_FUTURE = 'block range extends beyond current head block';

export interface LogCaps {
  blockRange: number;
  logs: number;
}

export class LogQuery {
  constructor(private readonly chain: EvmChainView) {}

  /** Stops once `signal` fires (the call's deadline). */
  async logs(filter: LogFilter, caps: LogCaps, signal?: AbortSignal): Promise<JsonObject[]> {
    const matcher = new LogMatcher(filter);
    if (filter.blockHash !== undefined) {
      const height = await this.chain.heightOf({ kind: 'hash', hash: filter.blockHash, requireCanonical: false });
      if (height === undefined || height > this.chain.head) throw new ApplicationError('unknown block');
      return this.collect(height, height, matcher, caps.logs, signal);
    }
    const head = this.chain.head;
    if (head === 0n) return [];
    const from = this.bound(filter.fromBlock, head);
    const to = this.bound(filter.toBlock, head);
    if (from > to) throw new InvalidParamsError(INVALID_RANGE);
    if (to > head) throw new InvalidParamsError(RANGE_INTO_FUTURE);
    if (to - from > BigInt(caps.blockRange)) throw new ApplicationError(`maximum [from, to] blocks distance: ${caps.blockRange}`);
    return this.collect(from, to, matcher, caps.logs, signal);
  }

  private bound(ref: BlockRef | undefined, head: bigint): bigint {
    if (ref === undefined || ref.kind === 'hash') return head;
    if (ref.kind === 'tag') return ref.tag === 'earliest' ? this.chain.firstHeight : head;
    return ref.number;
  }

  private async collect(from: bigint, to: bigint, matcher: LogMatcher, cap: number, signal: AbortSignal | undefined): Promise<JsonObject[]> {
    const found: JsonObject[] = [];
    const slice = new TimeSlice(signal);
    for (let height = from; height <= to; height++) {
      await slice.pace();
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
  /** The bloom bits of the addresses, and of each topic position's topics (undefined = any). */
  private readonly addressBits: BloomBits[];
  private readonly topicBits: (BloomBits[] | undefined)[];

  constructor(filter: Pick<LogFilter, 'address' | 'topics'>) {
    this.addresses = new Set(filter.address ?? []);
    this.topics = (filter.topics ?? []).map((set) => (set === null || set.length === 0 ? undefined : new Set(set)));
    this.addressBits = [...this.addresses].map(bloomBits);
    this.topicBits = this.topics.map((set) => (set === undefined ? undefined : [...set].map(bloomBits)));
  }

  matches(log: EvmLog): boolean {
    if (this.addresses.size > 0 && !this.addresses.has(hexData(log.address))) return false;
    if (this.topics.length > log.topics.length) return false;
    return this.topics.every((set, i) => set === undefined || set.has(hexData(log.topics[i])));
  }

  /** False when the block's bloom rules out every match. */
  mayMatch(bloom: Uint8Array): boolean {
    const any = (bits: BloomBits[]) => bits.some((b) => inBloom(bloom, b));
    if (this.addressBits.length > 0 && !any(this.addressBits)) return false;
    return this.topicBits.every((bits) => bits === undefined || any(bits));
  }
}

/** Where a value's three bloom bits are: a byte of the 256-byte bloom and the bits set in it, per byte. */
type BloomBits = { byte: number; mask: number }[];

function bloomBits(hex: string): BloomBits {
  const alone = new Bloom();
  alone.add(fromHex(hex));
  const bits: BloomBits = [];
  alone.bitvector.forEach((mask, byte) => {
    if (mask !== 0) bits.push({ byte, mask });
  });
  return bits;
}

function inBloom(bloom: Uint8Array, bits: BloomBits): boolean {
  return bits.every(({ byte, mask }) => (bloom[byte] & mask) === mask);
}
