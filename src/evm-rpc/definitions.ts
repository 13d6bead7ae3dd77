/** The EVM methods nodes answer, by name: what the gateway's own callers and plugins invoke. */
export { eth_getBlockByHash, eth_getBlockByNumber, eth_getBlockReceipts, eth_getBlockTransactionCountByHash, eth_getBlockTransactionCountByNumber, eth_getTransactionByBlockHashAndIndex, eth_getTransactionByBlockNumberAndIndex, eth_getTransactionByHash, eth_getTransactionReceipt } from './eth/blocks.methods';
export { eth_blobBaseFee, eth_blockNumber, eth_chainId, eth_coinbase, eth_feeHistory, eth_gasPrice, eth_maxPriorityFeePerGas, eth_syncing } from './eth/chain.methods';
export { eth_sendRawTransaction } from './eth/send.methods';
export { eth_call, eth_createAccessList, eth_estimateGas, eth_getBalance, eth_getCode, eth_getProof, eth_getStorageAt, eth_getTransactionCount } from './eth/state.methods';
export { eth_getLogs } from './filters/get-logs';
export { debug_traceBlockByHash, debug_traceBlockByNumber, debug_traceCall, debug_traceTransaction } from './debug/trace.methods';
export { net_listening, net_peerCount, net_version } from './net/net.methods';
export { txpool_content, txpool_contentFrom, txpool_inspect, txpool_status } from './txpool/txpool.methods';
export { web3_clientVersion } from './web3/web3.methods';
