import type { GatewayConfigService } from '../../config/gateway-config.service';
import { toQuantity } from '../../evm-rpc/codec/hex';
import { toBackendArgs } from '../../evm-rpc/codec/transaction-args';
import { debug_traceBlockByHash, debug_traceBlockByNumber, debug_traceCall, debug_traceTransaction } from '../../evm-rpc/debug/trace.methods';
import * as blocks from '../../evm-rpc/eth/blocks.methods';
import * as chain from '../../evm-rpc/eth/chain.methods';
import { eth_sendRawTransaction } from '../../evm-rpc/eth/send.methods';
import * as state from '../../evm-rpc/eth/state.methods';
import type { BlockRef, RpcBlock, RpcLog, RpcReceipt, RpcTransaction, TxPoolContent } from '../../evm-rpc/evm-types';
import { eth_getLogs } from '../../evm-rpc/filters/get-logs';
import { net_listening, net_peerCount, net_version } from '../../evm-rpc/net/net.methods';
import { txpool_content, txpool_contentFrom, txpool_inspect, txpool_status } from '../../evm-rpc/txpool/txpool.methods';
import { web3_clientVersion } from '../../evm-rpc/web3/web3.methods';
import { getBytes } from 'ethers';
import type { DevnetEvm } from './devnet-evm';
import { HandlerTable } from './handler-table';

const LATEST: BlockRef = { kind: 'tag', tag: 'latest' };
const PENDING: BlockRef = { kind: 'tag', tag: 'pending' };
const byHash = (hash: string): BlockRef => ({ kind: 'hash', hash, requireCanonical: false });

/**
 * How the devnet answers each EVM method it serves, as an Evmos node does. Arguments come prepared by
 * their definitions (gas capped, a left-out block written out); `[json-rpc]` supplies the gas cap a call
 * without gas runs with, evm-timeout, the log caps and trace-response-max-size.
 */
export function evmHandlers(evm: DevnetEvm, config: GatewayConfigService): HandlerTable {
  const limits = () => ({ gasCap: BigInt(config.jsonRpc['gas-cap']), timeoutMs: config.jsonRpc['evm-timeout'] });
  const traceLimits = () => ({ maxBytes: config.jsonRpc['trace-response-max-size'] });
  const count = async (block: BlockRef) => {
    const n = await evm.getBlockTransactionCount(block);
    return n === null ? null : toQuantity(n);
  };
  return new HandlerTable()
    .on(chain.eth_chainId, async () => toQuantity(await evm.chainId()))
    .on(chain.eth_blockNumber, async () => toQuantity(await evm.blockNumber()))
    .on(chain.eth_syncing, () => evm.syncing())
    .on(chain.eth_gasPrice, async () => toQuantity(await evm.gasPrice()))
    .on(chain.eth_maxPriorityFeePerGas, async () => toQuantity(await evm.maxPriorityFeePerGas()))
    .on(chain.eth_blobBaseFee, async () => toQuantity(await evm.blobBaseFee()))
    .on(chain.eth_feeHistory, (a) => evm.feeHistory(a.blockCount, a.lastBlock, a.rewardPercentiles))
    .on(chain.eth_coinbase, () => evm.coinbase())
    .on(state.eth_getBalance, async (a) => toQuantity(await evm.getBalance(a.address, a.block ?? LATEST)))
    .on(state.eth_getStorageAt, (a) => evm.getStorageAt(a.address, a.slot, a.block ?? LATEST))
    .on(state.eth_getTransactionCount, async (a) => toQuantity(await evm.getTransactionCount(a.address, a.block ?? LATEST)))
    .on(state.eth_getCode, (a) => evm.getCode(a.address, a.block ?? LATEST))
    .on(state.eth_getProof, (a) => evm.getProof(a.address, a.storageKeys, a.block ?? LATEST))
    .on(state.eth_call, (a) => evm.call(toBackendArgs(a.args), a.block ?? LATEST, limits()))
    .on(state.eth_estimateGas, async (a) => toQuantity(await evm.estimateGas(toBackendArgs(a.args), a.block ?? PENDING, limits())))
    .on(state.eth_createAccessList, (a) => evm.createAccessList(toBackendArgs(a.args), a.block ?? LATEST, limits()))
    .on(eth_sendRawTransaction, (a) => evm.sendRawTransaction(getBytes(a.data)))
    .on(blocks.eth_getBlockByNumber, async (a) => (await evm.getBlockByNumber(a.block, a.fullTransactions)) as RpcBlock | null)
    .on(blocks.eth_getBlockByHash, async (a) => (await evm.getBlockByHash(a.hash, a.fullTransactions)) as RpcBlock | null)
    .on(blocks.eth_getBlockTransactionCountByNumber, (a) => count(a.block))
    .on(blocks.eth_getBlockTransactionCountByHash, (a) => count(byHash(a.hash)))
    .on(blocks.eth_getTransactionByHash, async (a) => (await evm.getTransactionByHash(a.hash)) as RpcTransaction | null)
    .on(blocks.eth_getTransactionByBlockNumberAndIndex, async (a) => (await evm.getTransactionByBlockAndIndex(a.block, a.index)) as RpcTransaction | null)
    .on(blocks.eth_getTransactionByBlockHashAndIndex, async (a) => (await evm.getTransactionByBlockAndIndex(byHash(a.hash), a.index)) as RpcTransaction | null)
    .on(blocks.eth_getTransactionReceipt, async (a) => (await evm.getTransactionReceipt(a.hash)) as RpcReceipt | null)
    .on(blocks.eth_getBlockReceipts, async (a) => (await evm.getBlockReceipts(a.block)) as RpcReceipt[] | null)
    .on(eth_getLogs, async (a, ctx) => (await evm.getLogs(a.criteria, { blockRange: config.jsonRpc['block-range-cap'], logs: config.jsonRpc['logs-cap'] }, ctx.signal)) as RpcLog[])
    .on(txpool_content, async () => (await evm.txpoolContent()) as TxPoolContent)
    .on(txpool_contentFrom, (a) => evm.txpoolContentFrom(a.address))
    .on(txpool_inspect, () => evm.txpoolInspect())
    .on(txpool_status, () => evm.txpoolStatus())
    .on(debug_traceTransaction, (a) => evm.traceTransaction(a.hash, a.config ?? {}, traceLimits()))
    .on(debug_traceBlockByNumber, (a) => evm.traceBlock(a.block, a.config ?? {}, traceLimits()))
    .on(debug_traceBlockByHash, (a) => evm.traceBlock(byHash(a.hash), a.config ?? {}, traceLimits()))
    .on(debug_traceCall, (a) => evm.traceCall(toBackendArgs(a.args), a.block, a.config ?? {}, { ...limits(), ...traceLimits() }))
    .on(net_version, () => evm.networkId())
    .on(net_listening, async () => (await evm.netInfo()).listening)
    .on(net_peerCount, async () => (await evm.netInfo()).peerCount)
    .on(web3_clientVersion, () => evm.clientVersion());
}
