/**
 * The embedded devnet as a CometBFT v0.38 node running the kvstore: the devnet and the parts that
 * answer its node RPC (node-handlers.ts) from its own store, mempool, indexers and application.
 */
import { Devnet, DevnetConfig } from '../../devnet/devnet';
import type { EventBus } from '../../events';
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
}

export class DevnetNode {
  readonly blocks: BlockRpc;
  readonly txs: TxRpc;
  readonly mempool: MempoolRpc;
  readonly info: InfoRpc;
  readonly consensus: ConsensusRpc;
  readonly abci: AbciRpc;
  readonly evidence: EvidenceRpc;

  private constructor(
    readonly devnet: Devnet,
    config: EmbeddedBackendConfig,
  ) {
    this.blocks = new BlockRpc(devnet);
    this.txs = new TxRpc(devnet, this.blocks);
    this.mempool = new MempoolRpc(devnet);
    this.info = new InfoRpc(devnet, { moniker: config.moniker, rpcAddress: config.rpcAddress });
    this.consensus = new ConsensusRpc(devnet, config.blockTimeMs);
    this.abci = new AbciRpc(devnet.app);
    this.evidence = new EvidenceRpc(devnet);
  }

  /**
   * Opens the devnet (creating its home on the first run); blocks come once start() is called, each
   * announced on the bus with the events a CometBFT node publishes.
   */
  static async open(config: EmbeddedBackendConfig, bus: EventBus): Promise<DevnetNode> {
    const devnet = await Devnet.open(config, {
      onCommit: (block, blockId, results) => {
        for (const event of blockEvents(block, blockId, results)) bus.publish(event);
      },
      connectLeader: (url) => new LeaderClient(url),
    });
    return new DevnetNode(devnet, config);
  }

  /** Produces the next block at once, then one every block time. */
  start(): Promise<void> {
    return this.devnet.start();
  }

  /** Stops block production and closes the database. */
  stop(): Promise<void> {
    return this.devnet.close();
  }
}
