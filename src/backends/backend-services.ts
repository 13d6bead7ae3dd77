/**
 * What a backend provides besides answering method definitions: the event source, its health and
 * readiness, the dev accounts it funds, its pools and response caches for the operator's view and the
 * metrics, and (the devnet) the address
 * index of Otterscan's searches. One small interface, not a copy of the route table: every method is
 * answered through the Invoker.
 */
import type { JsonObject } from '../rpc/json';
import type { CacheStats } from './response-cache';

export const BACKEND_SERVICES = Symbol('BACKEND_SERVICES');

export interface BackendServices {
  /**
   * Makes sure events matching `query` are published on the event bus (an upstream backend opens one
   * shared upstream subscription per query; the devnet publishes every event anyway); the returned
   * function releases it.
   */
  feedEvents(query: string): Promise<() => void>;
  /** The node RPC `health` answer: `{}` when serving (plus the upstreams down, when some are); throws when not. */
  health(): Promise<JsonObject>;
  /** Whether the backend can take traffic (`/readyz`). */
  ready(): Promise<boolean>;
  /** Private keys of the accounts the backend funds for development (none for upstream nodes). */
  devAccountKeys(): Uint8Array[];
  /** Snapshots of the upstream pools (none on the devnet). */
  pools(): { readonly node?: PoolSnapshot; readonly evm?: PoolSnapshot };
  /**
   * The response caches, one per interface: each upstream pool's (a pool with no upstream has none), or
   * the embedded devnet's.
   */
  caches(): { readonly node?: CacheStats; readonly evm?: CacheStats };
  /** The devnet's address index; upstream nodes that have one serve Otterscan's methods themselves. */
  readonly addressHistory?: AddressHistoryIndex;
}

export interface PoolSnapshot {
  readonly head: string;
  readonly upstreams: ReadonlyArray<Readonly<Record<string, string | number | boolean>>>;
}

/** Blocks below (`before`) or above (`after`) a height, as an address's history is searched. */
export type SearchDirection = 'before' | 'after';

/** One page of an address's mined transactions (Otterscan's ots_searchTransactionsBefore/After). */
export interface AddressTransactionsPage {
  /** Transaction hashes, the latest first. */
  readonly hashes: readonly string[];
  /** The page holds the latest transactions. */
  readonly firstPage: boolean;
  /** The page holds the earliest transactions. */
  readonly lastPage: boolean;
}

/** Who created a contract (the sender of a deployment, or a contract's CREATE/CREATE2) and in which tx. */
export interface ContractCreator {
  readonly hash: string;
  readonly creator: string;
}

/** An address index: what Otterscan's ots_search*, ots_getTransactionBySenderAndNonce and ots_getContractCreator read. */
export interface AddressHistoryIndex {
  /**
   * The mined transactions `address` took part in (as sender, recipient, created contract, or in an
   * internal call), in blocks before or after `fromBlock` (0: from the latest block down, or from the
   * first block up), latest first. A page holds at least `pageSize` transactions when there are that
   * many, and then every other one of the last block it reached.
   */
  transactions(address: string, fromBlock: bigint, direction: SearchDirection, pageSize: number): Promise<AddressTransactionsPage>;
  /** The hash of the mined transaction `sender` sent with `nonce`, or null. */
  bySenderAndNonce(sender: string, nonce: bigint): Promise<string | null>;
  /** Who created the contract at `address` (its current code), or null for an account without code. */
  contractCreator(address: string): Promise<ContractCreator | null>;
}
