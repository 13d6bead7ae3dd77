import type { BlockRef, LogFilter } from '../evm-types';
import { ApplicationError } from '../../rpc/errors';
import type { JsonObject } from '../../rpc/json';

/** go-ethereum's raw values of block tags, which its range error prints. */
const TAG_VALUES: Record<string, bigint> = { earliest: 0n, latest: -1n, pending: -2n, finalized: -3n, safe: -4n };

function rawBlock(ref: BlockRef | undefined): bigint {
  if (!ref) return -1n;
  if (ref.kind === 'number') return ref.number;
  return ref.kind === 'tag' ? TAG_VALUES[ref.tag] : -1n;
}

/**
 * The block ranges a live log filter or subscription accepts: latest to latest, a fixed range, or a
 * fixed start up to latest.
 */
export function checkLiveRange(filter: LogFilter): void {
  const from = rawBlock(filter.fromBlock);
  const to = rawBlock(filter.toBlock);
  if ((from === -1n && to === -1n) || (from >= 0n && (to === -1n || to >= from))) return;
  throw new ApplicationError(`invalid from and to block combination: from > to (${from} > ${to})`);
}

/** Whether a new log matches: block hash or number range, any of the addresses, topics by position. */
export function matchesLog(filter: LogFilter, log: JsonObject): boolean {
  if (filter.blockHash !== undefined && log.blockHash !== filter.blockHash) return false;
  const number = BigInt(log.blockNumber as string);
  if (filter.fromBlock?.kind === 'number' && number < filter.fromBlock.number) return false;
  if (filter.toBlock?.kind === 'number' && number > filter.toBlock.number) return false;
  if (filter.address && filter.address.length > 0 && !filter.address.includes(String(log.address).toLowerCase())) return false;
  const topics = ((log.topics as string[] | undefined) ?? []).map((t) => t.toLowerCase());
  const wanted = filter.topics ?? [];
  if (wanted.length > topics.length) return false;
  return wanted.every((alternatives, i) => alternatives === null || alternatives.length === 0 || alternatives.includes(topics[i]));
}
