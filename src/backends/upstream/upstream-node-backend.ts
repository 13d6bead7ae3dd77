/**
 * The node RPC over a pool of upstream CometBFT nodes, for the callers of NodeBackend (handlers that do
 * not forward, plugins, probes). Each call goes through its method definition: params encoded by the
 * definition's codecs, and its routing height, retry and cache rules taken from it.
 */
import { ApplicationError } from '../../rpc/errors';
import type { JsonObject } from '../../rpc/json';
import type { MethodArgs } from '../../rpc/method';
import type { MethodRegistry } from '../../rpc/method-registry';
import type { NodeBackend } from '../node-backend';
import { forward, namedParams } from './forwarder';
import type { UpstreamPool } from './upstream-pool';
import type { WsMultiplexer } from './ws-multiplexer';

export class UpstreamNodeBackend implements NodeBackend {
  constructor(
    readonly pool: UpstreamPool,
    readonly events: WsMultiplexer,
    private readonly broadcastCommitTimeoutMs: number,
    private readonly methods: MethodRegistry,
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

  status = () => this.call('status', {});
  netInfo = () => this.call('net_info', {});
  blockchain = (minHeight: bigint, maxHeight: bigint) => this.call('blockchain', { minHeight, maxHeight });
  genesis = () => this.call('genesis', {});
  genesisChunked = (chunk: number) => this.call('genesis_chunked', { chunk });
  block = (height?: bigint) => this.call('block', { height });
  blockByHash = (hash: Uint8Array) => this.call('block_by_hash', { hash });
  blockResults = (height?: bigint) => this.call('block_results', { height });
  commit = (height?: bigint) => this.call('commit', { height });
  header = (height?: bigint) => this.call('header', { height });
  headerByHash = (hash: Uint8Array) => this.call('header_by_hash', { hash });
  validators = (height?: bigint, page?: number, per_page?: number) => this.call('validators', { height, page, per_page });
  dumpConsensusState = () => this.call('dump_consensus_state', {});
  consensusState = () => this.call('consensus_state', {});
  consensusParams = (height?: bigint) => this.call('consensus_params', { height });
  unconfirmedTxs = (limit?: number) => this.call('unconfirmed_txs', { limit });
  numUnconfirmedTxs = () => this.call('num_unconfirmed_txs', {});
  tx = (hash: Uint8Array, prove: boolean) => this.call('tx', { hash, prove });
  txSearch = (query: string, prove: boolean, page: number | undefined, per_page: number | undefined, order_by: string) =>
    this.call('tx_search', { query, prove, page, per_page, order_by });
  blockSearch = (query: string, page: number | undefined, per_page: number | undefined, order_by: string) =>
    this.call('block_search', { query, page, per_page, order_by });
  checkTx = (tx: Uint8Array) => this.call('check_tx', { tx });
  broadcastTxAsync = (tx: Uint8Array) => this.call('broadcast_tx_async', { tx });
  broadcastTxSync = (tx: Uint8Array) => this.call('broadcast_tx_sync', { tx });
  broadcastTxCommit = (tx: Uint8Array) => this.call('broadcast_tx_commit', { tx }, this.broadcastCommitTimeoutMs + this.pool.settings.request_timeout);
  abciInfo = () => this.call('abci_info', {});
  abciQuery = (path: string, data: Uint8Array, height: bigint, prove: boolean) => this.call('abci_query', { path, data, height, prove });
  broadcastEvidence = (evidence: JsonObject | null) => this.call('broadcast_evidence', { evidence });
  dialSeeds = (seeds: string[]) => this.call('dial_seeds', { seeds });
  dialPeers = (peers: string[], persistent: boolean, unconditional: boolean, isPrivate: boolean) =>
    this.call('dial_peers', { peers, persistent, unconditional, private: isPrivate });
  unsafeFlushMempool = () => this.call('unsafe_flush_mempool', {});

  feedEvents(query: string): Promise<() => void> {
    return this.events.feed(query);
  }

  private async call(name: string, args: MethodArgs, timeoutMs?: number): Promise<JsonObject> {
    const method = this.methods.get(name);
    if (method === undefined) throw new ApplicationError(`${name} is not a node RPC method`);
    const result = await forward(this.pool, method, args, namedParams(method, args), timeoutMs);
    if (typeof result !== 'object' || result === null || Array.isArray(result)) throw new ApplicationError(`upstream answered ${name} with a non-object result`);
    return result;
  }
}
