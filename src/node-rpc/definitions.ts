/** The node RPC methods nodes answer, by route: what the gateway's own callers and plugins invoke. */
export { abci_info, abci_query } from './abci/abci.methods';
export { broadcast_evidence } from './evidence/evidence.methods';
export {
  block,
  block_by_hash,
  block_results,
  block_search,
  blockchain,
  commit,
  consensus_params,
  consensus_state,
  dump_consensus_state,
  genesis,
  genesis_chunked,
  header,
  header_by_hash,
  net_info,
  num_unconfirmed_txs,
  status,
  tx,
  tx_search,
  unconfirmed_txs,
  validators,
} from './info/info.methods';
export { broadcast_tx_sync, check_tx } from './tx/tx.methods';
export { dial_peers, dial_seeds, unsafe_flush_mempool } from './unsafe/unsafe.methods';
