/**
 * The node RPC over a pool of upstream CometBFT nodes. Each method becomes one upstream JSON-RPC call
 * with CometBFT's param encodings (every integer as a string, []byte as base64, HexBytes as hex), the height it
 * needs for routing, whether it may be retried, and how its answer may be cached.
 */
import { ApplicationError } from '../../rpc/errors';
import type { Json, JsonObject, NodeBackend } from '../node-backend';
import type { CacheRule, UpstreamPool } from './upstream-pool';
import type { WsMultiplexer } from './ws-multiplexer';

const IMMUTABLE: CacheRule = { kind: 'immutable' };
const LATEST: CacheRule = { kind: 'latest' };
const NONE: CacheRule = { kind: 'none' };
const keepIf = (field: string): CacheRule => ({ kind: 'immutable', keep: (r) => (r as JsonObject)?.[field] !== null });

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex').toUpperCase();

export class UpstreamNodeBackend implements NodeBackend {
  constructor(
    readonly pool: UpstreamPool,
    readonly events: WsMultiplexer,
    private readonly broadcastCommitTimeoutMs: number,
  ) {}

  async health(): Promise<JsonObject> {
    const all = this.pool.upstreams;
    if (!this.pool.serving) throw this.pool.unavailable();
    if (all.every((u) => u.healthy)) return {};
    // Degraded: CometBFT's empty object plus which upstreams are down (clients ignore extra fields).
    return {
      upstreams: all.map((u) => ({ name: u.name, healthy: u.healthy, reason: u.downReason, latest_height: u.latestHeight.toString() })),
    };
  }

  status(): Promise<JsonObject> {
    return this.read('status', {}, undefined, LATEST);
  }

  netInfo(): Promise<JsonObject> {
    return this.read('net_info', {}, undefined, NONE);
  }

  blockchain(minHeight: bigint, maxHeight: bigint): Promise<JsonObject> {
    return this.read('blockchain', { minHeight: minHeight.toString(), maxHeight: maxHeight.toString() }, maxHeight > 0n ? maxHeight : undefined, NONE);
  }

  genesis(): Promise<JsonObject> {
    return this.read('genesis', {}, undefined, IMMUTABLE);
  }

  genesisChunked(chunk: number): Promise<JsonObject> {
    return this.read('genesis_chunked', { chunk: String(chunk) }, undefined, IMMUTABLE);
  }

  block(height?: bigint): Promise<JsonObject> {
    return this.atHeight('block', height, {}, keepIf('block'));
  }

  blockByHash(hash: Uint8Array): Promise<JsonObject> {
    return this.read('block_by_hash', { hash: b64(hash) }, undefined, keepIf('block'));
  }

  blockResults(height?: bigint): Promise<JsonObject> {
    return this.atHeight('block_results', height, {}, IMMUTABLE);
  }

  commit(height?: bigint): Promise<JsonObject> {
    // The latest height's commit is the node's seen commit; only the canonical one is final.
    return this.atHeight('commit', height, {}, { kind: 'immutable', keep: (r) => (r as JsonObject).canonical === true });
  }

  header(height?: bigint): Promise<JsonObject> {
    return this.atHeight('header', height, {}, IMMUTABLE);
  }

  headerByHash(hash: Uint8Array): Promise<JsonObject> {
    return this.read('header_by_hash', { hash: hex(hash) }, undefined, keepIf('header'));
  }

  validators(height?: bigint, page?: number, perPage?: number): Promise<JsonObject> {
    const params: Record<string, Json> = {};
    if (page !== undefined) params.page = String(page);
    if (perPage !== undefined) params.per_page = String(perPage);
    return this.atHeight('validators', height, params, IMMUTABLE);
  }

  dumpConsensusState(): Promise<JsonObject> {
    return this.read('dump_consensus_state', {}, undefined, NONE);
  }

  consensusState(): Promise<JsonObject> {
    return this.read('consensus_state', {}, undefined, NONE);
  }

  consensusParams(height?: bigint): Promise<JsonObject> {
    return this.atHeight('consensus_params', height, {}, IMMUTABLE);
  }

  unconfirmedTxs(limit?: number): Promise<JsonObject> {
    return this.read('unconfirmed_txs', limit === undefined ? {} : { limit: String(limit) }, undefined, NONE);
  }

  numUnconfirmedTxs(): Promise<JsonObject> {
    return this.read('num_unconfirmed_txs', {}, undefined, NONE);
  }

  async tx(hash: Uint8Array, prove: boolean): Promise<JsonObject> {
    return this.noteTxHeight(await this.read('tx', { hash: b64(hash), prove }, undefined, IMMUTABLE));
  }

  txSearch(query: string, prove: boolean, page: number | undefined, perPage: number | undefined, orderBy: string): Promise<JsonObject> {
    const params: Record<string, Json> = { query, prove, order_by: orderBy };
    if (page !== undefined) params.page = String(page);
    if (perPage !== undefined) params.per_page = String(perPage);
    return this.read('tx_search', params, undefined, NONE);
  }

  blockSearch(query: string, page: number | undefined, perPage: number | undefined, orderBy: string): Promise<JsonObject> {
    const params: Record<string, Json> = { query, order_by: orderBy };
    if (page !== undefined) params.page = String(page);
    if (perPage !== undefined) params.per_page = String(perPage);
    return this.read('block_search', params, undefined, NONE);
  }

  checkTx(tx: Uint8Array): Promise<JsonObject> {
    return this.read('check_tx', { tx: b64(tx) }, undefined, NONE);
  }

  broadcastTxAsync(tx: Uint8Array): Promise<JsonObject> {
    return this.write('broadcast_tx_async', { tx: b64(tx) });
  }

  broadcastTxSync(tx: Uint8Array): Promise<JsonObject> {
    return this.write('broadcast_tx_sync', { tx: b64(tx) });
  }

  async broadcastTxCommit(tx: Uint8Array): Promise<JsonObject> {
    return this.noteTxHeight(await this.write('broadcast_tx_commit', { tx: b64(tx) }, this.broadcastCommitTimeoutMs + this.pool.settings.request_timeout));
  }

  abciInfo(): Promise<JsonObject> {
    return this.read('abci_info', {}, undefined, LATEST);
  }

  abciQuery(path: string, data: Uint8Array, height: bigint, prove: boolean): Promise<JsonObject> {
    const at = height > 0n ? height : undefined;
    return this.read('abci_query', { path, data: hex(data), height: height.toString(), prove }, at, at === undefined ? LATEST : IMMUTABLE);
  }

  broadcastEvidence(evidence: JsonObject | null): Promise<JsonObject> {
    return this.write('broadcast_evidence', { evidence });
  }

  dialSeeds(seeds: string[]): Promise<JsonObject> {
    return this.write('dial_seeds', { seeds });
  }

  dialPeers(peers: string[], persistent: boolean, unconditional: boolean, isPrivate: boolean): Promise<JsonObject> {
    return this.write('dial_peers', { peers, persistent, unconditional, private: isPrivate });
  }

  unsafeFlushMempool(): Promise<JsonObject> {
    return this.write('unsafe_flush_mempool', {});
  }

  feedEvents(query: string): Promise<() => void> {
    return this.events.feed(query);
  }

  /** An answer that puts a tx in block `height`: the client's next reads are of that block or later. */
  private async noteTxHeight(answer: JsonObject): Promise<JsonObject> {
    const height = answer.height;
    if (typeof height === 'string' && /^[0-9]+$/.test(height)) await this.pool.sawHeight(BigInt(height));
    return answer;
  }

  /** A read of a height (given: routed to upstreams keeping it, cached by `rule`) or of the latest. */
  private atHeight(method: string, height: bigint | undefined, params: Record<string, Json>, rule: CacheRule): Promise<JsonObject> {
    if (height === undefined) return this.read(method, params, undefined, LATEST);
    return this.read(method, { ...params, height: height.toString() }, height, rule);
  }

  private async read(method: string, params: Record<string, Json>, height: bigint | undefined, cache: CacheRule): Promise<JsonObject> {
    return object(await this.pool.request({ method, params, needs: { height }, idempotent: true, cache }), method);
  }

  private async write(method: string, params: Record<string, Json>, timeoutMs?: number): Promise<JsonObject> {
    return object(await this.pool.request({ method, params, needs: {}, idempotent: false, cache: NONE, timeoutMs }), method);
  }
}

function object(result: Json, method: string): JsonObject {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) throw new ApplicationError(`upstream answered ${method} with a non-object result`);
  return result;
}
