/**
 * The node RPC over the embedded devnet: each method answers as a CometBFT v0.38 node running the
 * kvstore would, from the devnet's own store, mempool, indexers and application.
 */
import { Devnet, DevnetConfig } from '../../devnet/devnet';
import type { EventBus } from '../../events';
import type { NodeBackend } from '../node-backend';
import type { JsonObject } from '../../rpc/json';
import { AnswersDevnetErrors } from './devnet-errors';
import { blockEvents } from './events/block-events';
import { LeaderClient } from './leader-client';
import { AbciRpc } from './rpc/abci-rpc';
import { BlockRpc } from './rpc/block-rpc';
import { ConsensusRpc } from './rpc/consensus-rpc';
import { EvidenceRpc } from './rpc/evidence-rpc';
import { InfoRpc } from './rpc/info-rpc';
import { MempoolRpc } from './rpc/mempool-rpc';
import { TxRpc } from './rpc/tx-rpc';

export interface EmbeddedBackendConfig extends DevnetConfig {
  moniker: string;
  /** [rpc] laddr, shown in status. */
  rpcAddress: string;
  /** [rpc] timeout_broadcast_tx_commit, in milliseconds. */
  timeoutBroadcastTxCommitMs: number;
}

@AnswersDevnetErrors()
export class EmbeddedNodeBackend implements NodeBackend {
  private readonly blocks: BlockRpc;
  private readonly txs: TxRpc;
  private readonly mempool: MempoolRpc;
  private readonly info: InfoRpc;
  private readonly consensus: ConsensusRpc;
  private readonly abci: AbciRpc;
  private readonly evidence: EvidenceRpc;

  private constructor(
    readonly devnet: Devnet,
    config: EmbeddedBackendConfig,
    bus: EventBus,
  ) {
    this.blocks = new BlockRpc(devnet);
    this.txs = new TxRpc(devnet, this.blocks);
    this.mempool = new MempoolRpc(devnet, bus, config.timeoutBroadcastTxCommitMs);
    this.info = new InfoRpc(devnet, { moniker: config.moniker, rpcAddress: config.rpcAddress });
    this.consensus = new ConsensusRpc(devnet, config.blockTimeMs);
    this.abci = new AbciRpc(devnet.app);
    this.evidence = new EvidenceRpc(devnet);
  }

  /**
   * Opens the devnet (creating its home on the first run); blocks come once start() is called, each
   * announced on the bus with the events a CometBFT node publishes.
   */
  static async open(config: EmbeddedBackendConfig, bus: EventBus): Promise<EmbeddedNodeBackend> {
    const devnet = await Devnet.open(config, {
      onCommit: (block, blockId, results) => {
        for (const event of blockEvents(block, blockId, results)) bus.publish(event);
      },
      connectLeader: (url) => new LeaderClient(url),
    });
    return new EmbeddedNodeBackend(devnet, config, bus);
  }

  /** Produces the next block at once, then one every block time. */
  start(): Promise<void> {
    return this.devnet.start();
  }

  /** Stops block production and closes the database. */
  stop(): Promise<void> {
    return this.devnet.close();
  }

  health(): Promise<JsonObject> {
    return this.info.health();
  }

  status(): Promise<JsonObject> {
    return this.info.status();
  }

  netInfo(): Promise<JsonObject> {
    return this.info.netInfo();
  }

  blockchain(minHeight: bigint, maxHeight: bigint): Promise<JsonObject> {
    return this.blocks.blockchain(minHeight, maxHeight);
  }

  genesis(): Promise<JsonObject> {
    return this.info.genesis();
  }

  genesisChunked(chunk: number): Promise<JsonObject> {
    return this.info.genesisChunked(chunk);
  }

  block(height?: bigint): Promise<JsonObject> {
    return this.blocks.block(height);
  }

  blockByHash(hash: Uint8Array): Promise<JsonObject> {
    return this.blocks.blockByHash(hash);
  }

  blockResults(height?: bigint): Promise<JsonObject> {
    return this.blocks.blockResults(height);
  }

  commit(height?: bigint): Promise<JsonObject> {
    return this.blocks.commit(height);
  }

  header(height?: bigint): Promise<JsonObject> {
    return this.blocks.header(height);
  }

  headerByHash(hash: Uint8Array): Promise<JsonObject> {
    return this.blocks.headerByHash(hash);
  }

  validators(height?: bigint, page?: number, perPage?: number): Promise<JsonObject> {
    return this.blocks.validators(height, page, perPage);
  }

  dumpConsensusState(): Promise<JsonObject> {
    return this.consensus.dumpConsensusState();
  }

  consensusState(): Promise<JsonObject> {
    return this.consensus.consensusState();
  }

  consensusParams(height?: bigint): Promise<JsonObject> {
    return this.blocks.consensusParams(height);
  }

  unconfirmedTxs(limit?: number): Promise<JsonObject> {
    return this.mempool.unconfirmedTxs(limit);
  }

  numUnconfirmedTxs(): Promise<JsonObject> {
    return this.mempool.numUnconfirmedTxs();
  }

  tx(hash: Uint8Array, prove: boolean): Promise<JsonObject> {
    return this.txs.tx(hash, prove);
  }

  txSearch(query: string, prove: boolean, page: number | undefined, perPage: number | undefined, orderBy: string): Promise<JsonObject> {
    return this.txs.txSearch(query, prove, page, perPage, orderBy);
  }

  blockSearch(query: string, page: number | undefined, perPage: number | undefined, orderBy: string): Promise<JsonObject> {
    return this.txs.blockSearch(query, page, perPage, orderBy);
  }

  checkTx(tx: Uint8Array): Promise<JsonObject> {
    return this.mempool.checkTx(tx);
  }

  broadcastTxAsync(tx: Uint8Array): Promise<JsonObject> {
    return this.mempool.broadcastTxAsync(tx);
  }

  broadcastTxSync(tx: Uint8Array): Promise<JsonObject> {
    return this.mempool.broadcastTxSync(tx);
  }

  broadcastTxCommit(tx: Uint8Array): Promise<JsonObject> {
    return this.mempool.broadcastTxCommit(tx);
  }

  abciInfo(): Promise<JsonObject> {
    return this.abci.abciInfo();
  }

  abciQuery(path: string, data: Uint8Array, height: bigint, prove: boolean): Promise<JsonObject> {
    return this.abci.abciQuery(path, data, height, prove);
  }

  broadcastEvidence(evidence: JsonObject | null): Promise<JsonObject> {
    return this.evidence.broadcastEvidence(evidence);
  }

  dialSeeds(seeds: string[]): Promise<JsonObject> {
    return this.info.dialSeeds(seeds);
  }

  /** The flags only matter to a p2p switch; the devnet has none, so only the addresses are checked. */
  dialPeers(peers: string[], _persistent: boolean, _unconditional: boolean, _isPrivate: boolean): Promise<JsonObject> {
    return this.info.dialPeers(peers);
  }

  unsafeFlushMempool(): Promise<JsonObject> {
    return this.mempool.unsafeFlushMempool();
  }

  /** The devnet publishes every event itself; there is nothing to feed or release. */
  async feedEvents(): Promise<() => void> {
    return () => undefined;
  }
}
