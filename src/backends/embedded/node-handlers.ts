import { abci_info, abci_query } from '../../node-rpc/abci/abci.methods';
import { broadcast_evidence } from '../../node-rpc/evidence/evidence.methods';
import * as info from '../../node-rpc/info/info.methods';
import { broadcast_tx_sync, check_tx } from '../../node-rpc/tx/tx.methods';
import { dial_peers, dial_seeds, unsafe_flush_mempool } from '../../node-rpc/unsafe/unsafe.methods';
import type { NodeBlock, NodeBlockResults, NodeCheckTx, NodeStatus, NumUnconfirmedTxs } from '../../node-rpc/node-types';
import type { DevnetNode } from './devnet-node';
import { HandlerTable } from './handler-table';

/** How the devnet answers each node RPC method it serves, as a CometBFT v0.38 node running the kvstore does. */
export function nodeHandlers(node: DevnetNode): HandlerTable {
  const { blocks, txs, mempool, consensus, abci, evidence } = node;
  return (
    new HandlerTable()
      .on(info.status, async () => (await node.info.status()) as NodeStatus)
      .on(info.net_info, () => node.info.netInfo())
      .on(info.blockchain, (a) => blocks.blockchain(a.minHeight, a.maxHeight))
      .on(info.genesis, () => node.info.genesis())
      .on(info.genesis_chunked, (a) => node.info.genesisChunked(a.chunk))
      .on(info.block, async (a) => (await blocks.block(a.height)) as NodeBlock)
      .on(info.block_by_hash, async (a) => (await blocks.blockByHash(a.hash)) as NodeBlock)
      .on(info.block_results, async (a) => (await blocks.blockResults(a.height)) as NodeBlockResults)
      .on(info.commit, (a) => blocks.commit(a.height))
      .on(info.header, (a) => blocks.header(a.height))
      .on(info.header_by_hash, (a) => blocks.headerByHash(a.hash))
      .on(info.validators, (a) => blocks.validators(a.height, a.page, a.per_page))
      .on(info.dump_consensus_state, () => consensus.dumpConsensusState())
      .on(info.consensus_state, () => consensus.consensusState())
      .on(info.consensus_params, (a) => blocks.consensusParams(a.height))
      .on(info.unconfirmed_txs, (a) => mempool.unconfirmedTxs(a.limit))
      .on(info.num_unconfirmed_txs, async () => (await mempool.numUnconfirmedTxs()) as NumUnconfirmedTxs)
      .on(info.tx, (a) => txs.tx(a.hash, a.prove))
      .on(info.tx_search, (a, ctx) => txs.txSearch(a.query, a.prove, a.page, a.per_page, a.order_by, ctx.signal))
      .on(info.block_search, (a, ctx) => txs.blockSearch(a.query, a.page, a.per_page, a.order_by, ctx.signal))
      .on(check_tx, async (a) => (await mempool.checkTx(a.tx)) as NodeCheckTx)
      .on(broadcast_tx_sync, async (a) => (await mempool.broadcastTxSync(a.tx)) as NodeCheckTx & { hash: string })
      .on(abci_info, () => abci.abciInfo())
      .on(abci_query, (a) => abci.abciQuery(a.path, a.data, a.height, a.prove))
      .on(broadcast_evidence, (a) => evidence.broadcastEvidence(a.evidence))
      .on(dial_seeds, (a) => node.info.dialSeeds(a.seeds))
      // The flags only matter to a p2p switch; the devnet has none, so only the addresses are checked.
      .on(dial_peers, (a) => node.info.dialPeers(a.peers))
      .on(unsafe_flush_mempool, () => mempool.unsafeFlushMempool())
  );
}
