/**
 * What the node RPC needs from a backend. Results are already in the node RPC's wire JSON (int64 as
 * strings, hashes as upper-case hex, bytes as base64), so an upstream can pass answers through and the
 * embedded devnet encodes its own. Failures are thrown as `ApplicationError` with CometBFT's texts.
 */
import type { JsonObject } from '../rpc/json';

export const NODE_BACKEND = Symbol('NODE_BACKEND');

/**
 * Optional: whether the backend can take traffic (`/readyz`), for a backend whose readiness is more
 * than its node RPC `health` (the upstream pools: an EVM-only pool has no node to ask).
 */
export const BACKEND_READINESS = Symbol('BACKEND_READINESS');
export type BackendReadiness = () => boolean;

/**
 * Optional: snapshots of the backend's upstream pools (head, response cache, each upstream's health),
 * for the operator's view; provided by the upstream backend, absent on the devnet.
 */
export const BACKEND_POOLS = Symbol('BACKEND_POOLS');
export type BackendPools = () => { readonly node?: PoolSnapshot; readonly evm?: PoolSnapshot };
export interface PoolSnapshot {
  readonly head: string;
  readonly cache: Readonly<Record<string, unknown>>;
  readonly upstreams: ReadonlyArray<Readonly<Record<string, string | number | boolean>>>;
}

export interface NodeBackend {
  health(): Promise<JsonObject>;
  status(): Promise<JsonObject>;
  netInfo(): Promise<JsonObject>;
  blockchain(minHeight: bigint, maxHeight: bigint): Promise<JsonObject>;
  genesis(): Promise<JsonObject>;
  genesisChunked(chunk: number): Promise<JsonObject>;
  block(height?: bigint): Promise<JsonObject>;
  blockByHash(hash: Uint8Array): Promise<JsonObject>;
  blockResults(height?: bigint): Promise<JsonObject>;
  commit(height?: bigint): Promise<JsonObject>;
  header(height?: bigint): Promise<JsonObject>;
  headerByHash(hash: Uint8Array): Promise<JsonObject>;
  validators(height?: bigint, page?: number, perPage?: number): Promise<JsonObject>;
  dumpConsensusState(): Promise<JsonObject>;
  consensusState(): Promise<JsonObject>;
  consensusParams(height?: bigint): Promise<JsonObject>;
  unconfirmedTxs(limit?: number): Promise<JsonObject>;
  numUnconfirmedTxs(): Promise<JsonObject>;
  tx(hash: Uint8Array, prove: boolean): Promise<JsonObject>;
  txSearch(query: string, prove: boolean, page: number | undefined, perPage: number | undefined, orderBy: string): Promise<JsonObject>;
  blockSearch(query: string, page: number | undefined, perPage: number | undefined, orderBy: string): Promise<JsonObject>;
  checkTx(tx: Uint8Array): Promise<JsonObject>;
  broadcastTxAsync(tx: Uint8Array): Promise<JsonObject>;
  broadcastTxSync(tx: Uint8Array): Promise<JsonObject>;
  broadcastTxCommit(tx: Uint8Array): Promise<JsonObject>;
  abciInfo(): Promise<JsonObject>;
  abciQuery(path: string, data: Uint8Array, height: bigint, prove: boolean): Promise<JsonObject>;
  broadcastEvidence(evidence: JsonObject | null): Promise<JsonObject>;
  dialSeeds(seeds: string[]): Promise<JsonObject>;
  dialPeers(peers: string[], persistent: boolean, unconditional: boolean, isPrivate: boolean): Promise<JsonObject>;
  unsafeFlushMempool(): Promise<JsonObject>;
  /**
   * Makes sure events matching `query` are published on the event bus (an upstream backend opens one
   * shared upstream subscription per query); the returned function releases it.
   */
  feedEvents(query: string): Promise<() => void>;
}
